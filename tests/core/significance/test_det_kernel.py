"""The compiled detection resampling kernel equals the numpy path to the last bit.

`_det_kernel.rows` replaces, per resample, `_Sorted.curve` + `det.eer` (ROCCH) +
`det.min_dcf` + `miss_at`; here every row of tied, skewed and one-class resamples is held
equal (==, NaN where the numpy path gives NaN) to those functions, and `det_band` /
`TrialSample.resampled` with the kernel equal to themselves with the kernel switched off.
"""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.significance import _det_kernel, detection
from llgui.core.significance.detection import (
    TrialSample, _Sorted, default_grid, det_band, measure_of, miss_at, stratified_counts,
)
from llgui.core.significance.resample import Plan, bootstrap_counts
from llgui.core.types import Trials

DCFS = [(0.01, 1.0, 1.0), (0.5, 1.0, 1.0), (0.05, 10.0, 1.0)]


def _trials(rng, n, ties, share):
    scores = rng.normal(size=n)
    if ties:
        scores = np.round(scores, 1)          # many trials per distinct score
    labels = rng.random(n) < share
    labels[0], labels[1] = True, False
    scores[labels] += 1.0
    return Trials("t", scores, labels)


def _numpy_rows(sorted_, counts, grid, dcf):
    band, eer, dcfs = [], [], []
    for row in counts.astype(np.float64):
        c = sorted_.curve(row)
        band.append(miss_at(c, grid) if c is not None else np.full(grid.size, np.nan))
        eer.append(measure_of(c, "eer", dcf, "rocch"))      # percent
        dcfs.append(measure_of(c, "min_dcf", dcf, "rocch"))
    return np.array(band), np.array(eer), np.array(dcfs)


@pytest.mark.parametrize("n,ties,share", [(7, True, 0.5), (60, True, 0.3), (250, False, 0.3),
                                          (400, True, 0.05), (40, False, 0.9)])
def test_rows_equal_the_numpy_path(n, ties, share):
    rng = np.random.default_rng(n)
    trials = detection.snap_scores(_trials(rng, n, ties, share))
    sorted_ = _Sorted(trials)
    grid = default_grid(int((~trials.is_target).sum()))
    counts = np.vstack([np.vstack(list(bootstrap_counts(1, n, 150, None))),
                        np.vstack(list(stratified_counts(2, trials.is_target, 50))),
                        np.ones((1, n)), np.eye(n)[:3],         # one trial: one class only
                        (rng.random((20, n)) < 0.1) * 3.0])     # sparse, repeated draws
    for dcf in DCFS:
        want = _numpy_rows(sorted_, counts, grid, dcf)
        band, eer, min_dcf = _det_kernel.rows(sorted_.group, sorted_.is_target,
                                              sorted_.n_groups, counts, grid, dcf)
        got = band, 100.0 * eer, min_dcf
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
    assert np.isnan(got[1][-23:-20]).all() and not np.isnan(got[1][-24])   # one trial: no curve


@pytest.mark.parametrize("measure", ["eer", "min_dcf"])
def test_det_band_and_samples_equal_with_the_kernel_off(monkeypatch, measure):
    rng = np.random.default_rng(5)
    trials = _trials(rng, 180, True, 0.3)
    plan = Plan("bs", 200, 7, "trial")
    sample = TrialSample(trials, measure)
    counts = np.vstack(list(bootstrap_counts(3, 180, 100, None)))
    on = (det_band(trials, plan, measures=True, stratified=True, interval="bca"),
          sample.resampled(counts))
    monkeypatch.setattr(detection, "_kernel", lambda: None)
    off = (det_band(trials, plan, measures=True, stratified=True, interval="bca"),
           sample.resampled(counts))
    assert np.array_equal(on[1], off[1], equal_nan=True)
    for a, b in ((on[0].band.low, off[0].band.low), (on[0].band.high, off[0].band.high)):
        assert np.array_equal(a, b)
    for e in ("eer", "min_dcf"):
        x, y = getattr(on[0], e), getattr(off[0], e)
        assert (x.score, x.low, x.high) == (y.score, y.low, y.high)
