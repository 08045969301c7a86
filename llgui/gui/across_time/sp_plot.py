"""S_P of every model version under the policy (equations 2 and 3), the presets' and the
other campaign systems' S_P, and the continual-learning summary beside it (DESIGN.md 1.4, 1.5).
A mixin of `AcrossTimeTab`, whose widgets it uses; the numbers come from
`core.across_time.scores`.
"""
from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import Qt

from llgui.core.display.layout import finite_extent, nearest_index, pad_range
from llgui.core.across_time.scores import continual_summary, policy_scores
from llgui.core.across_time.policy import PRESETS, Policy
from llgui.core.metrics import display_name, higher_is_better
from llgui.gui.across_time.plots import MAX_NAMED_SYSTEMS, MAX_SYMBOLS, SYSTEM_COLOURS, TEXT
from llgui.gui.across_time.policy_item import CURVE

PRESET_COLOURS = {"A": "#5d6d7e", "B": "#95a5a6", "C": "#2e4053"}
"""Greys, told apart by marker and dash: the campaign's systems own the colours (A's teal and
C's sienna read as the campaign's teal and red systems)."""
PRESET_SHORT = {"A": "contemporary", "B": "uniform", "C": "past"}   # legend; tooltips say more
PEN_COLOUR = "#8e44ad"


class PolicyScoresView:
    """The S_P plot and the continual-learning summary of the tab."""

    def _show_policy_scores(self, policy: Policy | None = None) -> None:
        """S_P of every model version under `policy` (default: the state's), the presets, and
        S_P of the penalised scores; fast enough to run on every drag signal."""
        policy = self.state.policy if policy is None else policy
        item = self.sp_plot.getPlotItem()
        table = self.table()
        if table is None or self.table_metric is None:
            item.clear()
            item.setTitle("this bundle has no [lifelong] score table", size="9pt", color=TEXT)
            self.shown_sp = {"policy": None, "s_p": None, "s_p_pen": None}
            return
        x = table.model_time_values()
        s_p = policy_scores(table, self.table_metric, policy)
        has_pen = self.table_metric in table.values_pen
        s_p_pen = (policy_scores(table, self.table_metric, policy, penalised=True)
                   if has_pen and self.penalised_box.isChecked() else None)
        self.shown_sp = {"policy": policy, "s_p": s_p, "s_p_pen": s_p_pen, "systems": {}}
        curves = getattr(self, "_sp_curves", None)
        if (curves is None or curves.get("table") is not table
                or curves.get("metric") != self.table_metric
                or curves.get("campaign") is not self.campaign_tables):
            curves = self._build_sp_curves(table)
        curves["current"].setData(x, s_p)
        others = []
        for name, other, curve in curves.get("systems", ()):
            values = policy_scores(other, self.table_metric, policy)
            curve.setData(other.model_time_values(), values)
            self.shown_sp["systems"][name] = values
            others.append(values)
        if 0 <= self.system_index < len(self.campaign_tables):
            self.shown_sp["systems"][self.campaign_tables[self.system_index][0]] = s_p
        curves["others"] = others
        self._fit_sp_range(curves, s_p, s_p_pen, dragging=policy is not self.state.policy)
        name = self._current_name()
        if curves.get("name") != name:
            label = self.sp_plot.getPlotItem().legend.getLabel(curves["current"])
            if label is not None:
                label.setText(name)
            curves["name"] = name
        legend = self.sp_plot.getPlotItem().legend
        if s_p_pen is not None:
            curves["pen"].setData(x, s_p_pen)
            curves["pen"].show()
            if legend is not None and legend.getLabel(curves["pen"]) is None:
                legend.addItem(curves["pen"], "current, penalised (eq. 3)")
        else:
            curves["pen"].setData([], [])
            curves["pen"].hide()
            # no entry for a curve that is not drawn (pyqtgraph showed a hidden one as ⊘)
            if legend is not None and legend.getLabel(curves["pen"]) is not None:
                legend.removeItem(curves["pen"])
        self.penalised_box.setEnabled(has_pen)
        # greyed means off: a table without penalised scores shows the box unticked (the
        # choice made where it applies is kept for when it does)
        if not has_pen and self.penalised_box.isChecked():
            self._pen_wanted = True
            self.penalised_box.blockSignals(True)
            self.penalised_box.setChecked(False)
            self.penalised_box.blockSignals(False)
        elif has_pen and getattr(self, "_pen_wanted", False):
            self._pen_wanted = False
            self.penalised_box.blockSignals(True)
            self.penalised_box.setChecked(True)
            self.penalised_box.blockSignals(False)
        self.penalised_box.setToolTip(
            "also weigh the table's value_pen column (S_pen of each cell), equation 3" if has_pen
            else "this table has no penalised scores (value_pen): a campaign's output-only "
                 "cells have none")

    def _fit_sp_range(self, curves: dict, s_p, s_p_pen, dragging: bool) -> None:
        """Y range over every S_P curve with headroom at the top for the legend. While
        dragging it only grows (a plot that rescales under the mouse is hard to read)."""
        values = [*curves["presets"], s_p] + ([s_p_pen] if s_p_pen is not None else [])
        values += list(curves.get("others", ()))
        extent = finite_extent(values)
        if extent is None:
            return
        lo, hi = extent
        want = pad_range(lo, hi, 0.06, 0.06, least=1e-6)
        vb = self.sp_plot.getPlotItem().getViewBox()
        if dragging:
            (cur_lo, cur_hi) = vb.viewRange()[1]
            if lo >= cur_lo and hi <= cur_hi:
                return
            want = (min(want[0], cur_lo), max(want[1], cur_hi))
        vb.setYRange(*want, padding=0)

    def _build_sp_curves(self, table) -> dict:
        item = self.sp_plot.getPlotItem()
        item.clear()
        if item.legend is not None:
            item.legend.clear()
        x = table.model_time_values()
        dates = self._dates()
        # model versions at whole-number times (1, 2, 3) ticked on whole numbers only, not at
        # 1.5 and 2.5 (outsider helper-56)
        whole = not dates and len(x) > 0 and all(float(v).is_integer() for v in x)
        self._set_time_axis(self.sp_plot, dates, "model time lᵢ" + (" (UTC)" if dates else ""),
                            whole)
        unit = display_name(self.table_metric)
        better = higher_is_better(self.table_metric)
        item.setLabel("left", f"S_P ({unit}, %)")
        direction = {True: "higher is better", False: "lower is better"}.get(better, "")
        item.setTitle(f"S_P(M<sub>i</sub>) = Σ<sub>t<sub>j</sub> ∈ [l<sub>1</sub>, "
                      f"l<sub>i</sub>]</sub> s(M<sub>i</sub>, t<sub>j</sub>)·P(t<sub>j</sub>)"
                      f" — {direction}", size="9pt", color=TEXT)
        preset_values = []
        few = len(x) <= MAX_SYMBOLS
        for letter, preset in PRESETS.items():
            values = policy_scores(table, self.table_metric, preset)
            preset_values.append(values)
            item.plot(x, values, pen=pg.mkPen(PRESET_COLOURS[letter], width=1.5,
                                              style=Qt.PenStyle.DashLine),
                      symbol=({"A": "t", "B": "s", "C": "d"}[letter] if few else None),
                      symbolSize=6, symbolBrush=PRESET_COLOURS[letter], symbolPen=None,
                      name=f"{letter} ({PRESET_SHORT[letter]})")
        pen_curve = item.plot([], [], pen=pg.mkPen(PEN_COLOUR, width=2.5,
                                                   style=Qt.PenStyle.DashDotLine),
                              symbol="o" if few else None, symbolSize=6,
                              symbolBrush=PEN_COLOUR, symbolPen=None,
                              name="current, penalised (eq. 3)")
        # Clicking a point of the current curve selects that model (symbols make it hittable;
        # without them the heatmap rows still select).
        colour, marker = CURVE, "o"
        if 0 <= self.system_index < len(self.campaign_tables):
            # a campaign's system in its own colour and marker, as in the Systems tab
            from llgui.gui.widgets.system_legend import campaign_system_style

            colour, marker, _dash = campaign_system_style(
                self.campaign_tables[self.system_index][0], [n for n, _ in self.campaign_tables])
        current = item.plot([], [], pen=pg.mkPen(colour, width=3),
                            symbol=marker if few else None, symbolSize=8,
                            symbolBrush=colour, symbolPen=pg.mkPen("w"),
                            name=self._current_name())
        current.sigPointsClicked.connect(self._on_sp_points_clicked)
        systems = []
        if 0 <= self.system_index < len(self.campaign_tables):
            from llgui.gui.widgets.system_legend import campaign_system_style

            others = [(name, other) for k, (name, other) in enumerate(self.campaign_tables)
                      if k != self.system_index and self.table_metric in other.metrics]
            # many systems: colour + marker + line style apart, named on hover and in one
            # legend entry (21 entries covered the plot, issue 35)
            many = len(others) > MAX_NAMED_SYSTEMS
            for name, other in others:
                colour, symbol, dash = campaign_system_style(
                    name, [n for n, _ in self.campaign_tables])
                curve = item.plot([], [], pen=pg.mkPen(colour, width=2 if not many else 1.2,
                                                       style=dash),
                                  symbol=symbol if few or many else None,
                                  symbolSize=5 if not many else 7, symbolBrush=colour,
                                  symbolPen=None,
                                  name=None if many else f"{html.escape(name)} (current policy)")
                if many:
                    curve.scatter.opts.update(
                        hoverable=True, tip=lambda x, y, data, name=name: f"{name}: {y:.2f}")
                    curve.scatter.setAcceptHoverEvents(True)
                    curve.setToolTip(name)
                systems.append((name, other, curve))
            if many and item.legend is not None:
                item.legend.addItem(pg.PlotDataItem([], [], pen=pg.mkPen("#888888")),
                                    f"{len(others)} other systems: hover for names")
                item.legend.setToolTip("the other systems' S_P under the current policy, "
                                       "told apart by colour, marker and line style; hover "
                                       "a point for its system")
        item.addItem(self.selected_line)
        self._sp_curves = {"table": table, "metric": self.table_metric, "current": current,
                           "pen": pen_curve, "name": self._current_name(),
                           "presets": tuple(preset_values), "systems": systems,
                           "campaign": self.campaign_tables}
        return self._sp_curves

    def _current_name(self) -> str:
        """Legend of the current S_P curve: the policy, and the system of a campaign."""
        if 0 <= self.system_index < len(self.campaign_tables):
            name = html.escape(self.campaign_tables[self.system_index][0])
            return f"{name}: current {self.state.policy_name}"
        return f"current: {self.state.policy_name}"

    def _on_sp_points_clicked(self, _curve, points, _ev=None) -> None:
        table = self.table()
        if table is None or not len(points):
            return
        row = nearest_index(table.model_time_values(), points[0].pos().x())
        self.select_model(row)

    def _show_summary(self) -> None:
        table = self.table()
        if table is None or self.table_metric is None:
            self.summary.setText("")
            return
        better = higher_is_better(self.table_metric)
        rows = [("scores", continual_summary(table, self.table_metric, higher_is_better=better))]
        if self.table_metric in table.values_pen:
            rows.append(("penalised", continual_summary(table, self.table_metric, penalised=True,
                                                        higher_is_better=better)))

        def f(v: float) -> str:
            return "–" if v is None or math.isnan(v) else f"{v:+.2f}" if v < 0 else f"{v:.2f}"

        header = "".join(f"<th align='right'>{name}</th>" for name, _ in rows)
        body = "".join(
            f"<tr><td>{label}</td>" + "".join(f"<td align='right'>{f(getattr(s, attr))}</td>"
                                              for _, s in rows) + "</tr>"
            for label, attr in (("ACC", "acc"), ("BWT", "bwt"), ("FWT", "fwt"),
                                ("forgetting", "forgetting"),
                                ("learning acc.", "learning_accuracy")))
        s = rows[0][1]
        if s.higher_is_better is False:
            sign = ("lower is better: <b>BWT &gt; 0</b> means forgetting (the error "
                    "on old tests grew), <b>FWT &lt; 0</b> positive transfer.")
        elif s.higher_is_better:
            sign = ("higher is better: <b>BWT &lt; 0</b> means forgetting, "
                    "<b>FWT &gt; 0</b> positive transfer.")
        else:
            sign = "metric direction unknown."
        self.summary.setText(
            f"<b>Continual-learning summary</b>"
            + (f" of <b>{html.escape(self.table_source())}</b>" if self.table_source() else "")
            + f" ({html.escape(display_name(self.table_metric))})"
            f"<table cellspacing='4'><tr><th></th>{header}</tr>{body}</table>"
            f"<small>BWT, FWT: later − earlier, in the metric's units; {sign} "
            f"<b>Forgetting &gt; 0</b>: the last model is worse than the best before it. Hover "
            f"for the definitions.</small>")
        self.summary.setToolTip(
            f"<small>Lopez-Paz &amp; Ranzato (2017), over tests: ACC = mean of s(M<sub>last"
            f"</sub>, t<sub>j</sub>); BWT = mean of s(M<sub>last</sub>, t<sub>j</sub>) − "
            f"s(M<sub>i(j)</sub>, t<sub>j</sub>) ({s.n_bwt} tests); FWT = mean of "
            f"s(M<sub>i(j)−1</sub>, t<sub>j</sub>) − s(M<sub>0</sub>, t<sub>j</sub>) "
            f"({s.n_fwt} tests; against the {html.escape(s.fwt_baseline)}, where GEM has a random "
            f"model); forgetting (Chaudhry et al. 2018) = mean shortfall of s(M<sub>last</sub>, t<sub>j</sub>)"
            f" against the best earlier s(M<sub>i</sub>, t<sub>j</sub>), i ≥ i(j), positive when "
            f"worse ({s.n_forgetting} tests);"
            f" learning acc. (Riemer et al. 2019) = mean of s(M<sub>i(j)</sub>, t<sub>j</sub>) "
            f"({s.n_learning} tests); M<sub>i(j)</sub> is the first model at or after t<sub>j</sub>. "
            f"Differences are later − earlier in the metric's units; {sign}</small>")
