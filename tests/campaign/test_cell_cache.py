"""The cell cache's entry format (llgui.campaign.cache): what goes in comes back bit for bit,
as writable float64 arrays, and an entry that is not exactly what `put` wrote is damage."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def _damaged(tmp_path, stats, damage: str):
    """An entry `put` under KEY, then damaged as `damage` says: (cache, its path, widths)."""
    cache = CellCache(tmp_path)
    widths = {"bleu": 9, "chrf": 36, "ter": 2}
    if damage == "not finite":   # a well-formed entry, checksums and all, holding a NaN
        stats["chrf"][3, 3] = np.nan
    if damage == "wrong width":
        widths["chrf"] = 35
    cache.put(KEY, stats)
    path = cache.path(KEY)
    data = path.read_bytes()
    if damage == "flipped value":
        path.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    elif damage == "sum's byte":   # a bit of a column sum flipped: the head's checksum fails
        at = data.index(b"\n") + 1
        path.write_bytes(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
    elif damage == "one value short":
        path.write_bytes(data[:-8])
    elif damage == "one value more":
        path.write_bytes(data + bytes(8))
    elif damage == "header of another key":
        other = CellCache(tmp_path / "other")
        other.put("ef" + "2" * 62, stats)
        path.write_bytes(other.path("ef" + "2" * 62).read_bytes())
    elif damage == "no header":
        path.write_bytes(data[data.index(b"\n") + 1:])
    return cache, path, widths


@pytest.mark.parametrize("damage", ["flipped value", "one value short", "one value more",
                                    "header of another key", "not finite", "wrong width"])
def test_an_entry_that_is_not_what_put_wrote_is_removed(tmp_path, stats, damage):
    cache, path, widths = _damaged(tmp_path, stats, damage)
    assert cache.get(KEY, widths=widths) is None
    assert cache.corrupt == 1 and not path.exists()


def test_the_header_holds_the_sums_numpy_gives(tmp_path, stats):
    """A cached rerun builds its report from the headers alone: their sums must be what
    numpy sums from the arrays put, bit for bit, and the row count theirs."""
    cache = CellCache(tmp_path)
    cache.put(KEY, stats)
    head = cache.head(KEY, widths={"bleu": 9, "chrf": 36, "ter": 2})
    assert head.rows == 50 and list(head.sums) == list(stats)
    for name, array in stats.items():
        assert head.sums[name].tobytes() == array.sum(axis=0).tobytes()


@pytest.mark.parametrize("damage", ["sum's byte", "one value short", "header of another key",
                                    "not finite", "wrong width", "no header"])
def test_a_header_that_is_not_what_put_wrote_is_removed(tmp_path, stats, damage):
    cache, path, widths = _damaged(tmp_path, stats, damage)
    assert cache.head(KEY, widths=widths) is None
    assert cache.corrupt == 1 and not path.exists()


def test_damaged_rows_under_a_whole_header_are_found_when_read(tmp_path, stats):
    """A flipped value in the rows passes the header's checks (they read the header only);
    the rows are checked when a stored cell is first read: the entry is then removed, named,
    computed again and written whole."""
    from llgui.campaign.cache import StoredCell

    cache = CellCache(tmp_path)
    cache.put(KEY, stats)
    path = cache.path(KEY)
    data = path.read_bytes()
    path.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    widths = {"bleu": 9, "chrf": 36, "ter": 2}
    head = cache.head(KEY, widths=widths)
    assert head is not None and cache.corrupt == 0
    computed = []
    cell = StoredCell(cache, KEY, head, widths, "cell a/b/c",
                      lambda: computed.append(1) or stats)
    assert "ter" in cell and list(cell) == list(stats) and not computed   # header only
    assert cell["ter"].tobytes() == stats["ter"].tobytes() and computed == [1]
    assert cache.damaged == [f"{path} (cell a/b/c)"]
    assert cache.get(KEY, widths=widths)["ter"].tobytes() == stats["ter"].tobytes()
    assert cell["chrf"].tobytes() == stats["chrf"].tobytes() and computed == [1]


def test_counts_are_stored_in_small_integers_and_come_back_as_float64(tmp_path):
    """Gate 7's cells are counts of at most a few hundred: their rows take a byte a value on
    disk (120 KB a cell in float64 before), and come back as the same float64 values."""
    rng = np.random.default_rng(3)
    stats = {"bleu": rng.integers(0, 200, (500, 10)).astype(float),
             "chrf": rng.integers(0, 60_000, (500, 18)).astype(float),
             "ter": rng.integers(0, 20, (500, 2)).astype(float) + 0.5}
    cache = CellCache(tmp_path)
    cache.put(KEY, stats)
    rows = 500 * 10 * 1 + 500 * 18 * 2 + 500 * 2 * 8
    assert rows < cache.path(KEY).stat().st_size < rows + 2_000
    back = cache.get(KEY, widths={"bleu": 10, "chrf": 18, "ter": 2})
    for name, array in stats.items():
        assert back[name].dtype == np.float64 and back[name].tobytes() == array.tobytes()


@pytest.mark.parametrize("kind", ["|u1", "<u2", "<i4", "<i8", ">u2", "<u8"])
def test_counts_sent_as_integers_are_stored_as_their_float64_values_are(tmp_path, kind):
    """A worker sends counts in a small integer type (`executor.compact`); the driver stores
    them as sent: the entry is byte for byte the one of the same values in float64, and
    comes back as those float64 values."""
    from llgui.campaign.cache import _pack

    rng = np.random.default_rng(5)
    top = {"|u1": 255, "<u2": 60_000, ">u2": 60_000, "<i4": 2**31 - 1}.get(kind, 2**31 + 7)
    counts = {"bleu": rng.integers(0, top, (300, 10), endpoint=True),
              "ter": rng.integers(0, 40, (300, 2))}
    counts["bleu"][0, 0] = top
    sent = {m: a.astype(np.dtype(kind)) for m, a in counts.items()}
    as_float = {m: a.astype(np.float64) for m, a in counts.items()}
    assert _pack(KEY, sent) == _pack(KEY, as_float)
    cache = CellCache(tmp_path)
    cache.put(KEY, sent)
    back = cache.get(KEY, widths={"bleu": 10, "ter": 2})
    for name, array in as_float.items():
        assert back[name].dtype == np.float64 and back[name].tobytes() == array.tobytes()
    head = cache.head(KEY, {"bleu": 10, "ter": 2})
    assert head.sums["bleu"].tobytes() == as_float["bleu"].sum(axis=0).tobytes()


@pytest.mark.parametrize("kind", ["<f4", "|O", "<i8", ">u2"])
def test_an_entry_claiming_another_row_type_is_damage(tmp_path, stats, kind):
    """A header naming a type `put` never writes (checksums made to match, as a hostile file
    could) is removed, not read as that type."""
    import hashlib
    import json

    cache = CellCache(tmp_path)
    cache.put(KEY, stats)
    path = cache.path(KEY)
    data = path.read_bytes()
    end = data.index(b"\n")
    header = json.loads(data[65:end])
    header["types"][0] = kind
    text = json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n"
    rest = data[end + 1:]
    sums = rest[:8 * (9 + 36 + 2)]
    path.write_bytes(hashlib.sha256(text + sums).hexdigest().encode("ascii") + b" " + text
                     + rest)
    assert cache.head(KEY) is None and cache.corrupt == 1 and not path.exists()


@settings(max_examples=200, deadline=None)
@given(inputs=st.lists(st.text(max_size=70), max_size=3),
       settings_=st.dictionaries(st.text(max_size=12), st.one_of(
           st.text(max_size=20), st.integers(), st.floats(allow_nan=False), st.booleans()),
           max_size=3),
       extra=st.one_of(st.none(), st.dictionaries(st.text(max_size=8), st.text(max_size=8),
                                                  max_size=2)))
def test_keys_made_from_a_kept_description_are_cell_keys(inputs, settings_, extra):
    """`cell_keys` (the run's loop) writes the description's text once: its keys are the
    content addresses `cell_key` gives, for any inputs, settings and extras (a settings value
    holding the marker it splits at included: then it falls back to `cell_key`)."""
    from llgui.campaign.cache import cell_key, cell_keys

    versions = {"llgui": "0.1", "sacrebleu": "2.6.0"}
    metrics = ["bleu", "chrf"]
    for given_settings in (settings_, {**settings_, "odd": "\x00inputs\x00"}):
        expected = cell_key("mt", inputs, metrics, given_settings, versions, extra)
        assert cell_keys("mt", metrics, given_settings, versions, extra)(inputs) == expected
