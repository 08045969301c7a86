"""`--memory-limit` and the API's `memory_limit`: a size as Dask reads it, in any case (outsider
helper-53: "2gb" was refused, which Dask takes), between 64 MB and 1 PB, handed to Dask as Dask
writes it. Dask's own `parse_bytes` is the oracle of what a size means."""
from __future__ import annotations

import pytest
from dask.utils import parse_bytes

from llgui.core.bounds import check_byte_size


@pytest.mark.parametrize("text, written", [
    ("2GB", "2GB"), ("2gb", "2GB"), ("2Gb", "2GB"), ("512MiB", "512MiB"), ("512mib", "512MiB"),
    ("1.5 GiB", "1.5GiB"), ("64MB", "64MB"), ("70000000", "70000000"), ("200000kB", "200000KB"),
    ("1PB", "1PB"), ("2PB", None), ("2g", "2G"), ("1TB", "1TB"), ("1.2PiB", None)])
def test_a_size_is_read_as_dask_reads_it(text, written):
    if written is None:
        with pytest.raises(ValueError, match="between 64MB and 1PB"):
            check_byte_size(text, "--memory-limit")
        return
    got = check_byte_size(text, "--memory-limit")
    assert got == written
    assert parse_bytes(got) == parse_bytes(text)   # the same size to Dask


@pytest.mark.parametrize("text", ["63MB", "1.1PB", "4e9", "-1GB", "2 GBs", "GB", "", "nan",
                                  "2XB", 2_000_000_000])
def test_what_is_not_a_size_in_range_is_refused_with_the_reason(text):
    with pytest.raises(ValueError, match="--memory-limit"):
        check_byte_size(text, "--memory-limit")
