"""The small sweep of a step's region (`small_sums`) equals the numpy sweep's sums.

Hypothesis draws both sides' turns (overlaps of one label with itself, empty and
sub-microsecond turns, shared edges), a UEM of a few spans (overlapping, touching, empty) and
the settings; every sum of the Python sweep equals the numpy one (`_Sums.of` with the small
path turned off) to 1e-9, with the same keys. The numpy sweep is the one the library tests
hold to pyannote.metrics; `test_incremental` and `test_jer_incremental` hold the scorer that
now uses the small sweep to pyannote itself.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import llgui.core.diarization.incremental as incremental
from llgui.core.diarization.incremental import _Sums
from llgui.core.diarization.small_sweep import small_sums
from llgui.core.types import Turn

SCALARS = ("miss", "fa", "both", "total")
DICTS = ("co", "matched", "hyp_time", "ref_time", "inter", "hyp_on", "ref_on")

times = st.one_of(st.integers(0, 40).map(lambda x: x / 4),
                  st.floats(0, 10, allow_nan=False, allow_infinity=False))
lengths = st.sampled_from([0.0, 5e-7, 1e-6, 2e-6, 0.25, 1.0, 2.5, 4.0])


@st.composite
def turn_lists(draw, labels):
    out = []
    for _ in range(draw(st.integers(0, 14))):
        start = draw(times)
        out.append(Turn(start, start + draw(lengths), draw(st.sampled_from(labels))))
    return out


@st.composite
def uems(draw):
    spans = []
    for _ in range(draw(st.integers(1, 3))):
        start = draw(times)
        spans.append((start, start + draw(st.sampled_from([0.0, 5e-7, 0.5, 3.0, 8.0]))))
    return spans


def numpy_sums(*args) -> _Sums:
    small, incremental.SMALL = incremental.SMALL, -1
    try:
        return _Sums.of(*args)
    finally:
        incremental.SMALL = small


@settings(max_examples=400, deadline=None)
@given(turn_lists("ABC"), turn_lists("abcd"), uems(), st.sampled_from([0.0, 0.0, 0.5, 1.0]),
       st.booleans())
def test_small_sweep_equals_the_numpy_sweep(reference, hypothesis, uem, collar, skip):
    args = (reference, hypothesis, uem, collar, skip)
    got, want = small_sums(_Sums(), *args), numpy_sums(*args)
    for name in SCALARS:
        assert abs(getattr(got, name) - getattr(want, name)) <= 1e-9, name
    for name in DICTS:
        mine, theirs = getattr(got, name), getattr(want, name)
        assert mine.keys() == theirs.keys(), name
        for key, value in theirs.items():
            assert abs(mine[key] - value) <= 1e-9, (name, key)


def test_the_scorer_uses_it_on_a_region():
    reference = [Turn(0.0, 2.0, "A"), Turn(1.0, 3.0, "B")]
    hypothesis = [Turn(0.5, 2.5, "a")]
    assert len(reference) + len(hypothesis) <= incremental.SMALL
    got = _Sums.of(reference, hypothesis, [(0.0, 3.0)], 0.0, False)
    # by hand: A 0-2 and B 1-3 against a 0.5-2.5 over 0-3: miss 0.5 + 0.5 (one speaker
    # only, no hypothesis) and 1 s of two speakers against one (0.5-1 has one each)
    assert abs(got.miss - 2.0) < 1e-12 and got.fa == 0.0
    assert abs(got.co[("a", "A")] - 1.5) < 1e-12 and abs(got.co[("a", "B")] - 1.5) < 1e-12
