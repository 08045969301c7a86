"""Split view of a diarization step: one zoomed timeline per listened window.

A `same` step whose two points are 900 s apart, drawn on one axis, shows two 6-s windows as
hairlines in unreadable barcodes. Here each window (`zoom_panels`: padded, near ones merged)
gets its own panel with the same lanes, side by side, under the whole meeting drawn as an
overview strip by the DiarView that owns this widget.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QWidget

from llgui.core.display.layout import format_time, zoom_panels

PAD = 2.0         # s of context on each side of a window
MERGE_GAP = 10.0  # s: windows closer than this share a panel
MAX_PANELS = 4


def split_spans(windows, extent) -> list[tuple[float, float]]:
    """The panels' time spans for `windows`, or [] when one panel (the usual zoom) will do."""
    panels = zoom_panels(windows, pad=PAD, merge_gap=MERGE_GAP, extent=extent)
    return panels[:MAX_PANELS] if len(panels) > 1 else []


class SplitPanels(QWidget):
    def __init__(self, make_view, parent: QWidget | None = None):
        """`make_view()` builds one panel (a DiarView that never splits itself)."""
        super().__init__(parent)
        self._make_view = make_view
        self.panels: list = []
        self.spans: list[tuple[float, float]] = []   # what is shown, for tests
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)

    def show_spans(self, walk, step: int, error_regions, spans, owner=None) -> None:
        """`owner`: the DiarView whose speaker colours, collar and UEM setting the panels
        share (a speaker must not change colour between the overview and a panel)."""
        while len(self.panels) < len(spans):
            panel = self._make_view()
            panel.legend.hide()   # the overview's legend serves all panels
            self.layout().addWidget(panel, 1)
            self.panels.append(panel)
        for k, panel in enumerate(self.panels):
            panel.setVisible(k < len(spans))
        for k, (start, end) in enumerate(spans):
            panel = self.panels[k]
            if owner is not None:
                panel._colours = owner._colours
                panel.collar, panel.skip_overlap = owner.collar, owner.skip_overlap
            panel.show_step(walk, step, error_regions)
            item = panel.plot.getPlotItem()
            item.setXRange(start, end, padding=0)
            item.setTitle(f"window {k + 1}: {format_time(start, 1)} – {format_time(end, 1)}",
                          size="8pt")
            if k:   # one lane axis is enough
                item.getAxis("left").setStyle(showValues=False)
                item.getAxis("left").setWidth(8)
        self.spans = list(spans)
        self.brushes = []
        if owner is not None:
            self._add_brushes(owner, spans)

    def _add_brushes(self, owner, spans) -> None:
        """A draggable region on the overview strip per panel: drag it (or its edges) and the
        panel follows. Kept in the owner's region list, so its next step removes them."""
        item = owner.plot.getPlotItem()
        for k, (start, end) in enumerate(spans):
            region = pg.LinearRegionItem((start, end), movable=True,
                                         brush=pg.mkBrush(QColor(40, 120, 220, 45)),
                                         pen=pg.mkPen(QColor(40, 120, 220), width=1.5))
            region.setZValue(-8)
            region.setToolTip(f"window {k + 1}: drag to move its panel below")
            panel = self.panels[k]
            region.sigRegionChanged.connect(
                lambda r, p=panel: p.plot.getPlotItem().setXRange(*r.getRegion(), padding=0))
            item.addItem(region)
            owner._regions.append(region)
            self.brushes.append(region)
