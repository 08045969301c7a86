"""The lecture's views beside DET, drawn from `llgui.core.detection.analysis`: ROC with AUC, score
histograms per class, Q-Q plots. Each follows the shared `ThresholdState` (the selected
system; a marker or line at the threshold). No arithmetic on scores here beyond choosing what
to draw: the numbers come from core functions tested against scikit-learn, numpy and scipy.
"""
from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget,
)

TEXT = "#222222"
TARGET = "#1f77b4"
NONTARGET = "#d62728"
THRESHOLD = "#444444"
QQ_POINTS = 200
"""Probabilities of a two-sample Q-Q plot."""
NORMAL_QQ_MAX_POINTS = 2000
"""A normal Q-Q plot draws at most this many of the sorted values (evenly spaced ranks)."""


def _plot(x_label: str, y_label: str) -> pg.PlotWidget:
    plot = pg.PlotWidget()
    plot.setBackground("w")
    item = plot.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.showGrid(x=True, y=True, alpha=0.25)
    for name in ("bottom", "left"):
        item.getAxis(name).setTextPen(TEXT)
        item.getAxis(name).enableAutoSIPrefix(False)
    item.setLabel("bottom", x_label)
    item.setLabel("left", y_label)
    return plot


class LectureViews(QTabWidget):
    """ROC, Histograms and Q-Q as tabs; `set_systems` gives the evaluated systems, the
    threshold state says which one and where."""

    def __init__(self, state, palette, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.palette = palette
        self.results: tuple = ()
        self.trials_by_name: dict = {}
        self.auc: dict[str, float] = {}
        self.draws = 0   # times every view was drawn (tests)
        self.roc_plot = _plot("False positive rate (P_fa)", "True positive rate (1 − P_miss)")
        self.hist_plot = _plot("score", "density")
        self.qq_plot = _plot("non-target score quantile", "target score quantile")
        self.normal_box = QCheckBox("normal Q-Q (against the standard normal)")
        self.normal_box.toggled.connect(lambda _on: self.draw_qq())
        self.versus_box = QComboBox()
        self.versus_box.setToolTip("target vs non-target scores of the selected system, or "
                                   "all its scores against another system's")
        self.versus_box.activated.connect(lambda _k: self.draw_qq())
        qq_page = QWidget()
        qq_layout = QVBoxLayout(qq_page)
        qq_layout.setContentsMargins(0, 0, 0, 0)
        options = QHBoxLayout()
        options.addWidget(QLabel("quantiles of"))
        options.addWidget(self.versus_box, 1)
        options.addWidget(self.normal_box)
        qq_layout.addLayout(options)
        qq_layout.addWidget(self.qq_plot, 1)
        self.addTab(self.roc_plot, "ROC")
        self.addTab(self.hist_plot, "Histograms")
        self.addTab(qq_page, "Q-Q")
        self.roc_legend = self.roc_plot.getPlotItem().addLegend(
            offset=(-8, -8), labelTextSize="8pt", labelTextColor=TEXT,
            brush=pg.mkBrush(255, 255, 255, 215))
        state.changed.connect(self._on_state_changed)

    def set_systems(self, results, trials_by_name, draw: bool = True) -> None:
        """The systems to draw; `draw=False` leaves the drawing to the caller (the tab, which
        has the threshold panel's change draw them once)."""
        from llgui.core.detection.analysis import roc

        self.results = tuple(results)
        self.trials_by_name = dict(trials_by_name)
        self.auc = {r.name: roc(r.curve).auc for r in self.results}
        self._fill_versus_box()
        if draw:
            self.draw_all()

    def _fill_versus_box(self) -> None:
        current = self.versus_box.currentData()
        self.versus_box.blockSignals(True)
        self.versus_box.clear()
        self.versus_box.addItem("targets against non-targets", None)
        for r in self.results:
            self.versus_box.addItem(f"all scores against {r.name}'s", r.name)
        k = self.versus_box.findData(current)
        self.versus_box.setCurrentIndex(max(k, 0))
        self.versus_box.blockSignals(False)

    def _selected(self):
        name = self.state.system
        result = next((r for r in self.results if r.name == name), None)
        return result, self.trials_by_name.get(name)

    def _colour(self, name: str) -> str:
        names = [r.name for r in self.results]
        k = names.index(name) if name in names else 0
        return self.palette[k % len(self.palette)]

    def _on_state_changed(self) -> None:
        self.draw_all()

    def draw_all(self) -> None:
        self.draws += 1
        self.draw_roc()
        self.draw_histograms()
        self.draw_qq()

    # -- ROC ------------------------------------------------------------------------------

    def draw_roc(self) -> None:
        from llgui.core.detection.analysis import at_threshold_curve, roc

        item = self.roc_plot.getPlotItem()
        item.clear()
        self.roc_legend.clear()
        item.plot([0, 1], [0, 1], pen=pg.mkPen("#999999", width=1, style=Qt.PenStyle.DashLine))
        selected, _ = self._selected()
        for r in self.results:
            curve = roc(r.plot_curve)
            width = 3 if selected is not None and r.name == selected.name else 1.5
            item.plot(curve.fpr, curve.tpr, pen=pg.mkPen(self._colour(r.name), width=width),
                      name=f"{html.escape(r.name)} — AUC {self.auc[r.name]:.4f}")
        if selected is not None and self.state.threshold is not None:
            at = at_threshold_curve(selected.curve, self.state.threshold)
            item.plot([at.p_fa], [at.tpr], pen=None, symbol="d", symbolSize=13,
                      symbolPen=pg.mkPen("k", width=1.5),
                      symbolBrush=pg.mkBrush(self._colour(selected.name)))
        item.setXRange(0, 1, padding=0.02)
        item.setYRange(0, 1, padding=0.02)
        item.setTitle("ROC on linear axes · ◆ the threshold", size="9pt", color=TEXT)

    # -- histograms -------------------------------------------------------------------------

    def draw_histograms(self) -> None:
        from llgui.core.detection.analysis import histograms_from_curve

        item = self.hist_plot.getPlotItem()
        item.clear()
        result, trials = self._selected()
        if result is None:
            item.setTitle("no system", size="9pt", color=TEXT)
            return
        # read off the DET curve's counts: equal to numpy.histogram of the scores, without a
        # pass over a million trials on the GUI thread at every threshold move
        h = histograms_from_curve(result.curve, bins=60)
        for values, colour, name in ((h.nontarget, NONTARGET, "non-target"),
                                     (h.target, TARGET, "target")):
            fill = pg.mkBrush(colour + "40")
            item.plot(h.edges, values, stepMode="center", fillLevel=0, brush=fill,
                      pen=pg.mkPen(colour, width=1.5), name=name)
        if self.state.threshold is not None:
            item.addItem(pg.InfiniteLine(self.state.threshold, angle=90,
                                         pen=pg.mkPen(THRESHOLD, width=1.5,
                                                      style=Qt.PenStyle.DashLine)))
        item.setTitle(f"{html.escape(result.name)}: "
                      f"<span style='color:{TARGET}'>targets ({result.n_target:,})</span>, "
                      f"<span style='color:{NONTARGET}'>non-targets ({result.n_nontarget:,})"
                      f"</span> · ┆ the threshold", size="9pt", color=TEXT)

    # -- Q-Q --------------------------------------------------------------------------------

    def draw_qq(self) -> None:
        from llgui.core.detection.analysis import normal_qq_from_curve, qq_from_curve
        from llgui.core.display.layout import diagonal_span

        item = self.qq_plot.getPlotItem()
        item.clear()
        result, _trials = self._selected()
        if result is None:
            return
        other = next((r for r in self.results if r.name == self.versus_box.currentData()),
                     None)
        if other is not None and not self.normal_box.isChecked():
            self._draw_qq_systems(item, result, other)
            return
        if self.normal_box.isChecked():
            item.setLabel("bottom", "standard normal quantile")
            item.setLabel("left", "score")
            for target, colour in ((False, NONTARGET), (True, TARGET)):
                theory, ordered = normal_qq_from_curve(result.curve, target,
                                                       NORMAL_QQ_MAX_POINTS)
                item.plot(theory, ordered, pen=None, symbol="o", symbolSize=4,
                          symbolPen=None, symbolBrush=pg.mkBrush(colour))
            item.setTitle(f"{html.escape(result.name)}: normal Q-Q per class (a straight line: "
                          "Gaussian scores; its slope is the spread)", size="9pt", color=TEXT)
            return
        item.setLabel("bottom", "non-target score quantile")
        item.setLabel("left", "target score quantile")
        p, q_non, q_tar = qq_from_curve(result.curve, QQ_POINTS)
        lo, hi = diagonal_span(q_non, q_tar)
        item.plot([lo, hi], [lo, hi], pen=pg.mkPen("#999999", width=1,
                                                   style=Qt.PenStyle.DashLine))
        item.plot(q_non, q_tar, pen=pg.mkPen(self._colour(result.name), width=1.5),
                  symbol="o", symbolSize=4, symbolPen=None,
                  symbolBrush=pg.mkBrush(self._colour(result.name)))
        if self.state.threshold is not None:
            for angle in (0, 90):
                item.addItem(pg.InfiniteLine(self.state.threshold, angle=angle,
                                             pen=pg.mkPen(THRESHOLD, width=1,
                                                          style=Qt.PenStyle.DotLine)))
        item.setTitle(f"{html.escape(result.name)}: target vs non-target quantiles at "
                      f"{QQ_POINTS} probabilities (dashed: equal distributions; parallel to "
                      "it: a shift)", size="9pt", color=TEXT)

    def _draw_qq_systems(self, item, result, other) -> None:
        """All scores of the selected system against all scores of another."""
        from llgui.core.detection.analysis import qq_curves
        from llgui.core.display.layout import diagonal_span

        name = result.name
        item.setLabel("bottom", f"{html.escape(other.name)} score quantile")
        item.setLabel("left", f"{html.escape(name)} score quantile")
        _p, q_other, q_this = qq_curves(other.curve, result.curve, QQ_POINTS)
        lo, hi = diagonal_span(q_other, q_this)
        item.plot([lo, hi], [lo, hi], pen=pg.mkPen("#999999", width=1,
                                                   style=Qt.PenStyle.DashLine))
        colour = self._colour(name)
        item.plot(q_other, q_this, pen=pg.mkPen(colour, width=1.5), symbol="o", symbolSize=4,
                  symbolPen=None, symbolBrush=pg.mkBrush(colour))
        item.setTitle(f"{html.escape(name)} against {html.escape(other.name)}: quantiles of "
                      f"all scores at {QQ_POINTS} probabilities", size="9pt", color=TEXT)
