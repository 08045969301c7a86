"""The resampling engine (DESIGN 1.7) against plain loops that rescore every resample.

Same indices on both sides; the loops use the reference libraries (sacrebleu's score from
statistics, pyannote.metrics' DiarizationErrorRate) or the core's exact DET functions.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llgui.core.detection import det
from llgui.core.significance.detection import GUI_CHUNK_CELLS, TrialSample, det_band, miss_at
from llgui.core.mt.stats import make_metric
from llgui.core.penalty import pooled_scores, replay_bundle
from llgui.core.significance.resample import (Additive, Plan, bootstrap_counts, bootstrap_indices,
                                 counts_of, estimate_ci, interval, paired_test)
from llgui.core.significance.penalised import Stream, StreamSample
from llgui.core.significance.vector_scores import vector_score
from llgui.io.bundle import load_bundle


@pytest.fixture(scope="module")
def mt_bundle(demo_dir):
    return load_bundle(demo_dir / "mt" / "bundle.toml")


@pytest.fixture(scope="module")
def diar_bundle(demo_dir):
    return load_bundle(demo_dir / "diarization" / "bundle.toml")


@pytest.fixture(scope="module")
def detection(demo_dir):
    return load_bundle(demo_dir / "detection" / "bundle.toml").detection


def _segment_stats(bundle, metric):
    hyps = [h for d in bundle.documents for h in d.hypothesis]
    refs = [r for d in bundle.documents for r in d.references[0]]
    return metric.corpus_stats(hyps, [refs])


# --------------------------------------------------------------------------------------------
# Vectorised scores equal the library's, row by row


@pytest.mark.parametrize("name,settings", [
    ("bleu", {}), ("bleu", {"smooth_method": "floor", "smooth_value": 0.1}),
    ("bleu", {"smooth_method": "add-k"}), ("bleu", {"smooth_method": "none"}),
    ("bleu", {"effective_order": True}), ("chrf", {}), ("chrf", {"word_order": 2}),
    ("chrf", {"eps_smoothing": True}), ("ter", {}), ("wer", {}),
])
def test_vector_score_equals_library(mt_bundle, name, settings):
    metric = make_metric(name, settings)
    rows = _segment_stats(mt_bundle, metric)
    rng = np.random.default_rng(0)
    sums = counts_of(bootstrap_indices(rng, len(rows), 40), len(rows)) @ rows
    table = np.concatenate([rows, sums, np.zeros((1, rows.shape[1]))])
    score = vector_score(metric)
    expected = np.array([metric.score(r) for r in table])
    np.testing.assert_allclose(score(table), expected, rtol=0, atol=1e-9)
    if name != "wer":  # float32, as sacrebleu's significance module scores: bit for bit
        library = metric._library
        got = score(table.astype(np.float32))
        want = np.array([library._compute_score_from_stats(r).score
                         for r in table.astype(np.float32)])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_vector_score_der_jer_edges():
    from llgui.core.diarization.der import DERMetric, JERMetric

    der, jer = DERMetric(), JERMetric()
    rows = np.array([[1.0, 2.0, 3.0, 4.0, 10.0], [0, 0, 0, 0, 0], [1, 0, 0, 0, 0],
                     [0.1, 0.2, 0.3, 5.5, 6.1]])
    np.testing.assert_allclose(vector_score(der)(rows), [der.score(r) for r in rows], atol=1e-12)
    jrows = np.array([[0.5, 2.0], [0.0, 0.0], [1.3, 3.0]])
    np.testing.assert_allclose(vector_score(jer)(jrows), [jer.score(r) for r in jrows],
                               atol=1e-12)


# --------------------------------------------------------------------------------------------
# Draws


def test_draws_are_sacrebleus_and_counts_sum_to_units():
    idx = bootstrap_indices(np.random.default_rng(12345), 37, 5)
    again = np.random.default_rng(12345).choice(37, size=(5, 37), replace=True)
    np.testing.assert_array_equal(idx, again)
    chunks = list(bootstrap_counts(12345, 37, 5))
    counts = np.concatenate(chunks)
    np.testing.assert_array_equal(counts, counts_of(idx, 37))
    assert (counts.sum(axis=1) == 37).all()


def test_two_layer_draws_whole_speakers():
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])
    rows = np.concatenate(list(bootstrap_counts(7, groups.size, 200, groups)))
    again = np.concatenate(list(bootstrap_counts(7, groups.size, 200, groups)))
    np.testing.assert_array_equal(rows, again)  # seeded
    sizes = np.bincount(groups)
    for row in rows:
        per_group = np.bincount(groups, weights=row, minlength=sizes.size)
        # a drawn speaker brings as many trials as it has, per copy
        assert np.all(per_group % sizes == 0)
        assert per_group.sum() > 0


def test_estimate_ci_positions():
    scores = np.arange(1000, dtype=float)
    mean, ci = estimate_ci(scores[::-1])
    assert mean == pytest.approx(499.5)
    assert ci == pytest.approx(0.5 * (scores[1000 - 25 - 1] - scores[25]))


# --------------------------------------------------------------------------------------------
# Document unit: pooled S_pen and DER against loops that rescore each resample


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_document_bootstrap_of_pooled_s_pen_equals_rescoring_loop(mt_bundle, name):
    result = replay_bundle(mt_bundle, name)
    metric = make_metric(name, mt_bundle.settings)
    stream = dataclasses.replace(Stream.from_replays(result.replays, metric), compiled=True)
    n = len(result.replays)
    idx = bootstrap_indices(np.random.default_rng(5), n, 25)
    counts = counts_of(idx, n)
    for k, measure in enumerate(("s_base", "s_adapt", "s_pen")):
        sample = StreamSample(stream, measure)
        assert sample.point() == pytest.approx(
            (result.pooled_base, result.pooled_adapt, result.pooled_pen)[k], abs=1e-9)
        fast = sample.resampled(counts)
        # the resample in processing order, each document as often as drawn
        slow = [pooled_scores(metric, [result.replays[i] for i in sorted(row)])[k]
                for row in idx]
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-9)
        # the numpy path (metrics without a compiled formula) gives the same
        plain = StreamSample(dataclasses.replace(stream, compiled=False), measure)
        np.testing.assert_allclose(plain.resampled(counts), slow, rtol=0, atol=1e-9)


def test_ar_swap_of_s_pen_equals_mixed_stream_loop(mt_bundle):
    metric = make_metric("bleu", mt_bundle.settings)
    a = replay_bundle(mt_bundle, "bleu")
    no_log = dataclasses.replace(mt_bundle, steps=mt_bundle.steps[: len(mt_bundle.steps) // 2])
    b = replay_bundle(no_log, "bleu")
    sa = StreamSample(Stream.from_replays(a.replays, metric))
    sb = StreamSample(Stream.from_replays(b.replays, metric))
    take = np.random.default_rng(3).integers(2, size=(16, len(a.replays)), dtype=bool)
    got_a, got_b = sa.swapped(sb, take)
    for row, ga, gb in zip(take, got_a, got_b):
        mixed_a = [b.replays[i] if t else a.replays[i] for i, t in enumerate(row)]
        mixed_b = [a.replays[i] if t else b.replays[i] for i, t in enumerate(row)]
        assert ga == pytest.approx(pooled_scores(metric, mixed_a)[2], abs=1e-9)
        assert gb == pytest.approx(pooled_scores(metric, mixed_b)[2], abs=1e-9)


def test_document_bootstrap_of_der_equals_pyannote_loop(diar_bundle):
    import warnings

    from pyannote.metrics.diarization import DiarizationErrorRate

    from llgui.core.diarization.reference import _annotation, _timeline
    from llgui.core.penalty import make_track

    docs = diar_bundle.documents
    tracks = [make_track(d, "der", diar_bundle.settings, diar_bundle.cost, docs) for d in docs]
    stats = np.array([t.current().stats for t in tracks])
    sample = Additive(stats, vector_score(tracks[0].metric))
    idx = bootstrap_indices(np.random.default_rng(11), len(docs), 3)
    fast = sample.resampled(counts_of(idx, len(docs)))
    annotations = [(_annotation(d.reference), _annotation(d.hypothesis), _timeline(d.uem))
                   for d in docs]
    collar = float(diar_bundle.settings.get("collar", 0.0))
    skip = bool(diar_bundle.settings.get("skip_overlap", False))
    for row, value in zip(idx, fast):
        library = DiarizationErrorRate(collar=collar, skip_overlap=skip)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in row:
                ref, hyp, uem = annotations[i]
                library(ref, hyp, uem=uem)
        assert value == pytest.approx(100.0 * abs(library), abs=1e-9)
    # and the S_pen stream of DER against the engine's own loop
    result = replay_bundle(diar_bundle, "der")
    stream = Stream.from_replays(result.replays, tracks[0].metric)
    fast_pen = StreamSample(stream).resampled(counts_of(idx, len(docs)))
    compiled = StreamSample(dataclasses.replace(stream, compiled=True))
    np.testing.assert_allclose(compiled.resampled(counts_of(idx, len(docs))), fast_pen,
                               rtol=0, atol=1e-9)
    slow_pen = [pooled_scores(tracks[0].metric, [result.replays[i] for i in sorted(r)])[2]
                for r in idx]
    np.testing.assert_allclose(fast_pen, slow_pen, rtol=0, atol=1e-9)


def test_paired_bootstrap_formula_on_additive(mt_bundle):
    metric = make_metric("bleu")
    rows = _segment_stats(mt_bundle, metric)
    other = rows.copy()
    other[:, 2:6] = np.maximum(other[:, 2:6] - 1, 0)
    score = vector_score(metric)
    base, sys_ = Additive(rows, score), Additive(other, score)
    plan = Plan("bs", 200, 4, "segment")
    est = paired_test(base, [sys_], plan)
    idx = np.random.default_rng(4).choice(len(rows), size=(200, len(rows)))
    b = np.array([metric.score(rows[r].sum(0)) for r in idx])
    s = np.array([metric.score(other[r].sum(0)) for r in idx])
    diffs = np.abs(s - b)
    real = abs(metric.score(rows.sum(0)) - metric.score(other.sum(0)))
    assert est[1].p_value == (np.sum(diffs - diffs.mean() > real) + 1) / 201
    assert est[1].mean == pytest.approx(s.mean(), abs=1e-9)
    assert est[0].p_value is None


# --------------------------------------------------------------------------------------------
# Detection: EER / minDCF intervals and the DET band against the core's exact functions


def test_eer_and_min_dcf_resamples_equal_core_loop(detection):
    trials = detection[1]
    n = trials.scores.size
    idx = bootstrap_indices(np.random.default_rng(2), n, 8)
    counts = counts_of(idx, n)
    eer = TrialSample(trials, "eer").resampled(counts)
    mdcf = TrialSample(trials, "min_dcf", (0.01, 10.0, 1.0)).resampled(counts)
    for row, e, m in zip(idx, eer, mdcf):
        s, t = trials.scores[row], trials.is_target[row]
        assert e == pytest.approx(100.0 * det.eer(s, t)[0], abs=1e-12)
        assert m == pytest.approx(det.min_dcf(s, t, 0.01, 10.0, 1.0), abs=1e-12)
    est = interval(TrialSample(trials, "eer"), Plan("bs", 8, 2, "trial"))
    assert est.mean == pytest.approx(float(np.mean(eer)), abs=1e-12)
    assert est.score == pytest.approx(100.0 * det.eer(trials.scores, trials.is_target)[0])


def test_det_band_equals_loop_and_contains_the_curve(detection):
    trials = detection[0]
    plan = Plan("bs", 40, 9, "trial")
    band = det_band(trials, plan)
    n = trials.scores.size
    # det_band draws chunk by chunk (short numpy calls beside the GUI): the same draws here
    rng, step = np.random.default_rng(9), max(1, GUI_CHUNK_CELLS // n)
    idx = np.concatenate([bootstrap_indices(rng, n, min(step, 40 - k))
                          for k in range(0, 40, step)])
    rows = [miss_at(det.det_curve(trials.scores[r], trials.is_target[r]), band.p_fa)
            for r in idx]
    low, high = np.percentile(np.array(rows), [2.5, 97.5], axis=0)
    np.testing.assert_allclose(band.low, low, atol=1e-12)
    np.testing.assert_allclose(band.high, high, atol=1e-12)
    curve = det.det_curve(trials.scores, trials.is_target)
    np.testing.assert_array_equal(band.p_miss, miss_at(curve, band.p_fa))
    assert np.all(band.low <= band.p_miss) and np.all(band.p_miss <= band.high)
    assert band.signature == "bs:40|seed:9|unit:trial"


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_a_system_against_itself_is_not_significant(mt_bundle, test):
    metric = make_metric("chrf")
    rows = _segment_stats(mt_bundle, metric)
    same = Additive(rows, vector_score(metric))
    est = paired_test(same, [Additive(rows.copy(), vector_score(metric))],
                      Plan(test, 100, 1, "segment", confidence=20))
    assert est[1].p_value == 1.0
    assert est[1].score == est[0].score
