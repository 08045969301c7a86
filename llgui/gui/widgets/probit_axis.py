"""A DET plot axis: values are normal deviates (probit of an error rate), labels are percent.

The DET plot draws (probit(P_fa), probit(P_miss)) (llgui.core.detection.det.probit), so a straight line
is a pair of Gaussian score distributions with equal variances. This axis puts its ticks at the
NIST error rates (det.DET_TICKS: 0.1 0.2 0.5 1 2 5 10 20 40 %, the DETware look) and labels
them in percent. When the user zooms out beyond that range, a few more rates outside it are
ticked (0.01 % ... 99 %), so the axis never goes blank.
"""
from __future__ import annotations

import pyqtgraph as pg
from scipy.special import ndtr

from llgui.core.detection.det import DET_TICK_LABELS, DET_TICKS, probit

# Rates outside the NIST list, ticked only when they are in view (zoomed out).
_OUTER_LOW = (0.0001, 0.0002)
_OUTER_HIGH = (0.6, 0.8, 0.9, 0.95, 0.98, 0.99)
_LABELS = dict(zip(DET_TICKS, DET_TICK_LABELS))

DEFAULT_RANGE = (float(probit(0.0005)), float(probit(0.5)))
"""The view range of a NIST DET plot on either axis, in probit units: 0.05 % to 50 %."""


def rate_label(rate: float) -> str:
    """Percent text of an error rate (fraction): the NIST label where there is one."""
    if rate in _LABELS:
        return _LABELS[rate]
    return f"{100.0 * rate:g}"


class ProbitAxisItem(pg.AxisItem):
    """An AxisItem over probit units with ticks at NIST error rates, labelled in percent.

    `rates` are the tick positions as fractions (default: the NIST ones, then the outer ones
    when they are in view); `tickValues` returns their probits within the visible range and
    `tickStrings` their percent labels.
    """

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)
        self.rates = tuple(DET_TICKS)

    def _visible(self, lo: float, hi: float) -> list[float]:
        candidates = _OUTER_LOW + self.rates + _OUTER_HIGH
        return [r for r in candidates if lo <= float(probit(r)) <= hi]

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        lo, hi = min(minVal, maxVal), max(minVal, maxVal)
        values = [float(probit(r)) for r in self._visible(lo, hi)]
        # One level: major ticks only (minor ticks on a probit scale would mislead).
        return [(1.0, values)]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        out = []
        for v in values:
            rate = float(ndtr(v))
            # The tick came from one of our rates: find it exactly, so labels never drift.
            known = min(_OUTER_LOW + self.rates + _OUTER_HIGH,
                        key=lambda r: abs(float(probit(r)) - v))
            out.append(rate_label(known) if abs(known - rate) <= 1e-9 + 1e-6 * rate
                       else f"{100.0 * rate:.3g}")
        return out

    def tick_labels(self) -> list[str]:
        """The labels this axis shows at its current range (for tests and exports)."""
        lo, hi = self.range
        values = self.tickValues(lo, hi, 0)[0][1]
        return self.tickStrings(values, 1.0, 1.0)

