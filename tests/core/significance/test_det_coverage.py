"""Issue 27, item 3: the window's EER interval holds its level on real scores.

Subsamples of pyeer exp1 (2,793 targets, 4,950 non-targets), drawn without replacement with a
fixed seed, each get the interval the Detection tab shows (`det_bands` with its defaults:
1,000 stratified resamples, BCa, seed 12345); the share of subsamples whose interval holds the
population value, the ROCCH EER of the whole set (8.0392 %), must be within a stated tolerance
of 95 %. Measured on 400 subsamples of 120-400 trials (issue 27): percentile, joint resampling,
200 resamples (the old columns) 87.3 %; percentile, stratified, 1,000: 88.7 %; BCa, joint,
1,000: 94.8 %; BCa, stratified, 1,000 (the window's): 93.8 %. The percentile interval
under-covers at any number of resamples: the ROCCH EER of a small sample is biased low, which
BCa's bias correction takes into account.

minDCF at (0.01, 1, 1) is not checked: on a hundred or two non-targets its intervals hold the
population minDCF in 32 % (percentile) to 52 % (BCa) of these subsamples; the README says so.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from llgui.core.detection import det
from llgui.core.significance.detection import det_bands
from llgui.core.significance.resample import Plan, bca_interval, percentile_interval
from llgui.core.types import Trials

SAMPLES, SEED = 1000, 12345   # the window's (llgui/gui/detection/bands.py)


def _exp1(reference_data, expected):
    case = next(c for c in expected["detection"] if c["id"].startswith("pyeer"))["cases"]["exp1"]
    tar = np.loadtxt(reference_data / case["target"])
    non = np.loadtxt(reference_data / case["nontarget"])
    scores = np.concatenate([tar, non])
    labels = np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)])
    return case, scores, labels


def _coverage(reference_data, expected, subsamples, low, high):
    case, scores, labels = _exp1(reference_data, expected)
    population = 100 * det.eer(det.det_curve(scores, labels))[0]
    assert population == pytest.approx(100 * case["ROCCH_EER"], abs=1e-10)
    rng = np.random.default_rng(27)
    held = 0
    for k in range(subsamples):
        idx = rng.choice(scores.size, int(rng.integers(low, high + 1)), replace=False)
        r, = det_bands([Trials(f"sub{k}", scores[idx], labels[idx])],
                       Plan("bs", SAMPLES, SEED, "trial"))
        held += r.eer.low <= population <= r.eer.high
    return held / subsamples


def test_eer_interval_holds_95_percent_fast(reference_data, expected):
    """120 subsamples of 120-250 trials: binomial standard error at 95 % is 2.0 %; the
    tolerance is 4 points (2 standard errors). The old columns (joint percentile, 200
    resamples) held 88.3 % here, BCa stratified 1,000 92.5 %."""
    coverage = _coverage(reference_data, expected, 120, 120, 250)
    assert abs(coverage - 0.95) <= 0.04, f"coverage {coverage:.3f}"


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("LLGUI_RUN_SLOW") != "1",
                    reason="400 subsamples x 1,000 resamples take about 10 s of one core; set "
                           "LLGUI_RUN_SLOW=1 (the 120-subsample test above holds the same level)")
def test_eer_interval_holds_95_percent(reference_data, expected):
    """400 subsamples of 120-400 trials, as the audit drew them: standard error 1.1 %,
    tolerance 3 points (2.75 standard errors)."""
    coverage = _coverage(reference_data, expected, 400, 120, 400)
    assert abs(coverage - 0.95) <= 0.03, f"coverage {coverage:.3f}"


def test_the_window_interval_is_stratified_bca_around_the_point(reference_data, expected):
    _, scores, labels = _exp1(reference_data, expected)
    idx = np.random.default_rng(1).choice(scores.size, 300, replace=False)
    r, = det_bands([Trials("s", scores[idx], labels[idx])], Plan("bs", 300, SEED, "trial"))
    assert r.signature == "bs:300|seed:12345|unit:trial|strata:class|ci:bca95"
    assert r.eer.low <= r.eer.score <= r.eer.high
    assert r.min_dcf.low <= r.min_dcf.score <= r.min_dcf.high


def test_bca_without_bias_or_skew_is_the_percentile_interval():
    values = np.linspace(0.0, 1.0, 4001)
    point = float(np.median(values))
    low, high = bca_interval(point, values, np.array([1.0, 2.0, 3.0]))   # symmetric: a = 0
    assert (low, high) == pytest.approx(np.quantile(values, [0.025, 0.975]), abs=1e-12)
    assert (low, high) == pytest.approx(percentile_interval(values), abs=1e-3)
    # a point above most resamples (a sample estimate biased low) moves the interval up
    shifted = bca_interval(0.6, values, np.array([1.0, 2.0, 3.0]))
    assert shifted[0] > low and shifted[1] > high


def test_the_mindcf_interval_is_withheld_with_fewer_than_30_errors(reference_data, expected):
    """Doddington's rule of 30: the minDCF interval, which covered 32-52 % on small pyeer
    subsamples, is not offered when its operating point has fewer than 30 false alarms or
    misses; the count is the curve's, checked here by counting trials directly."""
    import numpy as np

    from llgui.core.significance.detection import MIN_ERRORS, det_band
    from llgui.core.significance.resample import Plan
    from llgui.core.types import Trials

    case = next(c for c in expected["detection"] if c["id"].startswith("pyeer"))["cases"]["exp1"]
    tar = np.loadtxt(reference_data / case["target"], ndmin=1)
    non = np.loadtxt(reference_data / case["nontarget"], ndmin=1)
    rng = np.random.default_rng(3)
    for n_tar, n_non in ((60, 240), (2793, 4950)):
        t = rng.choice(tar, n_tar, replace=False)
        f = rng.choice(non, n_non, replace=False)
        scores = np.concatenate([t, f])
        labels = np.concatenate([np.ones(t.size, bool), np.zeros(f.size, bool)])
        result = det_band(Trials("x", scores, labels), Plan("bs", 50, 1, "trial"),
                          measures=True, stratified=True, interval="bca")
        # count by hand: every threshold among the scores, the cost at each, the errors there
        best = None
        for threshold in np.append(np.unique(scores), np.inf):
            p_miss = (t < threshold).mean()
            p_fa = (f >= threshold).mean()
            cost = 0.01 * p_miss + 0.99 * p_fa
            if best is None or cost < best[0] - 1e-15:
                best = (cost, int((f >= threshold).sum()), int((t < threshold).sum()))
        assert result.min_dcf_errors == min(best[1], best[2])
        assert result.min_dcf_trusted == (min(best[1], best[2]) >= MIN_ERRORS)
        assert not result.min_dcf_trusted   # pyeer exp1 has 0-2 false alarms there
