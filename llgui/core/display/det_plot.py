"""The DET plot's drawing maths, Qt-free: ticks of a probit axis at the NIST error rates and
their percent labels, the ROC convex hull on probit axes, a DET point of a threshold, and
whether a system is perfectly separated (its DET curve lies on the axes, outside any probit
plot). `llgui.gui.widgets.probit_axis` and `llgui.gui.detection` draw with them.

The DET plot draws (probit(P_fa), probit(P_miss)) (`llgui.core.detection.det.probit`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from llgui.core.detection.det import DET_TICK_LABELS, DET_TICKS, probit

OUTER_LOW = (0.0001, 0.0002)
OUTER_HIGH = (0.6, 0.8, 0.9, 0.95, 0.98, 0.99)
"""Rates outside the NIST list, ticked only when they are in view (zoomed out)."""
_LABELS = dict(zip(DET_TICKS, DET_TICK_LABELS))

DEFAULT_RANGE = (float(probit(0.0005)), float(probit(0.5)))
"""The view range of a NIST DET plot on either axis, in probit units: 0.05 % to 50 %."""

SEGMENT_POINTS = 24
"""Points per hull segment: straight in ROC space, curved on probit axes."""


def rate_label(rate: float) -> str:
    """Percent text of an error rate (fraction): the NIST label where there is one."""
    if rate in _LABELS:
        return _LABELS[rate]
    return f"{100.0 * rate:g}"


def _candidates(rates: Sequence[float]) -> tuple[float, ...]:
    return OUTER_LOW + tuple(rates) + OUTER_HIGH


def visible_rates(lo: float, hi: float, rates: Sequence[float] = DET_TICKS) -> list[float]:
    """The tick rates (`rates`, and the outer ones) whose probits lie in [lo, hi]."""
    return [r for r in _candidates(rates) if lo <= float(probit(r)) <= hi]


def tick_values(lo: float, hi: float, rates: Sequence[float] = DET_TICKS) -> list[float]:
    """Tick positions (probit units) of a probit axis showing [lo, hi] (either order)."""
    lo, hi = min(lo, hi), max(lo, hi)
    return [float(probit(r)) for r in visible_rates(lo, hi, rates)]


def tick_label(value: float, rates: Sequence[float] = DET_TICKS) -> str:
    """The percent label of a tick at `value` (probit units): the label of the tick rate it
    came from, found exactly so that labels never drift, else the rate to 3 digits."""
    from scipy.special import ndtr

    rate = float(ndtr(value))
    known = min(_candidates(rates), key=lambda r: abs(float(probit(r)) - value))
    return (rate_label(known) if abs(known - rate) <= 1e-9 + 1e-6 * rate
            else f"{100.0 * rate:.3g}")


def separated(result) -> bool:
    """True when no target scores below any non-target: EER 0 and no curve to draw."""
    return float(result.eer) == 0.0 and float(result.min_dcf) == 0.0


def hull_xy(result, probit=probit) -> tuple[np.ndarray, np.ndarray]:
    """The ROC convex hull of `result` on probit axes (x: P_fa, y: P_miss), each segment
    interpolated linearly in probability space; the points at 0 or 1 are dropped (off the
    probit axes)."""
    fa = np.asarray(result.hull.p_fa, dtype=float)
    miss = np.asarray(result.hull.p_miss, dtype=float)
    if fa.size < 2:
        return np.empty(0), np.empty(0)
    t = np.linspace(0.0, 1.0, SEGMENT_POINTS)
    xs = (fa[:-1, None] + (fa[1:] - fa[:-1])[:, None] * t).ravel()
    ys = (miss[:-1, None] + (miss[1:] - miss[:-1])[:, None] * t).ravel()
    keep = (xs > 0) & (xs < 1) & (ys > 0) & (ys < 1)
    return probit(xs[keep]), probit(ys[keep])


def det_point(at) -> tuple[float, float]:
    """(probit(P_fa), probit(P_miss)) of the decisions at a threshold (an `AtThreshold`):
    where the threshold lies on the DET plot."""
    return float(probit(at.p_fa)), float(probit(at.p_miss))
