"""A time axis for documents at whole-number times (issue 35)."""
from __future__ import annotations

import math

import pyqtgraph as pg


class WholeAxis(pg.AxisItem):
    """A time axis for times that are whole numbers (documents at 1, 2, 3): ticks on whole
    numbers only."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        levels = []
        for spacing, values in super().tickValues(minVal, maxVal, size):
            kept = [v for v in values if float(v).is_integer()]
            if kept:
                levels.append((max(spacing, 1.0), kept))
        return levels or [(1.0, [float(v) for v in range(math.ceil(minVal),
                                                           math.floor(maxVal) + 1)])]
