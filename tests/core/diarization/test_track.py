"""DiarTrack: the per-document cache of the penalty engine, held equal to pyannote.metrics'
full recomputation of the very hypotheses it scores (current, corrected, impaired, adapted),
per document and pooled over documents."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from llgui.core.cost import CostModel
from llgui.core.diarization.der import DERMetric, JERMetric
from llgui.core.diarization.reference import pyannote_der_components, pyannote_jer_components
from llgui.core.diarization.track import DiarTrack, make_diar_metric
from llgui.core.penalty import make_track, replay, replay_bundle
from llgui.core.types import (Adapted, Bundle, DiarDocument, PointTarget, SameTarget,
                              SpanTarget, Stamp, Step, Turn)
from llgui.core.walkthrough import walk


def T(start, end, speaker):
    return Turn(float(start), float(end), speaker)


#   time        0    5    10   15   20   25   30   35   40
#               |....|....|....|....|....|....|....|....|
#   reference   AAAAAAAAAA  BBBBBBBB    AAA   CCCCCCCCCC
#   hypothesis    aaaaaaaaaaadbbbbbb  ccccccccccccccccdd
REFERENCE = (T(0, 10, "A"), T(12, 20, "B"), T(24, 27, "A"), T(30, 40, "C"))
HYPOTHESIS = (T(2, 13, "a"), T(13, 14, "d"), T(14, 20, "b"), T(22, 38, "c"), T(38, 40, "d"))
ADAPTED = (T(1, 11, "a"), T(12, 20, "b"), T(22, 27, "a"), T(28, 40, "c"))


def document(uem=None, doc_id="show", hypothesis=HYPOTHESIS):
    return DiarDocument(doc_id, Stamp.parse("2020-01-01"), doc_id, REFERENCE, hypothesis, uem)


def step(n, kind, target, adapted=None, cost=None, doc="show"):
    return Step(doc=doc, step=n, initiative="active", kind=kind, target=target, cost=cost,
                adapted=Adapted(turns=adapted) if adapted is not None else None)


STEPS = (
    step(1, "segment", SpanTarget(8.0, 16.0), adapted=ADAPTED),
    step(2, "name", PointTarget(25.0)),
    step(3, "boundary", PointTarget(29.0), adapted=HYPOTHESIS),
    step(4, "same", SameTarget(5.0, 33.0)),
)

SETTINGS = [
    {"collar": 0.0, "skip_overlap": False},
    {"collar": 0.5, "skip_overlap": True},
]
UEMS = [None, ((1.0, 18.0), (21.0, 39.0))]


def library(metric, reference, hypothesis, uem, unmappable=()):
    if metric.name == "der":
        return pyannote_der_components(reference, hypothesis, uem, metric.collar,
                                       metric.skip_overlap, unmappable).der
    return pyannote_jer_components(reference, hypothesis, uem, metric.collar,
                                   metric.skip_overlap, unmappable).jer


def test_make_diar_metric_reads_the_bundle_settings():
    metric = make_diar_metric("der", {"collar": 0.5, "skip_overlap": True})
    assert isinstance(metric, DERMetric)
    assert (metric.collar, metric.skip_overlap) == (0.5, True)
    assert isinstance(make_diar_metric("jer", {}), JERMetric)
    assert make_diar_metric("jer").collar == 0.0
    with pytest.raises(ValueError, match="unknown diarization metric"):
        make_diar_metric("bleu", {})


@pytest.mark.parametrize("uem", UEMS)
@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("name", ["der", "jer"])
def test_every_score_of_a_replay_equals_pyannote(name, settings, uem):
    doc = document(uem)
    metric = make_diar_metric(name, settings)
    track = DiarTrack(doc, metric)
    assert track.current().score == pytest.approx(
        library(metric, REFERENCE, HYPOTHESIS, uem), abs=1e-9)
    for s in STEPS:
        seen = track.hypothesis
        corrected = track.corrected_hypothesis(s)
        impaired, label = track.impaired_hypothesis(s)
        cor, imp = track.corrected(s), track.impaired(s)
        # corrected() / impaired() do not move the track
        assert track.hypothesis == seen
        assert cor.score == pytest.approx(library(metric, REFERENCE, corrected, uem), abs=1e-9)
        assert imp.score == pytest.approx(
            library(metric, REFERENCE, impaired, uem, [label]), abs=1e-9)
        assert metric.score(cor.stats) == cor.score and metric.score(imp.stats) == imp.score
        adapted = track.advance(s)
        expected_h = s.adapted.turns if s.adapted is not None else seen
        assert track.hypothesis == tuple(expected_h)
        assert adapted.score == pytest.approx(library(metric, REFERENCE, expected_h, uem), abs=1e-9)
        assert track.current().score == adapted.score


def test_mapping_follows_the_current_hypothesis():
    track = DiarTrack(document(), DERMetric())
    assert track.mapping() == dict(pyannote_der_components(REFERENCE, HYPOTHESIS).mapping)
    track.advance(STEPS[0])
    assert track.mapping() == dict(pyannote_der_components(REFERENCE, ADAPTED).mapping)
    assert track.mapping() == {"a": "A", "b": "B", "c": "C"}


def test_windows_and_corrected_parts():
    track = DiarTrack(document(), DERMetric())
    assert track.windows(STEPS[0]) == ((8.0, 16.0),)
    assert track.windows(STEPS[3]) == ((3.5, 6.5), (31.5, 34.5))
    corrected = track.corrected_hypothesis(STEPS[0])
    assert T(12, 16, "b") in corrected and T(8, 10, "a") in corrected
    impaired, label = track.impaired_hypothesis(STEPS[0])
    assert label not in {t.speaker for t in REFERENCE + HYPOTHESIS}
    assert T(8, 13, label) in impaired


def test_cost_is_the_log_cost_or_the_seconds_listened():
    doc = document()
    other = DiarDocument("other", Stamp.parse(1), "other", (T(0, 60, "X"),), ())
    track = DiarTrack(doc, DERMetric(), CostModel(), others={"other": other})
    model = CostModel()
    assert track.cost(step(1, "name", PointTarget(20.0), cost=7.5), model) == 7.5
    assert track.cost(step(1, "name", PointTarget(20.0), cost=7.5),
                      model.with_(use_log_cost=False)) == pytest.approx(3.0)
    assert track.cost(step(1, "name", PointTarget(20.0)), model) == pytest.approx(3.0)
    # boundary(15): B (12..20) plus 3 s on each side
    assert track.cost(step(1, "boundary", PointTarget(15.0)), model) == pytest.approx(14.0)
    # both windows of a same, the other document's included, at listen_weight 2
    cross = step(1, "same", SameTarget(5.0, 58.5, "other"))
    assert track.cost(cross, model.with_(listen_weight=2.0)) == pytest.approx(2 * (3.0 + 3.0))
    # clipped to the other document's end (60 s): 57..60
    assert track.cost(step(1, "same", SameTarget(5.0, 59.5, "other")), model) == pytest.approx(5.0)
    # overlapping windows in one document are listened to once
    assert track.cost(step(1, "same", SameTarget(5.0, 6.0)), model) == pytest.approx(4.0)
    assert track.cost(step(1, "segment", SpanTarget(2.0, 9.0)), model.with_(window=10)) == 7.0


def _bundle(metric_name: str, settings) -> Bundle:
    docs = (document(None, "d1"),
            document(UEMS[1], "d2", hypothesis=ADAPTED),
            document(None, "d3", hypothesis=(T(0, 40, "z"),)))
    steps = tuple(
        Step(doc=d, step=s.step, initiative=s.initiative, kind=s.kind, target=s.target,
             adapted=s.adapted)
        for d in ("d1", "d2") for s in STEPS
    )
    return Bundle(path=None, task="diarization", name="t", metrics=(metric_name,),
                  settings=settings, cost=CostModel(), documents=docs, steps=steps)


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("name", ["der", "jer"])
def test_pooled_scores_equal_pyannote_accumulated_over_documents(name, settings):
    """Summing the tracks' statistics gives the value of one pyannote metric object fed every
    document, for the base and the final hypotheses."""
    from pyannote.metrics.diarization import DiarizationErrorRate, JaccardErrorRate

    from llgui.core.diarization.reference import _annotation, _timeline

    bundle = _bundle(name, settings)
    result = replay_bundle(bundle, name)
    cls = DiarizationErrorRate if name == "der" else JaccardErrorRate

    def pooled(hypotheses):
        metric = cls(collar=settings["collar"], skip_overlap=settings["skip_overlap"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for doc, hyp in zip(bundle.documents, hypotheses):
                metric(_annotation(doc.reference), _annotation(hyp), uem=_timeline(doc.uem))
        return 100 * abs(metric)

    finals = []
    for doc in bundle.documents:
        steps = bundle.steps_of(doc.id)
        hyp = doc.hypothesis
        for s in steps:
            if s.adapted is not None:
                hyp = s.adapted.turns
        finals.append(hyp)
    assert result.pooled_base == pytest.approx(pooled([d.hypothesis for d in bundle.documents]),
                                               abs=1e-9)
    assert result.pooled_adapt == pytest.approx(pooled(finals), abs=1e-9)
    for replayed, doc in zip(result.replays, bundle.documents):
        assert replayed.s_base == pytest.approx(
            library(make_diar_metric(name, settings), doc.reference, doc.hypothesis, doc.uem),
            abs=1e-9)


def test_replay_penalised_score_and_msr():
    doc = document()
    track = make_track(doc, "der", {"collar": 0.0}, CostModel())
    result = replay(track, STEPS, CostModel(), doc="show")
    penalty = 0.0
    for s in result.steps:
        penalty += s.s_imp - s.s_cor
        assert s.s_pen == pytest.approx(s.s_adapt + penalty)
        assert s.s_imp >= s.s_cor
    final = pyannote_der_components(REFERENCE, HYPOTHESIS)
    cost = sum(s.cost for s in result.steps)
    # Geoffrois's MSR: each step's feedback is the error seconds its correction removes, from
    # the hypothesis the human saw (h_{n-1}) to its corrected version
    errors = [track.metric.errors(st)[0] for st in
              [result.stats_base] + [adapt for _, _, adapt in result.step_stats]]
    feedback = sum(errors[n] - track.metric.errors(cor)[0]
                   for n, (cor, _, _) in enumerate(result.step_stats))
    assert feedback > 0
    assert result.msr == pytest.approx(100 * (feedback + final.error) / final.total)
    # the older rule, the seconds listened as feedback, stays as msr_cost
    assert result.msr_cost == pytest.approx(100 * (cost + final.error) / final.total)


def test_walkthrough_keeps_what_the_human_saw():
    view = walk(document(), STEPS, "der", {}, CostModel())
    first = view.steps[0]
    assert first.seen == HYPOTHESIS
    assert first.adapted == ADAPTED
    assert first.windows == ((8.0, 16.0),)
    assert first.mapping == {"a": "A", "b": "B", "c": "C"}
    assert first.unmappable and all(t.speaker == first.unmappable
                                    for t in first.impaired if 8 <= t.start < 16)
    assert view.steps[1].seen == ADAPTED


def test_error_regions_of_the_current_hypothesis():
    track = DiarTrack(document(), DERMetric())
    regions = track.error_regions()
    seconds = {}
    for start, end, kind in regions:
        seconds[kind] = seconds.get(kind, 0.0) + end - start
    lib = pyannote_der_components(REFERENCE, HYPOTHESIS)
    # no overlap on either side here, so region lengths are the components
    assert seconds["correct"] == pytest.approx(lib.correct)
    assert seconds["confusion"] == pytest.approx(lib.confusion)
    assert seconds["miss"] == pytest.approx(lib.miss)
    assert seconds["false_alarm"] == pytest.approx(lib.false_alarm)


def test_stats_are_additive_vectors():
    metric = DERMetric()
    a = metric.stats(REFERENCE, HYPOTHESIS)
    b = metric.stats(REFERENCE, ADAPTED)
    assert a.shape == (5,) and np.all(a >= 0)
    assert metric.score(a + b) == pytest.approx(
        100 * (a[:3].sum() + b[:3].sum()) / (a[4] + b[4]))
