"""The cell cache's entry format (llgui.campaign.cache): what goes in comes back bit for bit,
as writable float64 arrays, and an entry that is not exactly what `put` wrote is damage."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.campaign.cache import CellCache

KEY = "cd" + "1" * 62


@pytest.fixture
def stats():
    rng = np.random.default_rng(7)
    return {"bleu": rng.integers(0, 60, (50, 9)).astype(float),
            "chrf": rng.random((50, 36)) * 1e6,
            "ter": np.array([[1e-300, 5e300]] * 50)}


def test_an_entry_comes_back_bit_for_bit_and_writable(tmp_path, stats):
    cache = CellCache(tmp_path)
    cache.put(KEY, stats)
    back = cache.get(KEY, widths={"bleu": 9, "chrf": 36, "ter": 2})
    assert list(back) == list(stats)
    for name, array in stats.items():
        assert back[name].dtype == np.float64 and back[name].shape == array.shape
        assert back[name].tobytes() == array.tobytes()
        back[name][0, 0] = -1.0   # the caller owns its copy (merges add into it)
    assert cache.get(KEY)["bleu"][0, 0] == stats["bleu"][0, 0]
    assert cache.corrupt == 0


@pytest.mark.parametrize("damage", ["flipped value", "one value short", "one value more",
                                    "header of another key", "not finite", "wrong width"])
def test_an_entry_that_is_not_what_put_wrote_is_removed(tmp_path, stats, damage):
    cache = CellCache(tmp_path)
    widths = {"bleu": 9, "chrf": 36, "ter": 2}
    if damage == "not finite":   # a well-formed entry, checksum and all, holding a NaN
        stats["chrf"][3, 3] = np.nan
    if damage == "wrong width":
        widths["chrf"] = 35
    cache.put(KEY, stats)
    path = cache.path(KEY)
    data = path.read_bytes()
    if damage == "flipped value":
        path.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    elif damage == "one value short":
        path.write_bytes(data[:-8])
    elif damage == "one value more":
        path.write_bytes(data + bytes(8))
    elif damage == "header of another key":
        other = CellCache(tmp_path / "other")
        other.put("ef" + "2" * 62, stats)
        path.write_bytes(other.path("ef" + "2" * 62).read_bytes())
    assert cache.get(KEY, widths=widths) is None
    assert cache.corrupt == 1 and not path.exists()
