"""A campaign's cell heads in one file (llgui.campaign.heads): a cached rerun reads them from
the index while each cell's entry is as it was, and falls back on the entry itself (with its
damage checks) when it is not; the report is the same to the byte; an index that is not what
the module writes is ignored."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from llgui.campaign.cache import CellCache
from llgui.campaign.heads import HeadIndex, index_path
from llgui.campaign.run import run_campaign
from llgui.io.campaign import load_campaign
from llgui.io.campaign_export import to_json
from tests.campaign.helpers import small_mt_campaign

KEY = "ab" + "3" * 62
WIDTHS = {"bleu": 9, "ter": 2}


@pytest.fixture
def stats():
    rng = np.random.default_rng(3)
    return {"bleu": rng.integers(0, 60, (40, 9)), "ter": rng.random((40, 2)) * 1e3}


def _index_with(tmp_path, stats):
    cache = CellCache(tmp_path / "cache")
    index = HeadIndex(cache, str(tmp_path / "c.toml"))
    index.note(KEY, cache.put(KEY, stats))
    index.save()
    return cache


def test_a_head_comes_back_from_the_index_as_the_entry_says_it(tmp_path, stats):
    cache = _index_with(tmp_path, stats)
    head = HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS)
    expected = cache.head(KEY, WIDTHS)
    assert head is not None and head.rows == expected.rows == 40
    for metric in WIDTHS:
        assert head.sums[metric].dtype == np.float64
        assert head.sums[metric].tobytes() == expected.sums[metric].tobytes()
        assert head.sums[metric].tobytes() == stats[metric].sum(axis=0, dtype="<f8").tobytes()


def test_an_entry_rewritten_or_removed_is_not_taken_from_the_index(tmp_path, stats):
    cache = _index_with(tmp_path, stats)
    entry = cache.path(KEY)
    info = entry.stat()
    os.utime(entry, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))   # touched
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None
    entry.unlink()
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None


def test_another_campaign_file_has_its_own_index(tmp_path, stats):
    cache = _index_with(tmp_path, stats)
    assert HeadIndex(cache, str(tmp_path / "other.toml")).head(KEY, WIDTHS) is None


def _rewrite(path, change) -> None:
    """The index with `change(cells)` applied and its checksum made again (a hostile or
    buggy writer that knows the format), or the bytes changed with the checksum kept."""
    import hashlib

    data = path.read_bytes()
    index = json.loads(data[65:])
    change(index["cells"])
    text = json.dumps(index).encode()
    path.write_bytes(hashlib.sha256(text).hexdigest().encode() + b" " + text)


@pytest.mark.parametrize("change", [
    lambda c: c[KEY][3]["bleu"].__setitem__(0, "1.0"),
    lambda c: c[KEY][3]["bleu"].__setitem__(0, 10**400),
    lambda c: c[KEY][3]["bleu"].__setitem__(0, True),
    lambda c: c[KEY][3]["bleu"].pop(),                       # a width the scorer's is not
    lambda c: c[KEY][3].__setitem__("bleu", {"a": 1.0}),
    lambda c: c[KEY].__setitem__(2, -1),
    lambda c: c[KEY].__setitem__(2, 1.5),
    lambda c: c[KEY].pop(),
    lambda c: c.__setitem__(KEY, "entry"),
])
def test_an_index_not_as_written_is_ignored(tmp_path, stats, change):
    cache = _index_with(tmp_path, stats)
    _rewrite(index_path(cache.root, str(tmp_path / "c.toml")), change)
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None


def test_an_index_with_inf_or_a_torn_checksum_is_ignored(tmp_path, stats):
    cache = _index_with(tmp_path, stats)
    path = index_path(cache.root, str(tmp_path / "c.toml"))
    data = path.read_bytes()
    at = data.index(b'"bleu":[') + len(b'"bleu":[')
    path.write_bytes(data[:at] + b"Infinity," + data[at:])    # checksum no longer holds
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None
    _rewrite(path, lambda c: None)       # the same JSON with its checksum made again...
    text = path.read_bytes().replace(b'"bleu": [', b'"bleu": [Infinity, ', 1)
    import hashlib

    path.write_bytes(hashlib.sha256(text[65:]).hexdigest().encode() + text[64:])
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None
    path.unlink()
    os.mkfifo(path)                      # never opened for reading (no hang)
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is None


def test_a_cached_rerun_reads_the_index_and_its_report_is_the_same_to_the_byte(
        tmp_path, monkeypatch):
    path = small_mt_campaign(tmp_path / "camp")
    cache = CellCache(tmp_path / "cache")
    first = to_json(run_campaign(load_campaign(path), workers=0, cache=cache).report)
    assert index_path(cache.root, str(path)).is_file()    # written by the first run
    opened = []
    real_head = CellCache.head
    monkeypatch.setattr(CellCache, "head",
                        lambda self, *a, **k: opened.append(a) or real_head(self, *a, **k))
    again = to_json(run_campaign(load_campaign(path), workers=0, cache=cache).report)
    assert opened == [] and again == first
    # an entry damaged (its size changed) is read again, found damaged and recomputed
    entry = next(cache.root.glob("*/*.cell"))
    entry.write_bytes(entry.read_bytes()[:-5])
    run = run_campaign(load_campaign(path), workers=0, cache=CellCache(cache.root))
    assert to_json(run.report) == first
    assert len(opened) == 1 and any(str(entry) in d for d in run.damaged), run.damaged


def test_a_folder_in_the_index_s_place_is_replaced(tmp_path, stats):
    cache = CellCache(tmp_path / "cache")
    index_path(cache.root, str(tmp_path / "c.toml")).joinpath("inside").mkdir(parents=True)
    cache = _index_with(tmp_path, stats)
    assert index_path(cache.root, str(tmp_path / "c.toml")).is_file()
    assert HeadIndex(cache, str(tmp_path / "c.toml")).head(KEY, WIDTHS) is not None
