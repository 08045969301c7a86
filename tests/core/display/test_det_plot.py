"""The DET plot's maths (llgui.core.display.det_plot): probit ticks, the ROC convex hull on
probit axes, separated systems, the threshold's DET point; against scipy and the core."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from llgui.core.detection.analysis import at_threshold
from llgui.core.detection.det import DET_TICK_LABELS, DET_TICKS, evaluate, probit
from llgui.core.display.det_plot import (
    DEFAULT_RANGE, det_point, hull_xy, rate_label, separated, tick_label, tick_values,
)
from llgui.core.types import Trials


def test_ticks_are_the_nist_rates_at_their_normal_deviates():
    lo, hi = DEFAULT_RANGE
    assert (lo, hi) == pytest.approx((norm.ppf(0.0005), norm.ppf(0.5)), abs=1e-12)
    values = tick_values(hi, lo)   # either order
    assert values == pytest.approx([norm.ppf(r) for r in DET_TICKS if 0.0005 <= r <= 0.5],
                                   abs=1e-12)
    assert [tick_label(v) for v in values] == list(DET_TICK_LABELS)
    # zoomed out: the outer rates appear, labelled in percent
    wide = tick_values(norm.ppf(0.00005), norm.ppf(0.995))
    assert [tick_label(v) for v in wide][:2] == ["0.01", "0.02"]
    assert [tick_label(v) for v in wide][-1] == "99"
    assert rate_label(0.05) == "5" and rate_label(0.95) == "95"
    assert tick_label(float(norm.ppf(0.3))) == "30"   # not one of the tick rates


def test_hull_and_separated_systems():
    rng = np.random.default_rng(13)
    scores = np.concatenate((rng.normal(1.5, 1, 300), rng.normal(0, 1, 700)))
    labels = np.arange(1000) < 300
    mixed = evaluate(Trials("mixed", scores, labels))
    apart = evaluate(Trials("apart", np.r_[np.full(5, 3.0), np.full(5, -3.0)],
                            np.arange(10) < 5))
    assert separated(apart) and not separated(mixed)
    # the rocch EER point lies on the drawn hull (BOSARIS: where the hull meets P_miss = P_fa)
    x, y = hull_xy(mixed)
    e = float(probit(mixed.eer))
    assert np.min(np.hypot(x - e, y - e)) < 0.02
    assert np.all(np.isfinite(x)) and np.all(np.isfinite(y))


def test_the_threshold_point_is_the_probit_of_its_error_rates():
    scores = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.2])
    labels = np.array([False, True, False, True, True, False])
    at = at_threshold(scores, labels, 0.3)   # accepts 0.35 (a non-target) and every target
    assert (at.p_fa, at.p_miss, at.tpr) == (1 / 3, 0.0, 1.0)
    x, y = det_point(at)
    assert x == pytest.approx(norm.ppf(1 / 3), abs=1e-12) and y == float(probit(0.0))
