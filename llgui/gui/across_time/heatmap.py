"""The lifelong score matrix s(M_i, t_j) as a heatmap: model versions by test times.

Rows are model versions (oldest at the top), columns test times (oldest on the left); cells
the table lacks are left blank. A colour bar gives the scale in the metric's units, oriented so
that "better" is always the same colour (high BLEU and low DER both show as dark). The window
[l_1, l_i] of the selected model (the tests equation 2 weighs for it) is outlined. Clicking a
row emits `model_clicked(row)`.
"""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPen, QTransform
from PySide6.QtWidgets import QGraphicsRectItem, QVBoxLayout, QWidget

from llgui.core.display.palette import colour_levels


TEXT = "#222222"


class NameAxis(pg.AxisItem):
    """An axis naming cells (model or test names) at integer positions, thinned to fit."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.names: list[str] = []

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        n = len(self.names)
        if n == 0:
            return []
        lo, hi = max(0, int(np.ceil(min(minVal, maxVal)))), min(n - 1, int(max(minVal, maxVal)))
        # pixels a label needs: its widest name measured (dates ran into each other at 60)
        from PySide6.QtGui import QFontMetrics

        metrics = QFontMetrics(self.style.get("tickFont") or self.font())
        per_label = (max(metrics.horizontalAdvance(t) for t in self.names) + 12
                     if self.orientation in ("bottom", "top") else metrics.height() + 2)
        step = max(1, int(np.ceil((hi - lo + 1) * per_label / max(size, 1.0))))
        return [(float(step), [float(v) for v in range(lo, hi + 1, step)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        return [self.names[int(round(v))] if 0 <= int(round(v)) < len(self.names) else ""
                for v in values]


def short_dates(names: list[str]) -> tuple[list[str], str]:
    """ISO dates of one year as "Jun 05" and that year; other names as they are, and ""."""
    import datetime as dt

    try:
        days = [dt.date.fromisoformat(n) for n in names]
    except (TypeError, ValueError):
        return names, ""
    years = {d.year for d in days}
    if not days or len(years) != 1:
        return names, ""
    return [d.strftime("%b %d") for d in days], str(years.pop())


MAX_LABELLED_CELLS = 400
"""Matrices up to this many cells get their values written in the cells (when they fit)."""


class CellValues(pg.GraphicsObject):
    """Every cell's value written in its cell, by one item that draws them all (issue 36):
    a `pg.TextItem` a cell cost 0.5-1 ms to make and add, and the matrix is made again at
    each redraw of the tab, so the demo's campaign (12 x 12) held the event loop 300-390 ms
    when the tab was first shown and again when the campaign's scores came in. The texts
    keep their size in pixels whatever the view's scale, centred on each cell; white on the
    dark part of the colour map, black on the bright part; with two decimals where they fit
    (the tables' and the Documents panel's), else one (50.05 and 49.95 both read "50.0" with
    one, outsider helper-56)."""

    def __init__(self, font):
        super().__init__()
        self.labels: list[tuple[int, int, float, QColor]] = []   # (row, col, value, colour)
        self.decimals = 2
        self.shape_rc = (0, 0)
        self.font = font
        self.setZValue(10)

    def set_labels(self, labels, shape) -> None:
        self.prepareGeometryChange()
        self.labels = list(labels)
        self.shape_rc = shape
        self.update()

    def texts(self, decimals: int | None = None) -> list[str]:
        places = self.decimals if decimals is None else decimals
        return [f"{value:.{places}f}" for _, _, value, _ in self.labels]

    def text_size(self, decimals: int | None = None) -> tuple[float, float]:
        """(widest, tallest) of the texts in pixels, with the 4-pixel margin on each side
        that a `pg.TextItem` had."""
        metrics = QFontMetricsF(self.font)
        if not self.labels:
            return 0.0, 0.0
        return (max(metrics.horizontalAdvance(text) for text in self.texts(decimals)) + 8,
                metrics.height() + 8)

    def set_decimals(self, decimals: int) -> None:
        if decimals != self.decimals:
            self.decimals = decimals
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        rows, cols = self.shape_rc
        return QRectF(-0.5, -0.5, cols, rows)

    def paint(self, painter, *_args) -> None:
        if not self.labels:
            return
        to_device = painter.transform()
        painter.save()
        painter.setTransform(QTransform())   # texts in pixels, not in cells
        painter.setFont(self.font)
        metrics = QFontMetricsF(self.font)
        half_w, half_h = metrics.horizontalAdvance("0" * 8) / 2 + 8, metrics.height()
        for (row, col, _, colour), text in zip(self.labels, self.texts()):
            centre = to_device.map(QPointF(col, row))
            painter.setPen(colour)
            painter.drawText(QRectF(centre.x() - half_w, centre.y() - half_h, 2 * half_w,
                                    2 * half_h), Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class ScoreHeatmap(QWidget):
    model_clicked = Signal(int)   # row (model index) the user clicked

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.left = NameAxis("left")
        self.bottom = NameAxis("bottom")
        self.plot = pg.PlotWidget(axisItems={"left": self.left, "bottom": self.bottom})
        self.plot.setBackground("w")
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        for axis in (self.left, self.bottom):
            axis.setTextPen(TEXT)
        item.getViewBox().invertY(True)  # M_0 at the top, as a matrix is read
        item.setLabel("left", "model version M<sub>i</sub>")
        for side in ("left", "bottom"):   # row and column indices: no "(x0.001)" prefix
            item.getAxis(side).enableAutoSIPrefix(False)
        item.setLabel("bottom", "test t<sub>j</sub>")
        self.image = pg.ImageItem(axisOrder="row-major")
        item.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(colorMap=pg.colormap.get("viridis"), width=14,
                                          interactive=False)
        self.colour_bar.setImageItem(self.image, insert_in=item)
        self.colour_bar.axis.setTextPen(TEXT)
        self.window_box = QGraphicsRectItem()
        pen = QPen(QColor("#e4002b"))
        pen.setWidthF(2.5)
        pen.setCosmetic(True)
        self.window_box.setPen(pen)
        self.window_box.setZValue(20)
        self.window_box.setVisible(False)
        item.addItem(self.window_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.plot.scene().sigMouseMoved.connect(self._on_scene_moved)
        self.values: np.ndarray | None = None   # the matrix shown, (n_models, n_tests)
        # each cell's value written in it when the cells are big enough (issue 23 item 19)
        self.cell_values = CellValues(self.font())
        item.addItem(self.cell_values)
        item.getViewBox().sigResized.connect(self._fit_cell_labels)

    def set_matrix(self, values: np.ndarray | None, models, tests, metric_label: str,
                   higher_is_better: bool | None, source: str = "") -> None:
        """Show `values` (n_models, n_tests), NaN for missing cells; None clears the plot.
        `source` names whose matrix it is (a campaign's system) in the title."""
        item = self.plot.getPlotItem()
        self.values = None if values is None else np.asarray(values, dtype=float)
        self.cell_values.set_labels([], (0, 0))
        if self.values is None or self.values.size == 0:
            self.image.clear()
            self.left.names, self.bottom.names = [], []
            self.window_box.setVisible(False)
            item.setTitle("no lifelong score table", size="9pt", color=TEXT)
            return
        # tests named by dates of one year: "Jun 05", the year said once on the axis
        tests, year = short_dates(list(tests))
        item.setLabel("bottom", "test t<sub>j</sub>" + (f" ({year})" if year else ""))
        self.left.names, self.bottom.names = list(models), list(tests)
        lo, hi = colour_levels(self.values)
        # NaN cells are drawn transparent by ImageItem, so missing rows stay blank.
        self.image.setImage(self.values, autoLevels=False)
        self.image.setRect(QRectF(-0.5, -0.5, self.values.shape[1], self.values.shape[0]))
        cmap = pg.colormap.get("viridis")
        if higher_is_better is False:
            cmap.reverse()   # low error rates are "good": keep good dark-to-bright the same way
        self.colour_bar.setColorMap(cmap)
        self.colour_bar.setLevels((lo, hi))
        self.colour_bar.axis.setLabel(metric_label)
        item.setXRange(-0.5, self.values.shape[1] - 0.5, padding=0)
        item.setYRange(-0.5, self.values.shape[0] - 0.5, padding=0)
        n_m, n_t = self.values.shape
        whose = f"{html.escape(source)}: " if source else ""
        item.setTitle(f"{whose}s(M<sub>i</sub>, t<sub>j</sub>), {n_m} "
                      f"{'versions' if whose else 'model versions'} × {n_t} tests", size="9pt",
                      color=TEXT)
        if n_m * n_t <= MAX_LABELLED_CELLS:
            white, black = QColor("white"), QColor("black")
            labels = []
            for (row, col), value in np.ndenumerate(self.values):
                if not np.isfinite(value):
                    continue
                share = (value - lo) / (hi - lo) if hi > lo else 0.5
                if higher_is_better is False:
                    share = 1.0 - share
                # viridis: dark below 0.6 of its range, bright above
                labels.append((row, col, float(value), white if share < 0.6 else black))
            self.cell_values.set_labels(labels, (n_m, n_t))
        self._fit_cell_labels()

    def _fit_cell_labels(self, *_) -> None:
        """The values show only when each fits its cell (a 13 x 13 matrix in a narrow pane
        keeps its colours and hover text)."""
        if not self.cell_values.labels or self.values is None:
            return
        vb = self.plot.getPlotItem().getViewBox()
        n_m, n_t = self.values.shape
        cell_w, cell_h = vb.width() / max(n_t, 1), vb.height() / max(n_m, 1)
        for decimals in (2, 1):
            widest, tallest = self.cell_values.text_size(decimals)
            if widest <= cell_w - 2 and tallest <= cell_h:
                self.cell_values.set_decimals(decimals)
                self.cell_values.setVisible(True)
                return
        self.cell_values.setVisible(False)

    def set_window(self, row: int, first_col: int, last_col: int) -> None:
        """Outline row `row` from column `first_col` to `last_col` (inclusive); row < 0 or an
        empty column range hides the outline."""
        if row < 0 or last_col < first_col or self.values is None:
            self.window_box.setVisible(False)
            return
        self.window_box.setRect(QRectF(first_col - 0.5, row - 0.5, last_col - first_col + 1,
                                       1.0))
        self.window_box.setVisible(True)

    def _on_scene_clicked(self, ev) -> None:
        if self.values is None or ev.button() != pg.QtCore.Qt.MouseButton.LeftButton:
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        pos = vb.mapSceneToView(ev.scenePos())
        row, col = int(round(pos.y())), int(round(pos.x()))
        if 0 <= row < self.values.shape[0] and 0 <= col < self.values.shape[1]:
            self.model_clicked.emit(row)

    def cell_text(self, row: int, col: int) -> str:
        """What hovering a cell says: the model, the test and the value (or that it is
        missing)."""
        if self.values is None or not (0 <= row < self.values.shape[0]
                                        and 0 <= col < self.values.shape[1]):
            return ""
        value = self.values[row, col]
        model = self.left.names[row] if row < len(self.left.names) else f"M{row}"
        test = self.bottom.names[col] if col < len(self.bottom.names) else f"t{col}"
        shown = f"{value:.2f}" if np.isfinite(value) else "missing"
        return f"s({model}, {test}) = {shown} {self.colour_bar.axis.labelText or ''}".strip()

    def _on_scene_moved(self, scene_pos) -> None:
        """The cell's value on hover: colours alone do not give numbers."""
        if self.values is None:
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            self.plot.setToolTip("")
            return
        pos = vb.mapSceneToView(scene_pos)
        self.plot.setToolTip(self.cell_text(int(round(pos.y())), int(round(pos.x()))))

    def cell_scene_position(self, row: int, col: int):
        """Scene position of a cell's centre (tests click there)."""
        vb = self.plot.getPlotItem().getViewBox()
        return vb.mapViewToScene(pg.Point(col, row))
