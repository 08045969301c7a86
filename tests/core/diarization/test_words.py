"""Meeting word metrics: cpWER and tcpWER held equal to meeteval (its `cpwer` / `tcpwer` on
the very words scored), WDER to its definition (Shafey et al. 2019) computed from meeteval's
alignment with every speaker permutation tried, and the penalised versions to their
definition in docs/metrics.md, computed directly with meeteval on the corrected and impaired
hypotheses built here from that text."""
from __future__ import annotations

import itertools
import logging
from importlib.metadata import version

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from llgui.core.cost import CostModel
from llgui.core.diarization import edit
from llgui.core.diarization.word_track import WordTrack, make_word_metric
from llgui.core.diarization.words import UNMAPPABLE, Scorer, WordMetric, attribute
from llgui.core.types import (Adapted, DiarDocument, PointTarget, SameTarget, SpanTarget,
                              Stamp, Step, Turn, Word)
from tests.core.diarization.meeting_words import ami_document, seglst

meeteval = pytest.importorskip("meeteval")
logging.getLogger("preprocess").setLevel(logging.ERROR)     # meeteval's collar advice
logging.getLogger("error_rate").setLevel(logging.ERROR)     # and self-overlap notes


def meeteval_errors(name, reference, hypothesis, collar=None):
    """(errors, reference words) of meeteval on the words with a speaker."""
    hyp = [w for w in hypothesis if w.speaker is not None]
    if not hyp:
        return len(reference), len(reference)
    if name == "cpwer":
        result = meeteval.wer.cpwer(seglst(reference), seglst(hyp))["m"]
    else:
        result = meeteval.wer.tcpwer(seglst(reference), seglst(hyp), collar=collar)["m"]
    return result.errors, result.length


def meeteval_assignment(name, reference, hypothesis, collar=None):
    """meeteval's own speaker assignment, hypothesis label -> reference speaker."""
    hyp = [w for w in hypothesis if w.speaker is not None]
    if name == "cpwer":
        result = meeteval.wer.cpwer(seglst(reference), seglst(hyp))["m"]
    else:
        result = meeteval.wer.tcpwer(seglst(reference), seglst(hyp), collar=collar)["m"]
    return {h: r for r, h in result.assignment if r is not None and h is not None}


def wder_by_definition(reference, hypothesis, collar=None, unmappable=()):
    """WDER = (S_IS + C_IS) / (S + C): meeteval's speaker-agnostic alignment, then the best
    of every one-to-one speaker mapping (tried exhaustively)."""
    from meeteval.wer.wer.time_constrained import align

    hyp = [w for w in hypothesis if w.speaker is not None]
    ref_seg, hyp_seg = list(seglst(reference)), list(seglst(hyp))
    pairs = [(a, b) for a, b in align(ref_seg, hyp_seg, style="index",
                                      collar=float("inf") if collar is None else collar)
             if a is not None and b is not None]
    refs = sorted({s["speaker"] for s in ref_seg})
    hyps = sorted({s["speaker"] for s in hyp_seg} - set(unmappable))
    best = 0
    k = min(len(refs), len(hyps))
    for chosen in itertools.permutations(refs, k) if k else [()]:
        for mapped in itertools.combinations(hyps, k):
            mapping = dict(zip(mapped, chosen))
            agree = sum(mapping.get(hyp_seg[b]["speaker"]) == ref_seg[a]["speaker"]
                        for a, b in pairs)
            best = max(best, agree)
    return len(pairs) - best, len(pairs)


# --------------------------------------------------------------------------------------------
# Random meetings


# The strategies are built once: a sampled_from of a list (unhashable) is a new strategy at
# every call, which hypothesis validates on its first draw; built per word, generating the
# meetings took a quarter of the module under cProfile. Same meetings as before.
_GAPS = st.sampled_from([-1.0, 0.0, 0.3, 2.0])
_DURATIONS = st.sampled_from([0.1, 0.25, 0.4])
_WORDS = st.sampled_from("abcde")
_FATES = st.sampled_from(["keep", "keep", "keep", "drop", "change", "shift"])
_WORD_COUNTS = {n: st.integers(1, n) for n in (30, 40, 60)}
_SPEAKERS = {n: st.integers(0, n - 1) for n in range(1, 6)}


@st.composite
def meetings(draw, max_words=60):
    """(reference words, hypothesis words): a few speakers taking turns (with overlaps and
    pauses), a small vocabulary; the hypothesis drops, changes and shifts some words and
    labels them with its own speakers."""
    n_ref = draw(st.integers(1, 4))
    n_words = draw(_WORD_COUNTS[max_words])
    t, ref = 0.0, []
    for i in range(n_words):
        if i == 0 or draw(st.booleans()):
            speaker = f"S{draw(_SPEAKERS[n_ref])}"
            t += draw(_GAPS)
            t = max(t, 0.0)
        d = draw(_DURATIONS)
        ref.append((round(t, 3), round(t + d, 3), draw(_WORDS), speaker))
        t += d
    ref_words = tuple(Word(s, e, w, spk, (s, i, 0)) for i, (s, e, w, spk) in enumerate(ref))
    n_hyp = draw(st.integers(1, 5))
    hyp = []
    for i, (s, e, w, _) in enumerate(ref):
        kind = draw(_FATES)
        if kind == "drop":
            continue
        if kind == "change":
            w = "z"
        if kind == "shift":
            s, e = round(s + 0.7, 3), round(e + 0.7, 3)
        hyp.append(Word(s, e, w, f"h{draw(_SPEAKERS[n_hyp])}", (s, i, 0)))
    return ref_words, tuple(hyp)


COLLARS = [None, 0.0, 0.5, 5.0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meeting=meetings(), collar=st.sampled_from(COLLARS))
def test_cpwer_tcpwer_equal_meeteval(meeting, collar):
    reference, hypothesis = meeting
    name = "cpwer" if collar is None else "tcpwer"
    stats = WordMetric(name, collar).stats(reference, hypothesis)
    errors, length = meeteval_errors(name, reference, hypothesis, collar)
    assert (stats[0], stats[1]) == (errors, length)
    assert WordMetric(name, collar).score(stats) == pytest.approx(100 * errors / length)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meeting=meetings(), collar=st.sampled_from(COLLARS), data=st.data())
def test_relabelled_windows_equal_meeteval(meeting, collar, data):
    """The incremental path: errors of the hypothesis with any set of words relabelled (to an
    existing label, a new one, no speaker, or a never-mapped speaker) equal meeteval's on
    that hypothesis rebuilt in full."""
    reference, hypothesis = meeting
    scorer = Scorer(reference, hypothesis, [w.speaker for w in hypothesis], collar)
    a = data.draw(st.integers(0, len(hypothesis)))
    b = data.draw(st.integers(a, len(hypothesis)))
    choices = st.sampled_from(["h0", "h1", "new", None, UNMAPPABLE])
    changes = {i: data.draw(choices) for i in range(a, b)}
    unmapped = sum(1 for v in changes.values() if v is UNMAPPABLE)
    changed = tuple(Word(w.start, w.end, w.word, changes.get(i, w.speaker), w.order)
                    for i, w in enumerate(hypothesis) if changes.get(i, w.speaker)
                    is not UNMAPPABLE)
    name = "cpwer" if collar is None else "tcpwer"
    errors, _ = meeteval_errors(name, reference, changed, collar)
    assert scorer.errors_with(changes) == errors + unmapped
    # and after taking those labels as current
    scorer.relabel([None if changes.get(i, w.speaker) is UNMAPPABLE
                    else changes.get(i, w.speaker) for i, w in enumerate(hypothesis)])
    assert scorer.stats()[0] == errors     # the never-mapped words now left out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meeting=meetings(), collar=st.sampled_from(COLLARS), data=st.data())
def test_sparse_stored_rows_equal_meeteval(meeting, collar, data):
    """Long streams store their rows further apart (`MAX_STORED`): forced here on small
    meetings, a relabelled run of words still scores as meeteval does."""
    from llgui.core.diarization import word_engine

    reference, hypothesis = meeting
    saved = word_engine.MAX_STORED
    word_engine.MAX_STORED = 40
    try:
        scorer = Scorer(reference, hypothesis, [w.speaker for w in hypothesis], collar)
    finally:
        word_engine.MAX_STORED = saved
    a = data.draw(st.integers(0, len(hypothesis)))
    b = data.draw(st.integers(a, min(len(hypothesis), a + 8)))
    changes = {i: data.draw(st.sampled_from(["h0", "h2", None])) for i in range(a, b)}
    changed = tuple(Word(w.start, w.end, w.word, changes.get(i, w.speaker), w.order)
                    for i, w in enumerate(hypothesis))
    name = "cpwer" if collar is None else "tcpwer"
    assert scorer.errors_with(changes) == meeteval_errors(name, reference, changed, collar)[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meeting=meetings(max_words=30), collar=st.sampled_from([None, 1.0]))
def test_wder_equals_its_definition(meeting, collar):
    reference, hypothesis = meeting
    stats = WordMetric("wder", collar).stats(reference, hypothesis)
    assert (stats[0], stats[1]) == wder_by_definition(reference, hypothesis, collar)


def test_wder_published_example():
    """Shafey et al.'s definition on a hand-checked case: 5 reference words, the hypothesis
    misses one, substitutes one and puts two on the wrong speaker (after the best mapping):
    S + C = 4 paired words, S_IS + C_IS = 1 (mapping b->A, a->B leaves 'c' on a wrong one)."""
    w = lambda s, text, spk, i: Word(s, s + 0.5, text, spk, (s, i, 0))  # noqa: E731
    reference = (w(0, "x", "A", 0), w(1, "y", "A", 1), w(2, "z", "B", 2), w(3, "u", "B", 3),
                 w(4, "v", "B", 4))
    hypothesis = (w(0, "x", "b", 0), w(1, "y", "b", 1), w(2, "q", "a", 2), w(3, "u", "b", 3))
    stats = WordMetric("wder", None).stats(reference, hypothesis)
    assert tuple(stats) == (1.0, 4.0)
    assert WordMetric("wder").score(stats) == 25.0


def test_attribution_rule():
    turns = (Turn(0, 2, "a"), Turn(1.5, 4, "b"), Turn(5, 6, "c"))
    words = (Word(0.2, 0.6, "w", None), Word(1.4, 2.0, "w", None),   # midpoint 1.7: a and b
             Word(3.9, 4.5, "w", None),                              # midpoint 4.2: none; b
             Word(4.5, 4.8, "w", None))                              # touches nothing
    labels = [w.speaker for w in attribute(words, turns)]
    # midpoint 1.7: a overlaps 0.5 s, b 0.5 s -> tie, the smallest label
    assert labels == ["a", "a", "b", None]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meeting=meetings(max_words=40), collar=st.sampled_from([None, 0.5, 5.0]),
       data=st.data())
def test_penalised_values_hold_their_definition_on_random_meetings(meeting, collar, data):
    """Hypothesis turns drawn at random over the meeting (the words take their labels), a
    `name` and a `segment` step anywhere: S_cor and S_imp as docs/metrics.md defines them,
    with meeteval's own assignment naming the corrected labels (ties included)."""
    reference, _ = meeting
    end = max(w.end for w in reference) + 1.0
    cuts = sorted(data.draw(st.lists(st.floats(0, end, allow_nan=False), max_size=6)))
    bounds = [0.0] + cuts + [end]
    turns = tuple(Turn(a, b, data.draw(st.sampled_from(["p", "q", "r"])))
                  for a, b in zip(bounds, bounds[1:]) if b > a)
    ref_turns = tuple(Turn(w.start, w.end, w.speaker) for w in reference if w.end > w.start)
    doc = DiarDocument("m", Stamp.parse(0), "m", ref_turns, turns, words=reference)
    name = "cpwer" if collar is None else "tcpwer"
    track = WordTrack(doc, make_word_metric(name, {} if collar is None else
                                            {"word_collar": collar}), CostModel(window=1.0))
    t = data.draw(st.floats(0, end, allow_nan=False))
    span = data.draw(st.floats(0.1, end, allow_nan=False))
    for step in (Step("m", 1, "active", "name", PointTarget(t), "x"),
                 Step("m", 2, "active", "segment", SpanTarget(t, t + span))):
        windows = edit.step_windows(step, doc, track.cost_model)
        if not any(any(s <= w.midpoint <= e for s, e in windows) for w in reference):
            continue
        s_cor, s_imp = by_definition(track, step, name, collar)
        assert track.corrected(step).score == pytest.approx(s_cor, abs=1e-9)
        assert track.impaired(step).score == pytest.approx(s_imp, abs=1e-9)


# --------------------------------------------------------------------------------------------
# Real AMI turns with words


@pytest.fixture(scope="module")
def ami(reference_data):
    return ami_document(reference_data, end=420.0)


@pytest.mark.parametrize("name,collar", [("cpwer", None), ("tcpwer", 5.0), ("tcpwer", 0.5)])
def test_ami_meeting_equals_meeteval(ami, name, collar):
    metric = make_word_metric(name, {} if collar is None else {"word_collar": collar})
    track = WordTrack(ami, metric)
    hypothesis = attribute(ami.words, ami.hypothesis)
    errors, length = meeteval_errors(name, ami.words, hypothesis, collar)
    assert track.current().score == pytest.approx(100 * errors / length, abs=1e-12)
    assert metric.signature.endswith(f"|meeteval:{version('meeteval')}")


def test_tcpwer_needs_a_collar():
    with pytest.raises(ValueError, match="word_collar"):
        make_word_metric("tcpwer", {})


def steps_for(doc: DiarDocument):
    """One step of each kind, at words spread over the meeting."""
    at = [doc.words[int(len(doc.words) * f)].midpoint for f in (0.5, 0.15, 0.8, 0.3, 0.6)]
    return [
        Step(doc.id, 1, "active", "name", PointTarget(at[0]), answer="x"),
        Step(doc.id, 2, "active", "same", SameTarget(at[1], at[2]), answer=True),
        Step(doc.id, 3, "active", "boundary", PointTarget(at[3]), answer=(0.0, 1.0)),
        Step(doc.id, 4, "active", "segment", SpanTarget(at[4] - 10.0, at[4] + 15.0)),
    ]


def by_definition(track: WordTrack, step: Step, name: str, collar):
    """S_cor and S_imp of `step` as docs/metrics.md defines them, on hypotheses built here
    and scored by meeteval (its own assignment names the corrected labels)."""
    doc = track.doc
    windows = edit.step_windows(step, doc, track.cost_model)
    current = track.hypothesis_words()
    inside = {i for i, w in enumerate(current)
              if any(s <= 0.5 * (w.start + w.end) <= e for s, e in windows)}
    assert inside, "the step's windows hold words"
    if name == "wder":
        from llgui.core.diarization.words import wder_mapping

        mapping = wder_mapping(doc.words, current, collar)
    else:
        mapping = meeteval_assignment(name, doc.words, current, collar)
    label_of = {r: h for h, r in mapping.items()}
    if doc.hypothesis_words is None:     # the hypothesis words are the reference's
        truths = [w.speaker for w in doc.words]
    else:                                # the reference turns give given words a speaker
        truths = [w.speaker for w in attribute(current, doc.reference)]
    corrected = []
    for i, w in enumerate(current):
        speaker = w.speaker
        if i in inside:
            truth = truths[i]
            speaker = None if truth is None else label_of.get(truth, f"+{truth}")
        corrected.append(Word(w.start, w.end, w.word, speaker, w.order))
    moved = [i for i in inside if current[i].speaker is not None]
    kept = [w for i, w in enumerate(current) if i not in moved]
    if name == "wder":
        impaired_words = [Word(w.start, w.end, w.word,
                               "<impaired>" if i in moved else w.speaker, w.order)
                          for i, w in enumerate(current)]
        cor = wder_by_definition(doc.words, corrected, collar)
        imp = wder_by_definition(doc.words, impaired_words, collar, ("<impaired>",))
    else:
        cor = meeteval_errors(name, doc.words, corrected, collar)
        errors, length = meeteval_errors(name, doc.words, kept, collar)
        imp = (errors + len(moved), length)     # a never-mapped speaker: every word inserted
    return 100 * cor[0] / cor[1], 100 * imp[0] / imp[1]


@pytest.mark.parametrize("name,collar", [("cpwer", None), ("tcpwer", 5.0), ("wder", None)])
def test_penalised_values_hold_their_definition(ami, name, collar):
    settings_ = {} if collar is None else {"word_collar": collar}
    track = WordTrack(ami, make_word_metric(name, settings_), CostModel(window=4.0))
    for step in steps_for(ami):
        s_cor, s_imp = by_definition(track, step, name, collar)
        assert track.corrected(step).score == pytest.approx(s_cor, abs=1e-9), step.kind
        assert track.impaired(step).score == pytest.approx(s_imp, abs=1e-9), step.kind
        assert s_imp >= s_cor
        # a memorising system: h_n is the corrected turns; its words take their labels
        adapted = track.corrected_hypothesis(step)
        moved = track.advance(Step(step.doc, step.step, step.initiative, step.kind,
                                   step.target, adapted=Adapted(turns=adapted)))
        if name != "wder":
            errors, length = meeteval_errors(name, ami.words,
                                             attribute(ami.words, adapted), collar)
            assert moved.score == pytest.approx(100 * errors / length, abs=1e-9)


@pytest.mark.parametrize("name,collar", [("cpwer", None), ("tcpwer", 5.0), ("wder", None)])
def test_given_hypothesis_words(ami, name, collar):
    """Hypothesis words of their own (an ASR with errors: some words changed, dropped or
    shifted), labelled by the hypothesis turns: scores and penalised values as defined."""
    import dataclasses
    import random

    rng = random.Random(3)
    own = []
    for w in attribute(ami.words, ami.hypothesis):
        if rng.random() < 0.1:
            continue
        text = "uh" if rng.random() < 0.1 else w.word
        shift = 0.3 if rng.random() < 0.1 else 0.0
        own.append(Word(w.start + shift, w.end + shift, text, w.speaker,
                        (w.start + shift,) + w.order[1:]))
    doc = dataclasses.replace(ami, hypothesis_words=tuple(sorted(own, key=lambda w: w.order)))
    settings_ = {} if collar is None else {"word_collar": collar}
    track = WordTrack(doc, make_word_metric(name, settings_), CostModel(window=4.0))
    if name == "wder":
        errors, length = wder_by_definition(doc.words, doc.hypothesis_words, collar)
    else:
        errors, length = meeteval_errors(name, doc.words, doc.hypothesis_words, collar)
    assert track.current().score == pytest.approx(100 * errors / length, abs=1e-12)
    for step in steps_for(doc):
        s_cor, s_imp = by_definition(track, step, name, collar)
        assert track.corrected(step).score == pytest.approx(s_cor, abs=1e-9), step.kind
        assert track.impaired(step).score == pytest.approx(s_imp, abs=1e-9), step.kind


def test_replay_penalty_from_the_registry(ami):
    """The registry's Track runs through the penalty engine (S_pen = S_adapt + sum of
    S_imp - S_cor)."""
    from llgui.core.penalty import make_track, replay

    track = make_track(ami, "cpwer", {}, CostModel(window=4.0), (ami,))
    steps = steps_for(ami)
    result = replay(track, steps, CostModel(window=4.0), doc=ami.id)
    last = result.steps[-1]
    penalty = sum(s.s_imp - s.s_cor for s in result.steps)
    assert last.s_pen == pytest.approx(last.s_adapt + penalty)
    assert np.isfinite(result.s_base)


# --------------------------------------------------------------------------------------------
# The demo meeting (resources/demo/meeting/, made with real audio by its script)


def demo_meeting_bundles():
    from tests.conftest import DEMO

    return sorted((DEMO / "meeting").glob("*.toml")) if (DEMO / "meeting").is_dir() else []


@pytest.mark.parametrize("name,collar", [("cpwer", None), ("tcpwer", 5.0), ("wder", None)])
def test_demo_meeting_equals_meeteval(name, collar):
    """Every document of the demo meeting's bundles that has reference words: the score
    equals meeteval's (cpWER, tcpWER) or WDER's definition on meeteval's alignment."""
    from llgui.io.bundle import load_bundle

    documents = [d for path in demo_meeting_bundles() for d in load_bundle(path).documents
                 if getattr(d, "words", None)]
    if not documents:
        pytest.skip("no demo meeting with words in resources/demo/meeting/ yet")
    for doc in documents:
        track = WordTrack(doc, make_word_metric(name, {} if collar is None
                                                else {"word_collar": collar}))
        hypothesis = track.hypothesis_words()
        if name == "wder":
            errors, length = wder_by_definition(doc.words, hypothesis, collar)
        else:
            errors, length = meeteval_errors(name, doc.words, hypothesis, collar)
        assert track.current().score == pytest.approx(100 * errors / length, abs=1e-12)
        for step in steps_for(doc):
            if not edit.step_windows(step, doc, track.cost_model):
                continue
            s_cor, s_imp = by_definition(track, step, name, collar)
            assert track.corrected(step).score == pytest.approx(s_cor, abs=1e-9)
            assert track.impaired(step).score == pytest.approx(s_imp, abs=1e-9)
