"""S_P bands and ACC / BWT / FWT intervals for the Across-time tab (DESIGN 1.7).

`LifelongBands` owns an "S_P band (95 %)" check box. When it is on, a worker
(JobRunner key "lifelong:bands", newest wins) resamples the test times of the score table with
one set of indices for every cell (`llgui.core.significance.across_time.lifelong_intervals`); the S_P
curve is drawn at once by the tab, the band (2.5-97.5 percentiles of S_P per model) and the
ACC / BWT / FWT intervals when the job is done. A policy drag does not ask for a band (only
its release does), so dragging stays as cheap as before.
"""
from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QLabel

KEY = "lifelong:bands"
SAMPLES = 1000
SEED = 12345


class LifelongBands(QObject):
    def __init__(self, tab) -> None:
        super().__init__(tab)
        self.tab = tab
        self.result = None
        self.requests = 0
        self._band_items: list = []
        self.box = QCheckBox("S_P band (95 %)")
        self.box.setToolTip("bootstrap of the test times, the same indices for every model "
                            f"(paired): bs:{SAMPLES}|seed:{SEED}|unit:test")
        self.box.toggled.connect(self._on_box_toggled)
        self.label = QLabel("")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setMaximumWidth(260)
        tab.jobs.result_ready.connect(self._on_jobs_result_ready)
        tab.state.policy_changed.connect(self.request)

    @Slot()
    def request(self) -> int | None:
        """Recompute on a worker for the tab's table, metric and the state's policy."""
        self._clear()
        table = self.tab.table()
        metric = self.tab.table_metric
        if not self.box.isChecked() or table is None or metric is None:
            self.tab.jobs.cancel(KEY)
            self.label.setText("")
            return None
        from llgui.core.significance.resample import Plan
        from llgui.gui.jobs.across_time import bands_job

        self.requests += 1
        self.label.setText("<small>intervals: computing…</small>")
        return self.tab.jobs.submit(KEY, bands_job, table, metric, self.tab.state.policy,
                                    Plan("bs", SAMPLES, SEED, "document"))

    @Slot(bool)
    def _on_box_toggled(self, _on: bool) -> None:
        self.request()

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key != KEY:
            return
        self.result = result
        self._draw()

    def _clear(self) -> None:
        item = self.tab.sp_plot.getPlotItem()
        for band in self._band_items:
            item.removeItem(band)
        self._band_items = []

    def _draw(self) -> None:
        self._clear()
        r = self.result
        table = self.tab.table()
        if r is None or table is None or not self.box.isChecked():
            return
        x = table.model_time_values()
        item = self.tab.sp_plot.getPlotItem()
        colour = QColor("#1f77b4")
        fill = QColor(colour)
        fill.setAlpha(45)
        pen = pg.mkPen(colour, width=1, style=Qt.PenStyle.DotLine)
        low = pg.PlotDataItem(x, r.s_p_low, pen=pen)
        high = pg.PlotDataItem(x, r.s_p_high, pen=pen)
        band = pg.FillBetweenItem(low, high, brush=pg.mkBrush(fill))
        for part in (low, high, band):
            item.addItem(part)
        self._band_items = [low, high, band]

        def f(e) -> str:
            if e.mean is None or math.isnan(e.score):
                return "–"
            return f"{e.score:.2f} ({e.mean:.2f} ± {e.ci:.2f})"

        self.label.setText(
            f"<small><b>95 % intervals</b> ({html.escape(r.signature)})<br>ACC {f(r.acc)}<br>"
            f"BWT {f(r.bwt)}<br>FWT {f(r.fwt)}<br>band: S_P of the current policy, "
            f"2.5–97.5 % of the resamples</small>")

