"""The Across-time tab's plot widgets and axes: a white plot with dark text, a calendar axis
that names months and years, and the limits and colours its plots share."""
from __future__ import annotations

import pyqtgraph as pg

from llgui.core.display.layout import date_labels
from llgui.core.display.palette import CAMPAIGN_SYSTEM_COLOURS

SYSTEM_COLOURS = CAMPAIGN_SYSTEM_COLOURS
"""The other systems of a campaign, overlaid on the S_P plot."""
MAX_NAMED_SYSTEMS = 4
"""Other systems of a campaign named one by one in the S_P legend; beyond, one entry."""
MAX_SYMBOLS = 60   # curves with more points are drawn without symbols (faster, and clearer)
TEXT = "#222222"   # axis text and titles: darker than pyqtgraph's grey, readable at a glance


def plot_widget(title: str = "") -> pg.PlotWidget:
    widget = pg.PlotWidget()
    widget.setBackground("w")
    item = widget.getPlotItem()
    item.setMenuEnabled(False)
    item.showGrid(x=True, y=True, alpha=0.15)
    if title:
        item.setTitle(title, size="9pt", color=TEXT)
    for name in ("left", "bottom"):
        item.getAxis(name).enableAutoSIPrefix(False)
        item.getAxis(name).setTextPen(TEXT)
    return widget


class CalendarAxis(pg.DateAxisItem):
    """A UTC date axis whose labels say the month and year (`date_labels`), not "07 12 17".

    Days apart, pyqtgraph ticks a month's first day as well as every few days, and labels
    both: the month's label fell between two day labels ("29 MarApr 2023 03 Apr", outsider
    helper-56). Day ticks closer to a month tick than two labels' half widths are left out."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        levels = super().tickValues(minVal, maxVal, size)
        months = [float(v) for spacing, values in levels if spacing >= 28 * 86400
                  for v in values]
        if not months or maxVal <= minVal:
            return levels
        # two half labels apart: the width of the widest day label, measured as the heatmap's
        # axis measures its names
        from PySide6.QtGui import QFontMetrics

        widest = QFontMetrics(self.style.get("tickFont") or self.font()).horizontalAdvance(
            "07 Jan 2023")
        room = widest * (maxVal - minVal) / max(1.0, size)   # (seconds)
        return [(spacing, values) if spacing >= 28 * 86400 else
                (spacing, [v for v in values if min(abs(v - m) for m in months) >= room])
                for spacing, values in levels]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        labels = date_labels([v * scale for v in values], spacing * scale)
        if 28 * 86400 <= spacing * scale < 365 * 86400:
            # month ticks: the year on the first and on January only ("Nov 2023 Dec Jan 2024"),
            # or pyqtgraph drops them all as overlapping, leaving a lone "2024"
            labels = [t if k == 0 or t.startswith("Jan") else t.split(" ")[0]
                      for k, t in enumerate(labels)]
        return labels


def whole_axis():
    """An axis ticked on whole numbers only."""
    from llgui.gui.across_time.whole_axis import WholeAxis

    return WholeAxis("bottom")
