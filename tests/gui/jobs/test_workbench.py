"""The workbench's worker jobs (llgui.gui.jobs.workbench), called as the window's workers call
them but with no window and no Qt: the walkthrough of a document gives the scores of the
core's replay and of sacrebleu / pyannote.metrics; a diarization step's view job leaves,
cached, what the timeline reads (per-speaker rows that add up to pyannote's components);
the aggregates' intervals are the core's bootstrap of the pooled scores."""
from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU

from llgui.core.diarization.reference import pyannote_der_components
from llgui.core.diarization.speakers import cached_breakdown, speaker_breakdown
from llgui.core.display.lanes import error_geometry, lane_geometry
from llgui.core.jobs import Cancelled
from llgui.core.penalty import make_track, replay, replay_bundle
from llgui.core.significance.penalised import collection_intervals
from llgui.core.significance.resample import Plan
from llgui.gui.jobs import workbench as jobs
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO


@pytest.fixture(scope="module")
def mt():
    return load_bundle(DEMO / "mt" / "bundle.toml")


@pytest.fixture(scope="module")
def diar():
    return load_bundle(DEMO / "diarization" / "bundle.toml")


def _walk(bundle, doc, choice, **kw):
    return jobs.walk_job(("key", doc.id, choice), doc, bundle.steps_of(doc.id), choice,
                         bundle.settings, bundle.cost, bundle.documents, **kw)


@pytest.mark.parametrize("choice, metric, mode", [
    ("bleu", "bleu", "paper"), ("chrf", "chrf", "paper"), ("ter", "ter", "paper"),
    ("bleu:llmt", "bleu", "llmt"),
])
def test_the_walk_job_gives_the_cores_replay(mt, choice, metric, mode):
    doc = mt.documents[1]
    steps = mt.steps_of(doc.id)
    key, result = _walk(mt, doc, choice)
    assert key == ("key", doc.id, choice)   # the key it answers comes back with it
    assert jobs.metric_and_mode(choice) == (metric, mode)
    expected = replay(make_track(doc, metric, mt.settings, mt.cost, mt.documents), steps,
                      mt.cost, doc=doc.id, mode=mode)
    assert len(result.replay.steps) == len(steps) > 0
    assert result.replay.s_base == expected.s_base
    assert [s.s_pen for s in result.replay.steps] == [s.s_pen for s in expected.steps]
    assert result.replay.s_pen == expected.s_pen


def test_the_walk_jobs_first_bleu_is_sacrebleus(mt):
    doc = mt.documents[0]
    _, result = _walk(mt, doc, "bleu")
    sacre = BLEU().corpus_score(list(doc.hypothesis), [list(r) for r in doc.references])
    assert result.replay.s_base == pytest.approx(sacre.score, abs=1e-9)
    # the memorise-only reference is affordable for a demo document, and replayed
    assert jobs.memorise_affordable(doc)
    assert all(s.s_pen_memorise is not None for s in result.replay.steps)


def test_a_cancelled_walk_job_stops(mt):
    doc = mt.documents[0]
    with pytest.raises(Cancelled):
        _walk(mt, doc, "ter", should_stop=lambda: True)


def test_the_walk_job_of_a_show_scores_der_as_pyannote(diar):
    doc = diar.documents[0]
    _, result = _walk(diar, doc, "der")
    zones = jobs.zones_of(diar.settings)
    c = pyannote_der_components(doc.reference, doc.hypothesis, doc.uem, **zones)
    assert result.replay.s_base == pytest.approx(
        100 * (c.miss + c.false_alarm + c.confusion) / c.total, abs=1e-9)
    expected = replay(make_track(doc, "der", diar.settings, diar.cost, diar.documents),
                      diar.steps_of(doc.id), diar.cost, doc=doc.id)
    assert result.replay.s_pen == expected.s_pen


def test_the_view_job_leaves_what_the_timeline_reads(diar):
    doc = diar.documents[0]
    _, result = _walk(diar, doc, "der")
    zones = jobs.zones_of(diar.settings)
    assert zones == {"collar": 0.0, "skip_overlap": False}
    assert jobs.view_job(result, 1, **zones) == (result, 1)
    # the step asked for, and no other: the view shows it at once, then asks for the next
    assert cached_breakdown(doc, result.view(2).adapted, result.view(2).adapted_mapping,
                            **zones) is None
    assert jobs.view_job(result, 2, True, **zones) == (result, -1)
    for n in (1, 2):
        view = result.view(n)
        rows = cached_breakdown(doc, view.adapted, view.adapted_mapping, **zones)
        assert rows is not None, n
        assert rows == speaker_breakdown(doc.reference, view.adapted, doc.uem,
                                         mapping=view.adapted_mapping, **zones)
        c = pyannote_der_components(doc.reference, view.adapted, doc.uem, **zones)
        assert sum(r.miss for r in rows) == pytest.approx(c.miss, abs=1e-6)
        assert sum(r.false_alarm for r in rows) == pytest.approx(c.false_alarm, abs=1e-6)
        assert sum(r.confusion for r in rows) == pytest.approx(c.confusion, abs=1e-6)
        geometry = lane_geometry(view.adapted)
        assert sorted(geometry["starts"].tolist()) == sorted(t.start for t in view.adapted)
        errors = error_geometry(view.adapted_errors)
        for kind, (x0, width) in errors.items():
            regions = [r for r in view.adapted_errors if r[2] == kind]
            assert x0.tolist() == [r[0] for r in regions]
            assert width.tolist() == pytest.approx([r[1] - r[0] for r in regions])
    # ahead of time: only that step, and -1 says nobody asked for it
    assert jobs.view_job(result, 3, True, **zones) == (result, -1)
    view = result.view(3)
    assert cached_breakdown(doc, view.adapted, view.adapted_mapping, **zones) is not None
    # past the last step there is nothing to prepare
    last = len(result.steps)
    assert jobs.view_job(result, last, **zones) == (result, last)
    with pytest.raises(Cancelled):
        jobs.view_job(result, 4, should_stop=lambda: True, **zones)


def test_the_intervals_job_is_the_cores_bootstrap_of_the_pooled_scores(mt):
    collection = replay_bundle(mt, "bleu", mt.cost)
    plan = Plan("bs", 200, 12345, "document")
    replayed, estimates = jobs.intervals_job(mt, collection, plan)
    assert replayed is collection
    expected = collection_intervals(mt, collection, plan)
    assert set(estimates) == {"s_base", "s_adapt", "s_pen"}
    for measure, e in estimates.items():
        assert (e.score, e.mean, e.ci) == (expected[measure].score, expected[measure].mean,
                                           expected[measure].ci)
        assert e.ci > 0
    hyps = [h for d in mt.documents for h in d.hypothesis]
    refs = [[r for d in mt.documents for r in d.references[0]]]
    assert estimates["s_base"].score == pytest.approx(BLEU().corpus_score(hyps, refs).score,
                                                      abs=1e-9)


LAZY_KERNEL = """
import sys
from llgui.core.penalty import replay_bundle
from llgui.core.significance.resample import Plan
from llgui.gui.jobs import workbench as jobs
from llgui.io.bundle import load_bundle
bundle = load_bundle(sys.argv[1])
doc = bundle.documents[0]
jobs.walk_job(None, doc, bundle.steps_of(doc.id), "bleu", bundle.settings, bundle.cost,
              bundle.documents, kernels=jobs.needs_kernels(bundle))
jobs.intervals_job(bundle, replay_bundle(bundle, "bleu", bundle.cost), Plan("bs", 50, 1, "document"))
print("numba" in sys.modules)
"""


def test_a_bundle_below_the_kernels_size_never_loads_numba(mt):
    """The demo's 46 steps resample on the numpy path: its walk and its intervals leave numba
    unimported (0.8 s of loading, twice the time to a warm-cached document); from
    KERNEL_FROM_STEPS steps on the walk loads it first."""
    import subprocess
    import sys
    from types import SimpleNamespace

    from llgui.core.significance.penalised import KERNEL_FROM_STEPS

    assert len(mt.steps) < KERNEL_FROM_STEPS and not jobs.needs_kernels(mt)
    assert jobs.needs_kernels(SimpleNamespace(steps=(None,) * KERNEL_FROM_STEPS))
    done = subprocess.run([sys.executable, "-c", LAZY_KERNEL, str(DEMO / "mt" / "bundle.toml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False"]


def test_metric_choice_helpers(mt, diar):
    detection = load_bundle(DEMO / "detection-lifelong" / "bundle.toml")
    assert jobs.track_metric(mt, None) == mt.metrics[0]
    assert jobs.track_metric(mt, "ter") == "ter"
    # EER has no penalised form: a detection bundle is replayed under one that has
    assert jobs.track_metric(detection, "eer") in ("err", "min_dcf", "act_dcf")
    assert jobs.track_metric(detection, "act_dcf") == "act_dcf"
    # the word metrics are scored by the CLI; the workbench's walkthrough draws turns
    assert jobs.track_metric(diar, "cpwer") == diar.metrics[0] == "der"
    assert jobs.turns(diar.documents[0]) == (len(diar.documents[0].reference)
                                             + len(diar.documents[0].hypothesis))
    assert jobs.zones_of(None) == {"collar": 0.0, "skip_overlap": False}
    assert jobs.zones_of({"collar": "0.25", "skip_overlap": 1}) == {"collar": 0.25,
                                                                    "skip_overlap": True}
