"""A DET plot axis: values are normal deviates (probit of an error rate), labels are percent.

The DET plot draws (probit(P_fa), probit(P_miss)) (llgui.core.detection.det.probit), so a straight line
is a pair of Gaussian score distributions with equal variances. This axis puts its ticks at the
NIST error rates (det.DET_TICKS: 0.1 0.2 0.5 1 2 5 10 20 40 %, the DETware look) and labels
them in percent. When the user zooms out beyond that range, a few more rates outside it are
ticked (0.01 % ... 99 %), so the axis never goes blank.
"""
from __future__ import annotations

import pyqtgraph as pg

from llgui.core.detection.det import DET_TICKS, probit
from llgui.core.display.det_plot import DEFAULT_RANGE, rate_label, tick_label, tick_values

__all__ = ["DEFAULT_RANGE", "ProbitAxisItem", "rate_label"]


def _rank(value: float) -> int:
    """0 for a decade (0.1, 1, 10 %), 1 for a 5, 2 for a 2, 3 for any other rate: the order
    in which ticks give way when the axis is short."""
    from scipy.special import ndtr

    digit = f"{float(ndtr(value)):.0e}"[0]
    return {"1": 0, "5": 1, "2": 2}.get(digit, 3)


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

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        # One level: major ticks only (minor ticks on a probit scale would mislead).
        values = tick_values(minVal, maxVal, self.rates)
        if not size or maxVal == minVal:
            return [(1.0, values)]
        # no two labels on each other: a narrow DET plot (a 1366-px laptop) puts 0.1 and 0.2 %
        # 15 px apart, and a square one shows more of its wider axis, where the outer rates
        # 0.01 and 0.02 % lie 11 px apart. Kept in order of rank (the decades, then 5, then 2,
        # then the other NIST rates, then the outer ones) where they leave room.
        per_unit = size / abs(maxVal - minVal)
        metrics = self.fontMetrics()
        horizontal = self.orientation in ("bottom", "top")

        def extent(v: float) -> float:
            return (metrics.horizontalAdvance(tick_label(v, self.rates)) if horizontal
                    else metrics.height())

        nist = {float(v) for v in probit(list(DET_TICKS))}
        kept: list[float] = []
        for v in sorted(values, key=lambda v: (v not in nist, _rank(v), v)):
            if all(abs(v - k) * per_unit >= (extent(v) + extent(k)) / 2 + 6 for k in kept):
                kept.append(v)
        return [(1.0, sorted(kept))]

    def fontMetrics(self):  # noqa: N802 - Qt's style
        from PySide6.QtGui import QFontMetrics

        return QFontMetrics(self.style.get("tickFont") or self.font())

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        return [tick_label(v, self.rates) for v in values]

    def tick_labels(self) -> list[str]:
        """The labels this axis shows at its current range (for tests and exports)."""
        lo, hi = self.range
        values = self.tickValues(lo, hi, 0)[0][1]
        return self.tickStrings(values, 1.0, 1.0)

