"""JER by region and error regions by splice (`IncrementalDER`), on random step sequences.

Hypothesis draws a reference, a hypothesis and a sequence of steps (a region's turns replaced,
as a step's corrected or impaired version is built, or a new turn list made current), with and
without collar, skip_overlap, a UEM and an unmappable label. After every step:

- JER (`score_replaced(..., jer=True)`, `current_jer()`) equals pyannote.metrics'
  JaccardErrorRate (`pyannote_jer_components`) to 1e-9, and DER equals DiarizationErrorRate;
- the cached error regions (spliced step by step) equal `error_regions` of a full sweep.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgui.core.diarization.der import error_regions
from llgui.core.diarization.incremental import IncrementalDER
from llgui.core.diarization.reference import pyannote_der_components, pyannote_jer_components
from llgui.core.types import Turn

DER_FIELDS = ("miss", "false_alarm", "confusion", "correct", "total")


@st.composite
def turn_lists(draw, labels, low=1, high=14, t0=0.0):
    out, t = [], t0
    for _ in range(draw(st.integers(low, high))):
        t += draw(st.sampled_from([0, 0.25, 0.5, 1, 2.25]))
        d = draw(st.sampled_from([0.25, 0.5, 1, 2, 3.5, 6]))
        out.append(Turn(round(t, 3), round(t + d, 3), draw(st.sampled_from(labels))))
        t += d - draw(st.sampled_from([0, 0, 0.5, 1]))   # overlaps now and then
    return tuple(out)


@st.composite
def sessions(draw):
    reference = draw(turn_lists("ABC", 2))
    hypothesis = draw(turn_lists("abcd", 1))
    end = max(t.end for t in reference + hypothesis)
    uem = draw(st.sampled_from([None, "split"]))
    if uem == "split":
        uem = [(0.5, round(end * 0.6, 3)), (round(end * 0.6 + 1, 3), end + 2)]
    collar = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0]))
    skip = draw(st.booleans())
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        a = round(draw(st.floats(0, end)), 3)
        b = round(a + draw(st.floats(0.5, 8)), 3)
        new = draw(turn_lists("abcde", 0, 3, a))
        steps.append((a, b, new, draw(st.booleans()), draw(st.booleans())))
    return reference, hypothesis, uem, collar, skip, steps


def assert_jer(got, want):
    assert got.speaker_count == want.speaker_count
    assert got.speaker_error == pytest.approx(want.speaker_error, abs=1e-9)
    assert got.jer == pytest.approx(want.jer, abs=1e-9)


def assert_der(got, want):
    for name in DER_FIELDS:
        assert getattr(got, name) == pytest.approx(getattr(want, name), abs=1e-9), name


def assert_regions(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g[2] == w[2] and g[0] == pytest.approx(w[0], abs=1e-9) \
            and g[1] == pytest.approx(w[1], abs=1e-9), (g, w)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_jer_and_error_regions_by_region_equal_pyannote_and_a_full_sweep(session):
    reference, hypothesis, uem, collar, skip, steps = session
    inc = IncrementalDER(reference, hypothesis, uem, collar, skip)
    assert_jer(inc.current_jer(), pyannote_jer_components(reference, hypothesis, uem, collar,
                                                          skip))
    assert_regions(inc.error_regions(),
                   error_regions(reference, hypothesis, uem, collar, skip))
    for a, b, new, block, make_current in steps:
        removed = inc.overlapping(a, b)
        local = [Turn(t.start, a, t.speaker) for t in removed if t.start < a]
        local += [Turn(b, t.end, t.speaker) for t in removed if t.end > b]
        local += [Turn(max(t.start, a), min(t.end, b), t.speaker) for t in new
                  if min(t.end, b) > max(t.start, a)]
        unmappable = ("e",) if block else ()
        gone = set(map(id, removed))
        whole = [t for t in inc.hypothesis if id(t) not in gone] + local
        assert_jer(inc.score_replaced(a, b, local, unmappable, jer=True),
                   pyannote_jer_components(reference, whole, uem, collar, skip, unmappable))
        assert_der(inc.score_replaced(a, b, local, unmappable),
                   pyannote_der_components(reference, whole, uem, collar, skip, unmappable))
        if whole and make_current:
            whole = tuple(sorted(whole, key=lambda t: (t.start, t.end, t.speaker)))
            inc.advance(whole)
            assert_jer(inc.current_jer(),
                       pyannote_jer_components(reference, whole, uem, collar, skip))
            assert_regions(inc.error_regions(),
                           error_regions(reference, whole, uem, collar, skip))
