"""The per-document time series of the Across-time tab: S_base, S_adapt and S_pen of each
document in processing order, the lifelong table's diagonal, other systems' S_pen, and the
cumulative human cost below (DESIGN.md 1.5). A mixin of `AcrossTimeTab`, whose widgets it
uses; the scores come from the main window's collection jobs (`penalty.BundleReplay`).
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from llgui.core.display.layout import finite_extent, pad_range
from llgui.core.across_time.scores import diagonal
from llgui.core.metrics import display_name
from llgui.gui.across_time.plots import MAX_NAMED_SYSTEMS, SYSTEM_COLOURS, TEXT

SERIES_COLOURS = {"s_base": "#7f8c8d", "s_adapt": "#27ae60", "s_pen": "#8e44ad"}
DIAGONAL_COLOUR = "#e67e22"
COST_COLOUR = "#34495e"


class DocumentSeriesView:
    """The tab's per-document plots and clicks on their points."""

    def _show_series(self) -> None:
        item = self.series_plot.getPlotItem()
        cost_item = self.cost_plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        cost_item.clear()
        self.series_points = {}
        bundle = self.bundle()
        if bundle is None:
            # say why, not an empty plot with 0-1 ticks (issue 35)
            item.setTitle("no bundle: open one to see its documents over time",
                          size="9pt", color=TEXT)
            for plot in (self.series_plot, self.cost_plot):
                for side in ("left", "bottom"):
                    plot.getPlotItem().getAxis(side).setStyle(showValues=False)
            return
        for side in ("left",):
            item.getAxis(side).setStyle(showValues=True)
            cost_item.getAxis(side).setStyle(showValues=True)
        cost_item.getAxis("bottom").setStyle(showValues=True)
        dates = bool(bundle.documents and bundle.documents[0].time.is_date) or self._dates()
        clock = dates and any("T" in d.time.text or " " in d.time.text.strip()
                              for d in bundle.documents)
        label = "time" + (" (UTC)" if clock else "")   # plain dates have no time zone
        whole = not dates and all(float(d.time.value).is_integer() for d in bundle.documents)
        self._set_time_axis(self.series_plot, dates, "", whole)
        self._set_time_axis(self.cost_plot, dates, label, whole)
        self.series_plot.getPlotItem().getAxis("bottom").setStyle(showValues=False)
        result = self.collections.get(self.bundle_index)
        table = self.table()
        names = []
        if result is not None and result.replays:
            series = result.series()
            x = series.times
            names.append(display_name(result.metric))
            for attr, label_text in (("s_base", "S_base"), ("s_adapt", "S_adapt"),
                                     ("s_pen", "S_pen")):
                y = getattr(series, attr)
                colour = SERIES_COLOURS[attr]
                line = item.plot(x, y, pen=pg.mkPen(colour, width=2 if attr == "s_pen" else 1.5),
                                 symbol="o", symbolSize=9, symbolBrush=colour,
                                 symbolPen=pg.mkPen("w"), data=list(series.docs),
                                 name=f"{label_text} per document ({display_name(result.metric)})")
                line.sigPointsClicked.connect(self._on_series_points_clicked)
                if attr == "s_pen":
                    self.series_points = {d: (float(a), float(b))
                                          for d, a, b in zip(series.docs, x, y)}
                    none = series.n_steps == 0
                    if none.any():   # S_pen = S_base there by construction: no result
                        item.plot(x[none], y[none], pen=None, symbol="o", symbolSize=15,
                                  symbolBrush=None, symbolPen=pg.mkPen(colour, width=1.5,
                                                                       style=Qt.PenStyle.DotLine),
                                  name="(no steps): no penalised result")
            self._overlay_other_systems(item, bundle, result)
            cost = series.cum_cost
            unit = result.cost_unit or ("words" if bundle.task == "mt" else "seconds listened")
            cost_line = cost_item.plot(x, cost, pen=pg.mkPen(COST_COLOUR, width=1.5),
                                       symbol="s", symbolSize=7, symbolBrush=COST_COLOUR,
                                       data=list(series.docs))
            cost_line.sigPointsClicked.connect(self._on_series_points_clicked)
            # no cost at all: an axis from 0 (a cost is never negative; pyqtgraph centred the
            # flat line on -0.4..0.4, outsider helper-56)
            spent = finite_extent([cost])
            if spent is not None and spent[1] <= 0:
                cost_item.setYRange(0, 1, padding=0)
            else:
                cost_item.enableAutoRange(axis="y")
            cost_item.setTitle(f"cumulative human cost ({unit})", size="8pt", color=TEXT)
        elif bundle.documents:
            item.setTitle("scoring the documents…", size="9pt", color=TEXT)
        in_table = None   # the lifelong table's diagonal: (model times, values)
        if table is not None and self.table_metric is not None:
            values = diagonal(table, self.table_metric)
            in_table = (np.asarray(table.model_time_values(), dtype=float),
                        np.asarray(values, dtype=float))
            item.plot(table.model_time_values(), values,
                      pen=pg.mkPen(DIAGONAL_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                      symbol="t1", symbolSize=8, symbolBrush=DIAGONAL_COLOUR, symbolPen=None,
                      name=f"s(M<sub>i</sub>, l<sub>i</sub>), lifelong table "
                           f"({display_name(self.table_metric)})")
            names.append(display_name(self.table_metric))
        if result is not None and result.replays:
            # Open on the documents (the points one clicks); the diagonal may span a longer
            # period: the wheel zooms out, the plot's "A" button shows everything.
            lo, hi = float(min(result.times)), float(max(result.times))
            pad = max(0.08 * (hi - lo), 3 * 86400.0 if dates else 0.5)
            item.setXRange(lo - pad, hi + pad, padding=0)
            # every series drawn in the time shown: the other systems' S_pen and the table's
            # points there too (outsider helper-56: a TER table's diagonal lay wholly outside
            # a range fitted to the documents alone, a stray segment listed in the legend)
            shown = [getattr(series, a) for a in ("s_base", "s_adapt", "s_pen")]
            shown += list(getattr(self, "series_others", {}).values())
            if in_table is not None:
                near = (in_table[0] >= lo - pad) & (in_table[0] <= hi + pad)
                shown.append(in_table[1][near])
            extent = finite_extent(shown)
            self._series_extent = extent
            if extent is not None:
                self._fit_series_range()
                if not getattr(self, "_series_fit", False):
                    self._series_fit = True
                    item.getViewBox().sigResized.connect(self._fit_series_range)
        unique = sorted(set(names))
        item.setLabel("left", f"{' / '.join(unique)} (%)" if unique else "score (%)")
        if result is not None:
            if getattr(self, "series_title", None) is None:
                from llgui.gui.widgets.fit_title import FittedTitle

                # on two lines where one is cut (1366 px)
                self.series_title = FittedTitle(self.series_plot, 9, TEXT)
            self.series_title.set(["per document, in processing order",
                                   "click a point to open it in the workbench (wheel: zoom)"])

    def _overlay_other_systems(self, item, bundle, result) -> None:
        """The other open bundles of the same task (other systems on the same documents),
        their S_pen per document in the same metric, over this one's (issue 35: two systems
        were never drawn together here)."""
        from llgui.gui.widgets.system_legend import system_style

        self.series_others = {}
        drawn = 0
        for k, other in enumerate(self.state.bundles):
            theirs = self.collections.get(k)
            if (k == self.bundle_index or other.task != bundle.task or theirs is None
                    or not theirs.replays or theirs.metric != result.metric
                    or drawn >= MAX_NAMED_SYSTEMS):
                continue
            series = theirs.series()
            colour, symbol, dash = system_style(drawn, SYSTEM_COLOURS)
            name = other.name or Path(other.path or "").stem
            item.plot(series.times, series.s_pen, pen=pg.mkPen(colour, width=1.2, style=dash),
                      symbol=symbol, symbolSize=7, symbolBrush=colour, symbolPen=None,
                      name=f"{html.escape(name)}: S_pen")
            self.series_others[name] = series.s_pen
            drawn += 1

    def _fit_series_range(self, *_) -> None:
        """The scores' range with a margin (the legend is under the plot, not over it)."""
        extent = getattr(self, "_series_extent", None)
        if extent is None:
            return
        self.series_plot.getPlotItem().setYRange(*pad_range(*extent, 0.08, 0.08, least=1.0),
                                                 padding=0)

    def _on_series_points_clicked(self, _curve, points, _ev=None) -> None:
        if not len(points):
            return
        doc = points[0].data()
        if doc is None:
            return
        self.open_document(str(doc))

    def open_document(self, doc: str) -> None:
        """Select a document of the shown bundle and show it in the workbench."""
        self.state.select(self.bundle_index, doc)
        self.window_.show_tab("workbench")

    def document_scene_position(self, doc: str):
        """Scene position of a document's S_pen point in the time series (tests click it)."""
        x, y = self.series_points[doc]
        return self.series_plot.getPlotItem().getViewBox().mapViewToScene(pg.Point(x, y))
