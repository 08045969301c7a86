"""The DET plot as the threshold's handle: a click picks the nearest point of the selected
system's curve (its threshold becomes the shared one), a diamond marks it, and dragging the
diamond slides it along the curve ("-ing" while dragging, the same state on release).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, Qt, Slot


class DetThresholdLink(QObject):
    """Connects a DET `PlotWidget` (probit axes) and a `ThresholdState`.

    `results()` returns the DetResults on the plot; the marker is re-added by `redraw()`
    after the plot was cleared."""

    def __init__(self, plot: pg.PlotWidget, state, results, colour_of, parent=None):
        super().__init__(parent)
        self.plot = plot
        self.state = state
        self.results = results
        self.colour_of = colour_of
        self.marker: pg.TargetItem | None = None
        self._snapping = False
        plot.scene().sigMouseClicked.connect(self._on_scene_clicked)
        state.changed.connect(self.redraw)

    def _selected(self):
        return next((r for r in self.results() if r.name == self.state.system), None)

    def pick(self, x: float, y: float) -> float | None:
        """Set the threshold to the selected curve's point nearest (x, y) (probit axes)."""
        from llgui.core.detection.analysis import nearest_point, point_threshold

        result = self._selected()
        if result is None:
            return None
        curve = result.plot_curve
        threshold = point_threshold(curve, nearest_point(curve, x, y))
        self.state.set_threshold(threshold)
        return threshold

    @Slot(object)
    def _on_scene_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or event.double():
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        point = vb.mapSceneToView(event.scenePos())
        self.pick(point.x(), point.y())
        event.accept()

    def _on_marker_moved(self) -> None:
        if self._snapping or self.marker is None:
            return
        pos = self.marker.pos()
        self.pick(pos.x(), pos.y())
        self.redraw()   # snap back onto the curve even when the threshold did not change

    def redraw(self) -> None:
        """Put the marker at the threshold's point of the selected curve."""
        from llgui.core.detection.analysis import at_threshold_curve
        from llgui.core.display.det_plot import det_point

        item = self.plot.getPlotItem()
        result = self._selected()
        if result is None or self.state.threshold is None:
            if self.marker is not None and self.marker.scene() is not None:
                item.removeItem(self.marker)
            return
        at = at_threshold_curve(result.curve, self.state.threshold)
        x, y = det_point(at)
        if self.marker is None:
            self.marker = pg.TargetItem(pos=(x, y), size=16, symbol="d", movable=True,
                                        pen=pg.mkPen("k", width=1.5))
            self.marker.setZValue(20)
            self.marker.setToolTip("the threshold: drag along the curve, or click the plot")
            self.marker.sigPositionChanged.connect(self._on_marker_moved)
        self.marker.setBrush(pg.mkBrush(self.colour_of(result.name)))
        if self.marker.scene() is None:
            item.addItem(self.marker)
        self._snapping = True
        try:
            self.marker.setPos(QPointF(x, y))
        finally:
            self._snapping = False
