"""P/R/F, ROC/AUC, histograms and Q-Q of detection scores against scikit-learn, numpy, scipy."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.detection.det import det_curve
from llgui.core.detection.analysis import (
    at_threshold, at_threshold_sorted, histograms, nearest_trials, normal_qq, qq, roc,
)
from tests.conftest import DEMO

score = st.integers(-8, 8).map(lambda k: k / 4)


@st.composite
def trials(draw):
    n = draw(st.integers(2, 60))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    labels[0], labels[1] = True, False
    return np.array(draw(st.lists(score, min_size=n, max_size=n))), np.array(labels)


@settings(max_examples=30, deadline=None)
@given(trials(), score)
def test_prf_and_auc_equal_scikit_learn(data, threshold):
    from sklearn.metrics import precision_recall_fscore_support, roc_auc_score

    scores, labels = data
    got = at_threshold(scores, labels, threshold)
    decided = scores >= threshold
    p, r, f, _ = precision_recall_fscore_support(labels, decided, average="binary",
                                                 zero_division=0)
    assert (got.precision, got.recall, got.f1) == pytest.approx((100 * p, 100 * r, 100 * f),
                                                                abs=1e-12)
    assert got.tp + got.fp + got.tn + got.fn == labels.size
    assert got.error_rate == pytest.approx(100 * np.mean(decided != labels), abs=1e-12)
    assert at_threshold_sorted(np.sort(scores[labels]), np.sort(scores[~labels]),
                               threshold) == got
    curve = roc(det_curve(scores, labels))
    assert curve.auc == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert curve.fpr[0] == 0 and curve.tpr[-1] == 1 and np.all(np.diff(curve.fpr) >= 0)


def test_roc_points_are_sklearn_roc_curve_points():
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(1)
    scores = rng.normal(size=300).round(1)
    labels = rng.random(300) < 0.4
    ours = roc(det_curve(scores, labels))
    fpr, tpr, _ = roc_curve(labels, scores, drop_intermediate=False)
    np.testing.assert_allclose(ours.fpr, fpr, atol=1e-15)
    np.testing.assert_allclose(ours.tpr, tpr, atol=1e-15)


def test_histograms_are_numpy_histograms():
    rng = np.random.default_rng(2)
    scores = rng.normal(size=400)
    labels = rng.random(400) < 0.3
    h = histograms(scores, labels, bins=17)
    edges = np.histogram_bin_edges(scores, 17)
    np.testing.assert_array_equal(h.edges, edges)
    np.testing.assert_array_equal(h.target, np.histogram(scores[labels], edges, density=True)[0])
    counts = histograms(scores, labels, bins=17, density=False)
    assert counts.target.sum() + counts.nontarget.sum() == 400


def test_qq_are_numpy_quantiles_and_normal_qq_is_scipy_probplot():
    from scipy import stats

    rng = np.random.default_rng(5)
    a, b = rng.normal(1, 2, size=101), rng.gamma(2.0, size=57)
    p, qa, qb = qq(a, b, n=40)
    np.testing.assert_allclose(p, (np.arange(40) + 0.5) / 40)
    np.testing.assert_allclose(qa, np.quantile(a, p), rtol=0, atol=1e-12)
    np.testing.assert_allclose(qb, np.quantile(b, p), rtol=0, atol=1e-12)
    (osm, osr), _fit = stats.probplot(b, dist="norm")
    ours_m, ours_r = normal_qq(b)
    np.testing.assert_allclose(ours_m, osm, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours_r, osr)


def test_nearest_trials():
    scores = np.array([0.0, 2.0, -1.0, 0.4, 0.6, 0.5])
    assert nearest_trials(scores, 0.5, 3).tolist() == [5, 3, 4]
    assert nearest_trials(scores, 0.5, 100).size == 6


def test_det_threshold_json_equals_scikit_learn(capsys):
    from sklearn.metrics import precision_recall_fscore_support

    from llgui.cli.main import main as cli_main
    from llgui.io.detection import load_scores

    scores = DEMO / "detection" / "scores"
    assert cli_main(["det", str(scores / "sysA.txt"), "--key", str(scores / "trials.key"),
                     "--threshold", "0.5", "--format", "json"]) == 0
    (system,) = json.loads(capsys.readouterr().out)["systems"]
    trials = load_scores(scores / "sysA.txt", scores / "trials.key")
    p, r, f, _ = precision_recall_fscore_support(trials.is_target, trials.scores >= 0.5,
                                                 average="binary")
    shown = system["at_threshold"]
    assert shown["threshold"] == 0.5
    assert (shown["precision"], shown["recall"], shown["f1"]) == pytest.approx(
        (100 * p, 100 * r, 100 * f), abs=1e-12)
    assert shown["tp"] + shown["fn"] == system["n_target"]
    assert cli_main(["det", str(scores / "sysA.txt"), "--key", str(scores / "trials.key"),
                     "--threshold", "0.5", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.endswith("threshold,tp,fp,tn,fn,precision,recall,f1,error_rate")


def test_reading_counts_off_the_curve_equals_counting_trials():
    from llgui.core.detection.analysis import at_threshold_curve, nearest_point, point_threshold

    rng = np.random.default_rng(9)
    scores = rng.normal(size=400).round(1)
    labels = rng.random(400) < 0.3
    curve = det_curve(scores, labels)
    for t in (-5.0, -0.3, 0.0, 0.25, 1.7, 9.0):
        assert at_threshold_curve(curve, t) == at_threshold(scores, labels, t)
    for k in (0, 5, len(curve) - 1):
        t = point_threshold(curve, k)
        assert np.isfinite(t)
        got = at_threshold(scores, labels, t)
        assert (got.fn, got.fp) == (curve.n_miss[k], curve.n_fa[k])
    from llgui.core.detection.det import probit

    k = 17
    assert nearest_point(curve, float(probit(curve.p_fa[k])), float(probit(curve.p_miss[k]))) == k


@settings(max_examples=30, deadline=None)
@given(trials(), st.integers(1, 30))
def test_views_read_off_the_curve_equal_numpy(data, bins):
    from llgui.core.detection.analysis import (
        histograms_from_curve, normal_qq_from_curve, order_statistics, qq_from_curve,
    )

    scores, labels = data
    curve = det_curve(scores, labels)
    for target in (True, False):
        values = np.sort(scores[labels] if target else scores[~labels])
        np.testing.assert_array_equal(
            order_statistics(curve, target, np.arange(values.size)), values)
        theory, ordered = normal_qq_from_curve(curve, target, max_points=10 ** 6)
        want_m, want_r = normal_qq(values)
        np.testing.assert_allclose(theory, want_m, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ordered, want_r)
    from llgui.core.detection.analysis import quantiles_from_curve

    probabilities = np.linspace(0, 1, 23)
    np.testing.assert_allclose(quantiles_from_curve(curve, None, probabilities),
                               np.quantile(scores, probabilities), rtol=0, atol=1e-12)
    p, q_non, q_tar = qq_from_curve(curve, 37)
    _, want_non, want_tar = qq(scores[~labels], scores[labels], 37)
    np.testing.assert_allclose(q_non, want_non, rtol=0, atol=1e-12)
    np.testing.assert_allclose(q_tar, want_tar, rtol=0, atol=1e-12)
    for density in (False, True):
        got = histograms_from_curve(curve, bins, density)
        want = histograms(scores, labels, bins, density)
        np.testing.assert_array_equal(got.edges, want.edges)
        np.testing.assert_allclose(got.target, want.target, rtol=1e-12, atol=0)
        np.testing.assert_allclose(got.nontarget, want.nontarget, rtol=1e-12, atol=0)


def test_decisions_rates_and_qq_of_two_systems_against_numpy_and_scikit_learn():
    from sklearn.metrics import confusion_matrix

    from llgui.core.detection.analysis import (
        decisions_at, qq_curves, qq_probabilities, scores_changed,
    )

    rng = np.random.default_rng(5)
    scores = np.round(rng.normal(0, 1, 400), 2)
    labels = rng.random(400) < 0.3
    for threshold in (-0.5, 0.0, 0.73):
        at = at_threshold(scores, labels, threshold)
        tn, fp, fn, tp = confusion_matrix(labels, scores >= threshold).ravel()
        assert (at.p_fa, at.p_miss, at.tpr) == (fp / (fp + tn), fn / (fn + tp), tp / (tp + fn))
        picked = nearest_trials(scores, threshold, 12)
        decided = decisions_at(scores, labels, picked, threshold)
        assert [d.index for d in decided] == picked.tolist()
        for d in decided:
            assert d.target == labels[d.index] and d.score == scores[d.index]
            assert d.accepted == (scores[d.index] >= threshold)
            assert d.right == (d.accepted == d.target)
    other = scores + rng.normal(0, 0.3, 400)
    p, q_a, q_b = qq_curves(det_curve(scores, labels), det_curve(other, labels), 50)
    assert np.array_equal(p, (np.arange(1, 51) - 0.5) / 50)
    assert np.array_equal(qq_probabilities(50), p)
    np.testing.assert_allclose(q_a, np.quantile(scores, p), rtol=0, atol=1e-12)
    np.testing.assert_allclose(q_b, np.quantile(other, p), rtol=0, atol=1e-12)
    after = scores.copy()
    after[7] += 1
    assert scores_changed(scores, after, [3, 7]) and not scores_changed(scores, after, [3])
    assert not scores_changed(scores, after, [])
