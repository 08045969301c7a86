"""DER by region (`IncrementalDER`) equals a full recomputation, on random step sequences.

Random reference and hypothesis turn lists (overlaps included), random regions replaced (as a
step's corrected or impaired version is built: the turns around the windows only) and random
new turn lists made current, with and without collar, skip_overlap, a UEM and an unmappable
label: every component and the mapping equal `der_components` (the fast path the library
tests hold to pyannote.metrics), and on a few cases pyannote.metrics itself.
"""
from __future__ import annotations

import random

import pytest

from llgui.core.diarization.der import der_components
from llgui.core.diarization.reference import pyannote_der_components
from llgui.core.diarization.incremental import IncrementalDER
from llgui.core.types import Turn

FIELDS = ("miss", "false_alarm", "confusion", "correct", "total")


def turns(rng, labels, n, t=0.0):
    out = []
    for _ in range(n):
        t += rng.choice([0, 0.5, 1, 2.25])
        d = rng.choice([0.5, 1, 2, 3.5, 6])
        out.append(Turn(round(t, 3), round(t + d, 3), rng.choice(labels)))
        t += d - rng.choice([0, 0, 1])       # overlaps now and then
    return tuple(out)


def case(seed):
    rng = random.Random(seed)
    reference = turns(rng, "ABC", rng.randint(2, 25))
    hypothesis = turns(rng, "abcd", rng.randint(1, 25))
    end = max(t.end for t in reference + hypothesis)
    uem = None if rng.random() < 0.5 else [(0.5, end * 0.6), (end * 0.6 + 1, end + 2)]
    return rng, reference, hypothesis, end, uem, rng.choice([0.0, 0.0, 0.5, 1.0]), \
        rng.random() < 0.3


def assert_same(got, want):
    for name in FIELDS:
        assert getattr(got, name) == pytest.approx(getattr(want, name), abs=1e-9), name
    assert dict(got.mapping) == dict(want.mapping)


@pytest.fixture(params=["lists", "arrays"])
def searchable(request, monkeypatch):
    """Both ways a hypothesis' sorted starts and ends are bisected: as lists (a short show)
    and as numpy arrays (past `LIST_LIMIT` turns, here forced)."""
    import llgui.core.diarization.incremental as incremental

    if request.param == "arrays":
        monkeypatch.setattr(incremental, "LIST_LIMIT", 0)
    return request.param


@pytest.mark.parametrize("seed", range(30))
def test_regions_replaced_and_lists_advanced_equal_a_full_sweep(seed, searchable):
    rng, reference, hypothesis, end, uem, collar, skip = case(seed)
    inc = IncrementalDER(reference, hypothesis, uem, collar, skip)
    assert_same(inc.current(), der_components(reference, hypothesis, uem, collar, skip))
    for _ in range(8):
        a = round(rng.uniform(0, end), 3)
        b = round(a + rng.uniform(0.5, 8), 3)
        removed = inc.overlapping(a, b)
        local = [Turn(t.start, a, t.speaker) for t in removed if t.start < a]
        local += [Turn(b, t.end, t.speaker) for t in removed if t.end > b]
        local += [Turn(max(t.start, a), min(t.end, b), t.speaker)
                  for t in turns(rng, "abcde", rng.randint(0, 3), a) if min(t.end, b) > max(t.start, a)]
        unmappable = ("e",) if rng.random() < 0.3 else ()
        gone = set(map(id, removed))
        whole = [t for t in inc.hypothesis if id(t) not in gone] + local
        assert_same(inc.score_replaced(a, b, local, unmappable),
                    der_components(reference, whole, uem, collar, skip, unmappable))
        if whole and rng.random() < 0.6:
            rng.shuffle(whole) if rng.random() < 0.2 else None
            assert_same(inc.advance(tuple(whole)),
                        der_components(reference, whole, uem, collar, skip))


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_pyannote_metrics(seed):
    rng, reference, hypothesis, end, uem, collar, skip = case(1000 + seed)
    inc = IncrementalDER(reference, hypothesis, uem, collar, skip)
    for _ in range(3):
        a = round(rng.uniform(0, end), 3)
        b = round(a + rng.uniform(0.5, 8), 3)
        removed = inc.overlapping(a, b)
        local = [Turn(t.start, a, t.speaker) for t in removed if t.start < a]
        local += [Turn(b, t.end, t.speaker) for t in removed if t.end > b]
        local += [Turn(a, b, "z")]
        gone = set(map(id, removed))
        whole = [t for t in inc.hypothesis if id(t) not in gone] + local
        want = pyannote_der_components(reference, whole, uem=uem, collar=collar,
                                       skip_overlap=skip)
        assert_same(inc.score_replaced(a, b, local), want)
        inc.advance(tuple(whole))
