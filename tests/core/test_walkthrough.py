"""The lazy walkthrough equals a full recomputation, on random step sequences.

`walk()` keeps only the base and, per segment, the steps that changed it (MT), or the turn
lists shared with the log (diarization), and rebuilds a step's hypotheses on demand; the DER
track takes the speaker mapping from its score's own sweep. Here random documents and random
logs are replayed, and every step's rebuilt hypotheses are held equal to the log applied by
hand, and every score to sacrebleu / pyannote.metrics run from scratch on those hypotheses
(`verify_walkthrough`, the GUI's "Verify with libraries").
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llgui.core.cost import CostModel
from llgui.core.types import (
    Adapted, DiarDocument, MTDocument, PointTarget, SentenceTarget, SpanTarget, Stamp, Step, Turn,
)
from llgui.core.verify import verify_walkthrough
from llgui.core.walkthrough import VIEW_CACHE, Segments, walk

WORDS = ("a", "b", "c", "d", "e", "f", "g")
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@st.composite
def mt_cases(draw):
    n = draw(st.integers(1, 8))
    refs = tuple(draw(sentence) for _ in range(n))
    hyp = tuple(draw(sentence) for _ in range(n))
    steps = []
    for k in range(1, draw(st.integers(1, 10)) + 1):
        target = draw(st.integers(1, n))
        changed = draw(st.dictionaries(st.integers(1, n), sentence, max_size=3))
        adapted = Adapted(lines=changed) if changed or draw(st.booleans()) else None
        if draw(st.booleans()):
            steps.append(Step("d", k, "active", "reference", SentenceTarget(target), None,
                              None, adapted))
        else:
            steps.append(Step("d", k, "interactive", "post_edit", SentenceTarget(target),
                              draw(sentence), None, adapted))
    return MTDocument("d", Stamp.parse(0), hyp, (refs,)), tuple(steps)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mt_cases(), st.sampled_from(["bleu", "chrf", "ter"]))
def test_mt_steps_rebuilt_from_the_change_history_equal_the_log_and_sacrebleu(case, metric):
    doc, steps = case
    result = walk(doc, steps, metric, {}, CostModel())
    by_hand = list(doc.hypothesis)
    for n, step in enumerate(steps, start=1):
        view = result.steps[n - 1]
        assert view.seen == tuple(by_hand)
        corrected = list(by_hand)
        index = step.target.sentence - 1
        corrected[index] = doc.references[0][index] if step.kind == "reference" else step.answer
        assert view.corrected == tuple(corrected)
        changes = {k - 1: t for k, t in (step.adapted.lines.items() if step.adapted else ())}
        assert set(view.changed_segments) == {i for i, t in changes.items()
                                              if t != by_hand[i] and i != index}
        for i, text in changes.items():
            by_hand[i] = text
        assert view.adapted == tuple(by_hand)
        assert result.hypothesis_at(n) == tuple(by_hand)
    assert result.base == doc.hypothesis
    verification = verify_walkthrough(result, {})
    assert verification.ok, verification.summary()


def test_segments_read_like_a_tuple():
    history = {1: ([2, 5], ["x", "y"])}
    at = [Segments(("a", "b", "c"), history, n) for n in range(7)]
    assert [s[1] for s in at] == ["b", "b", "x", "x", "x", "y", "y"]
    assert at[3] == ("a", "x", "c") and at[3] == ["a", "x", "c"] and at[3] != ("a", "b")
    assert list(at[6]) == ["a", "y", "c"] and at[6][-1] == "c" and at[6][0:2] == ("a", "y")
    assert Segments(("a", "b"), {}, 0, {0: "z"}) == ("z", "b")


def _turns(draw, labels, n):
    out, t = [], 0.0
    for _ in range(n):
        t += draw(st.integers(0, 3))
        length = draw(st.integers(1, 6))
        out.append(Turn(float(t), float(t + length), draw(st.sampled_from(labels))))
        t += length - draw(st.integers(0, 2))   # overlaps now and then
    return tuple(out)


@st.composite
def diar_cases(draw):
    reference = _turns(draw, ("A", "B", "C"), draw(st.integers(2, 7)))
    hypothesis = _turns(draw, ("a", "b", "c", "d"), draw(st.integers(1, 7)))
    end = max(t.end for t in reference + hypothesis)
    steps, current = [], hypothesis
    for k in range(1, draw(st.integers(1, 5)) + 1):
        if draw(st.booleans()):
            current = _turns(draw, ("a", "b", "c", "d"), draw(st.integers(1, 7)))
            adapted = Adapted(turns=current)
        else:
            adapted = None
        if draw(st.booleans()):
            target, kind = PointTarget(float(draw(st.integers(0, int(end))))), "name"
        else:
            start = draw(st.integers(0, int(end)))
            target, kind = SpanTarget(float(start), float(start + draw(st.integers(1, 8)))), \
                "segment"
        steps.append(Step("s", k, "interactive", kind, target,
                          "A" if kind == "name" else None, None, adapted))
    return DiarDocument("s", Stamp.parse(0), "s", reference, hypothesis), tuple(steps)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diar_cases())
def test_diarization_steps_rebuilt_from_shared_turn_lists_equal_pyannote(case):
    doc, steps = case
    result = walk(doc, steps, "der", {}, CostModel())
    current = doc.hypothesis
    for n, step in enumerate(steps, start=1):
        view = result.steps[n - 1]
        assert view.seen == current
        if step.adapted is not None:
            current = step.adapted.turns
            assert view.adapted is step.adapted.turns, "the log's turn list is shared"
        assert view.adapted == current
    verification = verify_walkthrough(result, {})
    assert verification.ok, verification.summary()


def test_step_views_are_cached_with_a_bound():
    doc = MTDocument("d", Stamp.parse(0), ("a b",) * 3, (("a c",) * 3,))
    steps = tuple(Step("d", k, "active", "reference", SentenceTarget(1 + k % 3), None, None,
                       Adapted(lines={1 + k % 3: "a c"})) for k in range(1, 3 * VIEW_CACHE))
    result = walk(doc, steps, "bleu", {}, CostModel())
    first = result.view(1)
    assert result.view(1) is first                  # cached
    for n in range(2, len(steps) + 1):
        result.view(n)
    assert len(result._views) == VIEW_CACHE          # bounded
    assert result.view(1) is not first and result.view(1).seen == first.seen   # rebuilt equal


@pytest.mark.parametrize("task", ["mt", "diarization"])
def test_a_walkthrough_is_freed_by_refcounting_alone(task):
    """The window freezes walkthroughs out of the garbage collector (its full passes over
    them stalled the event loop), so one must hold no reference cycle to itself: evicted
    from the cache, it is freed at once, steps viewed or not (a cycle here leaked every
    document ever opened)."""
    import gc
    import weakref

    from benchmarks.synthetic import diar_bundle, mt_bundle

    bundle = mt_bundle(50, 8) if task == "mt" else diar_bundle(0.2, 6)
    document = bundle.documents[0]
    metric = "bleu" if task == "mt" else "der"
    gc.disable()
    try:
        result = walk(document, bundle.steps, metric, bundle.settings, bundle.cost)
        assert len(result.steps) == 8 if task == "mt" else len(result.steps) == 6
        result.steps[0]   # a view built and cached
        alive = weakref.ref(result)
        del result
        assert alive() is None, "the walkthrough is kept alive by a reference cycle"
    finally:
        gc.enable()
