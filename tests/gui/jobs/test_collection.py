"""The window's whole-bundle jobs (llgui.gui.jobs.collection) without a window: every
document replayed, with the Documents list's summaries built on the worker, scores equal to
sacrebleu and pyannote.metrics; the `llgui score` JSON written where asked."""
from __future__ import annotations

import dataclasses
import json

import pytest
from sacrebleu.metrics import BLEU, CHRF

from llgui.core.cost import CostModel
from llgui.core.diarization.reference import pyannote_der_components
from llgui.core.jobs import Cancelled
from llgui.core.penalty import replay_bundle
from llgui.core.reports.commands import score_report
from llgui.gui.jobs.collection import collection_job, export_scores_job
from llgui.io.bundle import load_bundle
from llgui.io.export import to_json
from tests.conftest import DEMO


@pytest.fixture(scope="module")
def mt():
    return load_bundle(DEMO / "mt" / "bundle.toml")


@pytest.mark.parametrize("metric, scorer", [("bleu", BLEU), ("chrf", CHRF)])
def test_every_document_is_scored_as_sacrebleu_scores_it(mt, metric, scorer):
    fractions = []
    result = collection_job(mt, metric, mt.cost, progress=fractions.append)
    assert [r.doc for r in result.replays] == [d.id for d in mt.documents]
    for doc, r in zip(mt.documents, result.replays):
        expected = scorer().corpus_score(list(doc.hypothesis), [list(x) for x in doc.references])
        assert r.s_base == pytest.approx(expected.score, abs=1e-9)
    hyps = [h for d in mt.documents for h in d.hypothesis]
    refs = [[x for d in mt.documents for x in d.references[0]]]
    assert result.pooled_base == pytest.approx(scorer().corpus_score(hyps, refs).score,
                                               abs=1e-9)
    assert fractions and fractions[-1] == pytest.approx(1.0)


def test_the_summaries_are_built_on_the_worker_and_are_the_cores(mt):
    result = collection_job(mt, "bleu", mt.cost)
    assert "_summaries" in result.__dict__   # built by the job, not by the table's first read
    expected = replay_bundle(mt, "bleu", mt.cost)
    for r, e in zip(result.replays, expected.replays):
        summary = result.summaries()[r.doc]
        assert (summary.s_base, summary.s_pen, summary.steps) == (e.s_base, e.s_pen,
                                                                  len(e.steps))
        assert summary.gain == e.s_pen - e.s_base   # BLEU: higher is better
    llmt = collection_job(mt, "bleu", mt.cost, "llmt")
    assert [r.s_pen for r in llmt.replays] == [
        r.s_pen for r in replay_bundle(mt, "bleu", mt.cost, mode="llmt").replays]


def test_the_cost_model_given_is_the_one_replayed(mt):
    doubled = CostModel(reference_weight=2.0, post_edit_weight=2.0, use_log_cost=False)
    result = collection_job(mt, "bleu", doubled)
    expected = replay_bundle(mt, "bleu", doubled)
    assert [r.total_cost for r in result.replays] == [r.total_cost for r in expected.replays]
    assert [r.s_pen for r in result.replays] == [r.s_pen for r in expected.replays]
    plain = collection_job(mt, "bleu", mt.cost)   # (and the cost model made a difference)
    assert [r.total_cost for r in result.replays] != [r.total_cost for r in plain.replays]


def test_a_show_collection_is_scored_as_pyannote_scores_it():
    diar = load_bundle(DEMO / "diarization" / "bundle.toml")
    result = collection_job(diar, "der", diar.cost)
    for doc, r in zip(diar.documents, result.replays):
        c = pyannote_der_components(doc.reference, doc.hypothesis, doc.uem)
        assert r.s_base == pytest.approx(100 * (c.miss + c.false_alarm + c.confusion) / c.total,
                                         abs=1e-9)
        # DER: lower is better, so a gain is S_base - S_pen
        assert result.summaries()[r.doc].gain == pytest.approx(r.s_base - r.s_pen, abs=1e-12)


def test_a_cancelled_collection_stops(mt):
    with pytest.raises(Cancelled):
        collection_job(mt, "ter", mt.cost, should_stop=lambda: True)


def test_the_export_job_writes_the_score_report(mt, tmp_path):
    edited = dataclasses.replace(mt, cost=CostModel(reference_weight=3.0))
    path = tmp_path / "scores.json"
    assert export_scores_job(edited, path) == str(path)
    written = json.loads(path.read_text())
    assert written == json.loads(to_json(score_report(edited, edited.metrics)))
    hyps = [h for d in mt.documents for h in d.hypothesis]
    refs = [[x for d in mt.documents for x in d.references[0]]]
    assert written["metrics"]["bleu"]["score"] == pytest.approx(
        BLEU().corpus_score(hyps, refs).score, abs=1e-9)
