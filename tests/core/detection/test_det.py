"""DET curve, ROCCH and EER, DCF, the evaluate job: hand-computed cases and independent checks.

Published reference numbers (bob.measure, pyeer) are in test_det_reference.py.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from llgui.core.detection.det import (DCF_PRESETS, DET_TICK_LABELS, DET_TICKS, RUNNING_CHUNK,
                            Cancelled, _running_total, act_dcf, bayes_threshold, bootstrap_eer,
                            det_curve, eer, evaluate, min_dcf, probit, roc_hull)
from llgui.core.jobs import Cancelled as JobsCancelled
from llgui.core.types import Trials

# A small case with ties (integer scores, so no rounding anywhere):
#   targets      9 5 5 2
#   non-targets  5 3 1 1 0
TAR = [9.0, 5.0, 5.0, 2.0]
NON = [5.0, 3.0, 1.0, 1.0, 0.0]
SCORES = np.array(TAR + NON)
LABELS = np.array([True] * 4 + [False] * 5)
# Accept iff score >= t. At each distinct score and at +inf:
#   t      0    1    2    3    5    9    inf
#   P_fa   5/5  4/5  2/5  2/5  1/5  0    0      (non-targets >= t)
#   P_miss 0    0    0    1/4  1/4  3/4  1      (targets < t; the tie at 5 moves together)
CURVE_T = [0, 1, 2, 3, 5, 9, math.inf]
CURVE_FA = [1.0, 0.8, 0.4, 0.4, 0.2, 0.0, 0.0]
CURVE_MISS = [0.0, 0.0, 0.0, 0.25, 0.25, 0.75, 1.0]


def test_curve_by_hand():
    c = det_curve(SCORES, LABELS)
    np.testing.assert_array_equal(c.thresholds, CURVE_T)
    np.testing.assert_allclose(c.p_fa, CURVE_FA, rtol=0, atol=1e-15)
    np.testing.assert_allclose(c.p_miss, CURVE_MISS, rtol=0, atol=1e-15)
    assert (c.n_target, c.n_nontarget) == (4, 5)
    # between thresholds the rates of the next one up apply
    assert c.at(4.0) == pytest.approx((0.2, 0.25))
    assert c.at(-100.0) == (1.0, 0.0)
    assert c.at(100.0) == (0.0, 1.0)


def test_hull_by_hand():
    h = roc_hull(det_curve(SCORES, LABELS))
    # Points (P_fa, P_miss): (1,0) (.8,0) (.4,0) (.4,.25) (.2,.25) (0,.75) (0,1).
    # (.8,0) is on the segment (1,0)-(.4,0); (.4,.25) lies above the segment (.4,0)-(.2,.25).
    # Slopes from (0,1): vertical, then -2.5 to (.2,.25), -1.25 to (.4,0), 0 to (1,0): convex.
    np.testing.assert_allclose(h.p_fa, [1.0, 0.4, 0.2, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(h.p_miss, [0.0, 0.0, 0.25, 0.75, 1.0], atol=1e-15)
    np.testing.assert_array_equal(h.thresholds, [0, 2, 5, 9, math.inf])
    np.testing.assert_array_equal(h.indices, [0, 2, 4, 5, 6])


def test_eer_by_hand():
    # ROCCH: the segment (.4, 0)-(.2, .25) crosses the diagonal. Its line a x + b y = 1 gives
    # 1 / (a + b) = (x1 y2 - x2 y1) / ((y2 - y1) - (x2 - x1)) = (.4 * .25) / (.25 + .2) = 2/9.
    value, method = eer(SCORES, LABELS)
    assert method == "rocch"
    assert value == pytest.approx(2.0 / 9.0, abs=1e-15)
    # Threshold method: first point with P_miss >= P_fa is t=5 (.2, .25); its predecessor t=3
    # (.4, .25). The horizontal segment between them meets the diagonal at .25.
    value, method = eer(SCORES, LABELS, method="threshold")
    assert (value, method) == (pytest.approx(0.25, abs=1e-15), "threshold")
    with pytest.raises(ValueError, match="unknown EER method"):
        eer(SCORES, LABELS, method="magic")


def test_eer_points_and_thresholds_by_hand():
    trials = Trials("hand", SCORES, LABELS)
    r = evaluate(trials, dcf=(0.5, 1.0, 1.0))
    # ROCCH point (2/9, 2/9) on the segment t=2 -> t=5, at u = .4 / .45 = 8/9 of the way:
    # threshold 2 + 8/9 * 3 = 14/3
    assert r.eer_point.p_fa == r.eer_point.p_miss == pytest.approx(2.0 / 9.0)
    assert r.eer_point.threshold == pytest.approx(14.0 / 3.0)
    r = evaluate(trials, dcf=(0.5, 1.0, 1.0), eer_method="threshold")
    # threshold method: u = .15 / .2 = .75 of the way from t=3 to t=5 -> 4.5
    assert r.eer == pytest.approx(0.25)
    assert r.eer_point.threshold == pytest.approx(4.5)
    assert r.eer_method == "threshold"


@pytest.mark.parametrize("dcf, expected, threshold", [
    # (p, c_miss, c_fa): normalised DCF(t) = (c_miss p P_miss + c_fa (1-p) P_fa) / min(...)
    # p=.5: P_miss + P_fa = 1, .8, .4, .65, .45, .75, 1 -> .4 at t=2
    ((0.5, 1.0, 1.0), 0.4, 2.0),
    # p=.01: P_miss + 99 P_fa = 99, 79.2, 39.6, 39.85, 20.05, .75, 1 -> .75 at t=9
    ((0.01, 1.0, 1.0), 0.75, 9.0),
    # p=.5, c_miss=10: (5 P_miss + .5 P_fa) / .5 = 10 P_miss + P_fa
    #   = 1, .8, .4, 2.9, 2.7, 7.5, 10 -> .4 at t=2
    ((0.5, 10.0, 1.0), 0.4, 2.0),
])
def test_min_dcf_by_hand(dcf, expected, threshold):
    p, cm, cf = dcf
    assert min_dcf(SCORES, LABELS, p, cm, cf) == pytest.approx(expected, abs=1e-12)
    r = evaluate(Trials("hand", SCORES, LABELS), dcf=dcf)
    assert r.min_dcf == pytest.approx(expected, abs=1e-12)
    assert r.min_dcf_point.threshold == threshold


def test_act_dcf_by_hand():
    # p=.5, costs 1: Bayes threshold log(1) = 0. The non-target scored exactly 0 is accepted
    # (score >= threshold), so everything is accepted: P_fa 1, P_miss 0 -> (.5 * 1) / .5 = 1.
    assert bayes_threshold(0.5, 1.0, 1.0) == 0.0
    assert act_dcf(SCORES, LABELS, 0.5, 1.0, 1.0) == pytest.approx(1.0, abs=1e-15)
    # p=.01: threshold log(99) = 4.595: accepted targets 9, 5, 5 (P_miss 1/4), non-target 5
    # (P_fa 1/5): (.01 * .25 + .99 * .2) / .01 = .2005 / .01 = 20.05
    assert bayes_threshold(0.01, 1.0, 1.0) == pytest.approx(math.log(99.0))
    assert act_dcf(SCORES, LABELS, 0.01, 1.0, 1.0) == pytest.approx(20.05, abs=1e-12)
    r = evaluate(Trials("hand", SCORES, LABELS))
    assert r.act_dcf == pytest.approx(20.05, abs=1e-12)
    assert (r.act_dcf_point.p_fa, r.act_dcf_point.p_miss) == (0.2, 0.25)
    assert r.act_dcf_point.threshold == pytest.approx(math.log(99.0))


def test_dcf_arguments_are_checked():
    with pytest.raises(ValueError, match="p_target"):
        min_dcf(SCORES, LABELS, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="costs"):
        evaluate(Trials("hand", SCORES, LABELS), dcf=(0.01, -1.0, 1.0))


def test_bad_trials_are_refused():
    with pytest.raises(ValueError, match="non-target"):
        det_curve([1.0, 2.0], [True, True])
    with pytest.raises(ValueError, match="finite"):
        det_curve([1.0, float("nan")], [True, False])
    with pytest.raises(ValueError, match="finite"):
        det_curve([1.0, float("inf")], [True, False])


def test_presets_and_ticks():
    assert DCF_PRESETS == ((0.01, 1.0, 1.0), (0.01, 10.0, 1.0), (0.001, 1.0, 1.0))
    assert DET_TICK_LABELS == tuple(f"{100 * t:g}" for t in DET_TICKS)
    np.testing.assert_allclose(probit(DET_TICKS), norm.ppf(DET_TICKS), rtol=1e-12)
    ends = probit([0.0, 1.0])
    assert np.isfinite(ends).all() and ends[0] == -ends[1] and 8 < ends[1] < 8.3


# --------------------------------------------------------------------------------------------
# Independent checks: brute force, pyannote.metrics, BOSARIS's PAV algorithm


def test_curve_against_brute_force():
    rng = np.random.default_rng(7)
    scores = rng.integers(0, 40, 300).astype(float) / 4  # many ties
    labels = rng.random(300) < 0.3
    c = det_curve(scores, labels)
    tar, non = scores[labels], scores[~labels]
    assert np.array_equal(c.thresholds[:-1], np.unique(scores))
    for t, fa, miss in zip(c.thresholds, c.p_fa, c.p_miss):
        assert fa == np.mean(non >= t)
        assert miss == np.mean(tar < t)


@pytest.mark.parametrize("seed, ties", [(0, False), (1, True)])
def test_curve_equals_pyannote_det_curve(seed, ties):
    from pyannote.metrics.binary_classification import det_curve as pyannote_det_curve

    rng = np.random.default_rng(seed)
    labels = rng.random(20000) < 0.2
    scores = rng.normal(size=20000) + 1.5 * labels
    if ties:
        scores = np.round(scores, 1)
    fpr, fnr, thresholds, _eer = pyannote_det_curve(labels, scores, distances=False)
    ours = det_curve(scores, labels)
    finite = np.isfinite(thresholds)  # sklearn starts at +inf (accept nothing)
    # pyannote (sklearn's roc_curve) drops collinear points; every point it keeps is ours
    k = np.searchsorted(ours.thresholds, thresholds[finite])
    np.testing.assert_array_equal(ours.thresholds[k], thresholds[finite])
    np.testing.assert_allclose(ours.p_fa[k], fpr[finite], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.p_miss[k], fnr[finite], rtol=0, atol=1e-12)
    assert (fpr[~finite], fnr[~finite]) == ([0.0], [1.0])
    assert (ours.p_fa[-1], ours.p_miss[-1]) == (0.0, 1.0)


def _bosaris_rocch(tar, non):
    """BOSARIS 1.06 rocch.m transcribed: PAV on the labels sorted by score (stable sort,
    targets first, so tied scores are pooled), hull points from the PAV bins. The bin means
    are exact fractions: in floating point PAV sometimes fails to pool two bins of equal mean
    (e.g. 4/7 * 7/8 != 1/2), leaving a collinear point that is not a hull vertex."""
    scores = np.concatenate([tar, non])
    ideal = np.concatenate([np.ones(len(tar)), np.zeros(len(non))])
    order = np.argsort(scores, kind="stable")
    ideal = ideal[order]
    # pavx: pool adjacent bins while the previous mean >= the current one
    means, widths = [], []
    for y in ideal:
        means.append(Fraction(int(y)))
        widths.append(1)
        while len(means) >= 2 and means[-2] >= means[-1]:
            w = widths[-2] + widths[-1]
            means[-2] = means[-2] + Fraction(widths[-1], w) * (means[-1] - means[-2])
            widths[-2] = w
            means.pop()
            widths.pop()
    n_t, n_n = len(tar), len(non)
    pmiss, pfa = [0.0], [1.0]
    left = 0
    for w in widths:
        left += w
        miss = ideal[:left].sum()
        fa = len(scores) - left - ideal[left:].sum()
        pmiss.append(miss / n_t)
        pfa.append(fa / n_n)
    return np.array(pfa), np.array(pmiss)


def _bosaris_rocch2eer(pfa, pmiss):
    best = 0.0
    for i in range(len(pfa) - 1):
        x1, x2, y1, y2 = pfa[i], pfa[i + 1], pmiss[i], pmiss[i + 1]
        if x1 == x2 or y1 == y2:
            continue
        a, b = np.linalg.solve([[x1, y1], [x2, y2]], [1.0, 1.0])
        best = max(best, 1.0 / (a + b))
    return best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=40),
       st.lists(st.integers(0, 12), min_size=1, max_size=40))
def test_rocch_equals_bosaris_pav(tar, non):
    """Integer scores in a small range: many ties, duplicate hull candidates, degenerate
    hulls (perfect separation, identical classes)."""
    tar, non = np.array(tar, float), np.array(non, float)
    pfa, pmiss = _bosaris_rocch(tar, non)
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(len(tar), bool), np.zeros(len(non), bool)])
    hull = roc_hull(det_curve(scores, labels))
    np.testing.assert_allclose(hull.p_fa, pfa, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hull.p_miss, pmiss, rtol=0, atol=1e-12)
    assert eer(scores, labels)[0] == pytest.approx(_bosaris_rocch2eer(pfa, pmiss), abs=1e-12)


def test_large_hull_equals_bosaris_pav():
    # Enough points that the vectorised pruning rounds (not only the final chain) run.
    rng = np.random.default_rng(11)
    tar = np.round(rng.normal(2.0, 1.0, 3000), 2)
    non = np.round(rng.normal(0.0, 1.3, 20000), 2)
    pfa, pmiss = _bosaris_rocch(tar, non)
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)])
    hull = roc_hull(det_curve(scores, labels))
    np.testing.assert_allclose(hull.p_fa, pfa, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hull.p_miss, pmiss, rtol=0, atol=1e-12)
    assert eer(scores, labels)[0] == pytest.approx(_bosaris_rocch2eer(pfa, pmiss), abs=1e-12)


def test_min_and_act_dcf_by_brute_force_over_every_threshold():
    # DCF(t) = C_miss P P(tar < t) + C_fa (1 - P) P(non >= t), normalised, at every distinct
    # score and +inf; actDCF at the Bayes threshold log(C_fa (1 - P) / (C_miss P))
    rng = np.random.default_rng(11)
    labels = rng.random(3000) < 0.2
    scores = np.round(rng.normal(size=3000) + 1.5 * labels, 1)   # ties on purpose
    tar, non = scores[labels], scores[~labels]
    for p, cm, cf in DCF_PRESETS + ((0.3, 2.0, 1.0),):
        norm = min(cm * p, cf * (1 - p))
        ts = np.append(np.unique(scores), np.inf)
        costs = [(cm * p * np.mean(tar < t) + cf * (1 - p) * np.mean(non >= t)) / norm
                 for t in ts]
        assert min_dcf(scores, labels, p, cm, cf) == pytest.approx(min(costs), rel=1e-12)
        t = np.log(cf * (1 - p) / (cm * p))
        act = (cm * p * np.mean(tar < t) + cf * (1 - p) * np.mean(non >= t)) / norm
        assert act_dcf(scores, labels, p, cm, cf) == pytest.approx(act, rel=1e-12)


def test_min_dcf_is_reached_on_the_hull():
    # a linear cost is minimal at a hull vertex: the minimum over hull vertices is the same
    rng = np.random.default_rng(5)
    labels = rng.random(5000) < 0.3
    scores = rng.normal(size=5000) + labels
    c = det_curve(scores, labels)
    h = roc_hull(c)
    for p, cm, cf in DCF_PRESETS:
        on_hull = (cm * p * h.p_miss + cf * (1 - p) * h.p_fa).min() / min(cm * p, cf * (1 - p))
        assert min_dcf(c, p_target=p, c_miss=cm, c_fa=cf) == pytest.approx(on_hull, rel=1e-12)


# --------------------------------------------------------------------------------------------
# The job


def _big_trials(n=200000, seed=2):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.1
    return Trials("big", rng.normal(size=n) + 2.0 * labels, labels)


def test_evaluate_reports_increasing_progress_and_agrees_with_the_functions():
    trials = _big_trials()
    seen = []
    r = evaluate(trials, dcf=(0.01, 10.0, 1.0), progress=seen.append)
    assert seen == sorted(seen) and seen[0] >= 0.0 and seen[-1] == 1.0 and len(seen) >= 4
    assert r.eer == eer(trials.scores, trials.is_target)[0]
    assert r.min_dcf == min_dcf(trials.scores, trials.is_target, 0.01, 10.0, 1.0)
    assert r.act_dcf == act_dcf(trials.scores, trials.is_target, 0.01, 10.0, 1.0)
    assert (r.n_target, r.n_nontarget) == (trials.n_target, trials.n_nontarget)
    # the plot curve: a subset of the curve holding every hull vertex, about 2000 points
    assert len(r.curve) == np.unique(trials.scores).size + 1
    assert len(r.plot_curve) <= 2000 + 2 + len(r.hull.indices)
    assert len(r.plot_curve) >= 500
    k = np.searchsorted(r.curve.thresholds, r.plot_curve.thresholds)
    np.testing.assert_array_equal(r.curve.p_fa[k], r.plot_curve.p_fa)
    assert set(r.hull.thresholds.tolist()) <= set(r.plot_curve.thresholds.tolist())
    # tails kept: the plot spans the full curve
    assert r.plot_curve.thresholds[0] == r.curve.thresholds[0]
    assert r.plot_curve.thresholds[-1] == math.inf


def test_evaluate_stops_when_asked():
    trials = _big_trials(20000)
    with pytest.raises(Cancelled):
        evaluate(trials, should_stop=lambda: True)
    # asked to stop after the first two checks: stops in a later phase
    calls = []

    def stop_third_time():
        calls.append(1)
        return len(calls) >= 3

    progress = []
    with pytest.raises(Cancelled):
        evaluate(trials, progress=progress.append, should_stop=stop_third_time)
    assert len(calls) == 3 and progress and max(progress) < 1.0
    assert Cancelled is JobsCancelled  # one Cancelled for every job


def test_results_are_read_only():
    r = evaluate(Trials("hand", SCORES, LABELS))
    with pytest.raises(ValueError):
        r.curve.p_fa[0] = 0.5
    with pytest.raises(ValueError):
        r.hull.p_miss[0] = 0.5


def test_bootstrap_interval():
    trials = _big_trials(4000, seed=9)
    point = eer(trials.scores, trials.is_target)[0]
    lo, hi = bootstrap_eer(trials, n=200, seed=1)
    assert lo < point < hi
    # roughly the binomial spread of an error rate of ~16% on ~400 targets: +-3.6% at 95%,
    # narrowed by the 3600 non-targets; the interval is neither degenerate nor absurd
    assert 0.01 < hi - lo < 0.08
    assert bootstrap_eer(trials, n=200, seed=1) == (lo, hi)  # reproducible
    with pytest.raises(Cancelled):
        bootstrap_eer(trials, n=10, should_stop=lambda: True)


def test_bootstrap_of_one_resample_per_trial_set_is_the_eer_of_a_resample():
    # Resampling by multinomial counts over distinct scores must give the EER of an actual
    # resampled trial list: rebuild the list from the counts and score it directly.
    rng = np.random.default_rng(4)
    labels = rng.random(500) < 0.4
    scores = np.round(rng.normal(size=500) + labels, 1)
    trials = Trials("t", scores, labels)
    curve = det_curve(scores, labels)
    replicate_rng = np.random.default_rng(123)
    t = replicate_rng.multinomial(curve.n_target, np.diff(curve.n_miss) / curve.n_target)
    f = replicate_rng.multinomial(curve.n_nontarget, -np.diff(curve.n_fa) / curve.n_nontarget)
    values = curve.thresholds[:-1]
    rebuilt = np.concatenate([np.repeat(values, t), np.repeat(values, f)])
    rebuilt_labels = np.concatenate([np.ones(t.sum(), bool), np.zeros(f.sum(), bool)])
    lo, hi = bootstrap_eer(trials, n=1, seed=123)
    assert lo == hi == pytest.approx(eer(rebuilt, rebuilt_labels)[0], abs=1e-15)



def test_evaluate_equals_brute_force_rates():
    """The job's numbers against rates counted directly in the test (no llgui function)."""
    trials = _big_trials(n=20000, seed=7)
    r = evaluate(trials, dcf=(0.01, 1.0, 1.0))
    tar = trials.scores[trials.is_target]
    non = trials.scores[~trials.is_target]
    ts = np.append(np.sort(np.unique(trials.scores)), np.inf)
    costs = [(0.01 * np.mean(tar < t) + 0.99 * np.mean(non >= t)) / 0.01 for t in ts]
    assert r.min_dcf == pytest.approx(min(costs), rel=1e-12)
    t = np.log(0.99 / 0.01)
    assert r.act_dcf == pytest.approx((0.01 * np.mean(tar < t) + 0.99 * np.mean(non >= t))
                                      / 0.01, rel=1e-12)


# -- The hull with repeated and collinear points (issue 27, item 1) ---------------------------

def _plain_lower_hull(points):
    """Andrew's monotone chain, written here from its textbook form: the lower hull of a set of
    integer points (repeats merged) without collinear interiors, from (0, n_target) to
    (n_nontarget, 0) as the ROCCH runs (so at equal x the higher point comes first)."""
    pts = sorted(set(points), key=lambda p: (p[0], -p[1]))
    chain = []
    for p in pts:
        while len(chain) >= 2:
            (ox, oy), (ax, ay) = chain[-2], chain[-1]
            if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 0:
                break
            chain.pop()
        chain.append(p)
    return chain


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8),
       st.integers(200, 700), st.integers(2, 3), st.integers(0, 2**32 - 1))
def test_hull_with_repeats_and_collinear_points_equals_a_plain_monotone_chain(palette, n_steps,
                                                                              copies, seed):
    """A DET staircase of up to 700 steps (well past the 256 points where the vectorised rounds
    start), points repeated up to 3 times and many collinear: the ROCCH's vertices are those of
    a plain monotone chain over the distinct points. (One case of the bug: every point twice,
    `test_a_curve_with_every_point_twice_has_the_same_rocch_eer`.)

    The steps are drawn from a palette of 1-8 steps that hypothesis draws (a short palette
    makes long collinear runs, a (0, 0) step repeats a point), the walk by a seeded generator:
    hypothesis drawing each of the 200-700 steps itself was 95 % of the test's time."""
    from llgui.core.detection.det import _hull_indices

    # Walk from (n_fa = N, n_miss = 0) to (0, T) by steps of (-df, +dm), as a curve does.
    rng = np.random.default_rng(seed)
    steps = np.array(palette, dtype=np.int64)[rng.integers(0, len(palette), size=n_steps)]
    dfa, dmiss = steps[:, 0], steps[:, 1]
    n_fa = np.concatenate(([dfa.sum()], dfa.sum() - np.cumsum(dfa)))
    n_miss = np.concatenate(([0], np.cumsum(dmiss)))
    if n_fa[0] == 0 or n_miss[-1] == 0:
        return
    reps = rng.integers(1, copies + 1, size=n_fa.size)
    n_fa, n_miss = np.repeat(n_fa, reps), np.repeat(n_miss, reps)
    idx = _hull_indices(n_fa, n_miss)
    ours = sorted({(int(n_fa[i]), int(n_miss[i])) for i in idx})
    assert len(ours) == idx.size  # no vertex twice
    assert ours == sorted(_plain_lower_hull(list(zip(n_fa.tolist(), n_miss.tolist()))))


def _pyeer(reference_data, expected, name):
    case = next(c for c in expected["detection"] if c["id"].startswith("pyeer"))["cases"][name]
    tar = np.loadtxt(reference_data / case["target"], dtype=float, ndmin=1)
    non = np.loadtxt(reference_data / case["nontarget"], dtype=float, ndmin=1)
    return case, tar, non


def test_a_curve_with_every_point_twice_has_the_same_rocch_eer(reference_data, expected):
    """pyeer exp2 with every DET point listed twice: the ROCCH EER stays 4.01 % (it read 50 %
    when both copies of each vertex were dropped)."""
    from llgui.core.detection.det import DetCurve, _eer

    case, tar, non = _pyeer(reference_data, expected, "exp2")
    curve = det_curve(np.concatenate([tar, non]),
                      np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)]))
    twice = np.repeat(np.arange(len(curve)), 2)
    doubled = DetCurve(p_miss=curve.p_miss[twice], p_fa=curve.p_fa[twice],
                       thresholds=curve.thresholds[twice], n_miss=curve.n_miss[twice],
                       n_fa=curve.n_fa[twice], n_target=curve.n_target,
                       n_nontarget=curve.n_nontarget)
    value = _eer(doubled, roc_hull(doubled), "rocch")[0]
    assert value == pytest.approx(case["ROCCH_EER"], abs=1e-12)
    assert round(value, 4) == 0.0401


@pytest.mark.parametrize("name, subsample", [("exp1", None), ("exp1", 1500)])
def test_bootstrap_eer_equals_the_eer_of_each_resampled_trial_list(reference_data, expected,
                                                                   name, subsample):
    """The EER interval of pyeer exp1 (thousands of distinct scores) and of a subsample, against
    a bootstrap written here: the same multinomial draws turned back into trial lists, each
    scored by `det_curve` + ROCCH from scratch. Before the fix the box read [7.2348, 8.7577]
    against [7.2341, 8.7356] on the whole set."""
    _, tar, non = _pyeer(reference_data, expected, name)
    if subsample:
        pick = np.random.default_rng(5)
        tar = pick.choice(tar, size=min(tar.size, subsample // 4), replace=False)
        non = pick.choice(non, size=min(non.size, subsample), replace=False)
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)])
    assert np.unique(scores).size > 256   # past the vectorised rounds of the hull
    n, seed = 60, 3
    lo, hi = bootstrap_eer(Trials("t", scores, labels), n=n, seed=seed)
    curve = det_curve(scores, labels)
    values = curve.thresholds[:-1]
    rng = np.random.default_rng(seed)
    brute = []
    for _ in range(n):
        t = rng.multinomial(curve.n_target, np.diff(curve.n_miss) / curve.n_target)
        f = rng.multinomial(curve.n_nontarget, -np.diff(curve.n_fa) / curve.n_nontarget)
        resampled = np.concatenate([np.repeat(values, t), np.repeat(values, f)])
        resampled_labels = np.concatenate([np.ones(t.sum(), bool), np.zeros(f.sum(), bool)])
        brute.append(eer(resampled, resampled_labels)[0])
    expected_lo, expected_hi = np.quantile(brute, [0.025, 0.975])
    assert (lo, hi) == pytest.approx((expected_lo, expected_hi), abs=1e-12)
def test_the_eer_in_percent_is_the_reports():
    from llgui.core.reports.commands import det_report
    from llgui.core.types import Trials

    rng = np.random.default_rng(2)
    trials = Trials("sys", np.r_[rng.normal(1, 1, 50), rng.normal(0, 1, 150)],
                    np.arange(200) < 50)
    result = evaluate(trials)
    assert result.eer_percent == 100.0 * result.eer
    report = det_report([trials], (0.01, 1.0, 1.0))
    assert report["systems"][0]["eer"] == result.eer_percent


@pytest.mark.parametrize("size", [0, 1, RUNNING_CHUNK - 1, RUNNING_CHUNK, 2 * RUNNING_CHUNK + 7])
def test_running_total_in_chunks_equals_cumsum(size):
    counts = np.random.default_rng(size).integers(0, 5, size)
    assert np.array_equal(_running_total(counts), np.concatenate(([0], np.cumsum(counts))))
    assert np.array_equal(_running_total(counts > 2), np.concatenate(([0], np.cumsum(counts > 2))))


def test_curve_over_several_chunks_counts_every_trial():
    """A curve longer than the running total's chunk (150,000 trials, half of them tied in
    pairs): the counts below and above each threshold, counted in the test by `searchsorted`
    on each class alone."""
    rng = np.random.default_rng(11)
    labels = rng.random(150_000) < 0.3
    scores = np.round(rng.normal(size=150_000) + labels, 5)
    c = det_curve(scores, labels)
    tar, non = np.sort(scores[labels]), np.sort(scores[~labels])
    assert labels.size > 2 * RUNNING_CHUNK and len(c.thresholds) > RUNNING_CHUNK
    assert np.array_equal(c.n_miss, np.searchsorted(tar, c.thresholds, side="left"))
    assert np.array_equal(c.n_fa, non.size - np.searchsorted(non, c.thresholds, side="left"))
