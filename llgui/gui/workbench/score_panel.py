"""Score panel: the step's scores as in figure 4 of the LREC paper, and the learning curve.

Left: bars for S_base, S_cor, S_imp and the penalised score, drawn as S_adapt (solid) with the
accumulated penalty Σ(S_imp − S_cor) hatched on top (error rates) or cut from the top (BLEU,
chrF). Right: S_adapt and S_pen against cumulative cost (figure 2), the current step marked,
with the curve's normalised area and the Minimal Supervision Rate.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem, QGraphicsScene, QSplitter, QVBoxLayout, QWidget,
)

from llgui.core.display.score_bars import step_axes, step_curve_x
from llgui.core.display.signed import signed
from llgui.core.walkthrough import Walkthrough
from llgui.core.metrics import display_name, is_percent
from llgui.gui.widgets.doc_label import DocLabel
from llgui.gui.widgets.plot_range import quiet_hidden_axes, set_tip
from llgui.gui.widgets.quiet_label import QuietBox
from llgui.gui.workbench.penalty_chart import ADAPT, BASE, PEN, PenaltyChart

QUESTION_BETTER = QColor(0, 120, 60)     # the steps table's better / worse colours
QUESTION_WORSE = QColor(180, 30, 30)


class ScorePanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.bars = PenaltyChart()
        self.curve = pg.PlotWidget()
        self.curve.setBackground("w")
        # items move at every step: no spatial index to keep up to date
        self.curve.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.curve.getPlotItem().setMenuEnabled(False)
        quiet_hidden_axes(self.curve.getPlotItem())
        self.numbers = DocLabel("", selectable=True)   # laid out ahead (`prepare`)
        # two lines, fixed: a new text never relayouts (and repaints) the whole window
        self.numbers.setFixedHeight(2 * self.numbers.fontMetrics().lineSpacing() + 6)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.bars)
        plots.addWidget(self.curve)
        # the bars hold five values under them: as wide as the curve (at 1366x768 they were
        # 30 px a bar, narrower than "46.19")
        plots.setStretchFactor(0, 1)
        plots.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QuietBox(self.numbers))   # its text never relayouts the window
        layout.addWidget(plots, 1)
        self.shown: dict[str, float | None] = {}   # the numbers on screen, for tests

    def show_step(self, walk: Walkthrough, step: int, curve: bool = True) -> None:
        """The step's numbers and bars, and (`curve`) its place on the learning curve."""
        r = walk.replay
        view = r.at(step)          # the numbers come from core; this panel only draws them
        values = view.as_dict()
        self.shown = values
        self.numbers.setText(self._numbers_text(r, step))
        set_tip(self.numbers, ("higher" if r.higher_is_better else "lower")
                + f" is better · {r.signature}")
        self._fit_numbers()   # a narrow window wraps them to a third line
        self._draw_bars(r, values, self._axis_before(r, step))
        if curve:
            self._draw_curve(walk, step)

    def prepare(self, walk: Walkthrough, step: int) -> None:
        """Step `step`'s numbers laid out and its bars painted ahead of it
        (`DocLabel.prepare`, `PenaltyChart.prepare`)."""
        r = walk.replay
        self.numbers.prepare(self._numbers_text(r, step))
        self.bars.prepare(r.at(step).as_dict(), self._axis_before(r, step),
                          display_name(r.metric), "%" if is_percent(r.metric) else None)

    @staticmethod
    def _numbers_text(r, step: int) -> str:
        """The numbers above the plots at step `step` of replay `r`."""
        unit = display_name(r.metric)
        view = r.at(step)
        values = view.as_dict()
        better = "↑" if r.higher_is_better else "↓"   # the tooltip says it in words

        def f(v):
            return "–" if v is None else f"{v:.2f}"

        memo = ""
        if view.net_generalisation is not None:
            # net generalisation: what the run gained over only applying the corrections
            memo = (f" · S<sub>pen</sub>&nbsp;memorise-only&nbsp;{f(values['s_pen_memorise'])}"
                    f" (net&nbsp;gen.&nbsp;<b>{signed(view.net_generalisation)}</b>)")
        # a name and its value never part at a line end (1366x768 wrapped "Σ | 163.0")
        return (f"<b>{unit}</b> {better} step&nbsp;{step}/{len(r.steps)}: "
                f"S<sub>base</sub>&nbsp;<b>{f(values['s_base'])}</b> · S<sub>cor</sub>&nbsp;"
                f"<b>{f(values['s_cor'])}</b> · S<sub>imp</sub>&nbsp;<b>{f(values['s_imp'])}</b> "
                f"· S<sub>adapt</sub>&nbsp;<b>{f(values['s_adapt'])}</b> · S<sub>pen</sub>&nbsp;"
                f"<b>{f(values['s_pen'])}</b> (Σ&nbsp;pen.&nbsp;{signed(view.penalty)}){memo} · "
                f"cost&nbsp;{values['cost']:.1f}, Σ&nbsp;{values['cum_cost']:.1f}")

    def draw_curve(self, walk: Walkthrough, step: int) -> None:
        """The learning curve of `walk`, the step marked (a new document's: after its bars
        have painted, `Workbench._draw_pending`)."""
        self._draw_curve(walk, step)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_numbers()

    def _fit_numbers(self) -> None:
        """The numbers above the plots whole at this width: the label grows to the lines it
        needs (never shrinks: a height that follows the text would relayout every step). The
        new text is laid out here, before its paint: a rich-text label that lays its text out
        in its paint asks there for a second paint of itself (`quiet_label.lay_out`), which
        it did at every step while a bound spared this layout (issue 36)."""
        width = max(self.numbers.width(), 1)
        needed = self.numbers.heightForWidth(width)
        if needed > self.numbers.height():
            self.numbers.setFixedHeight(needed)

    def _axis_before(self, r, step: int) -> tuple[float, float] | None:
        """The bars' value axis at step `step - 1` of replay `r` (`step_axes`: each step keeps
        the last one's while it fits), made once per replay up to the furthest step shown."""
        if step <= 0:
            return None
        if getattr(self, "_axes_of", None) is not r:
            self._axes_of, self._axes = r, []
        if len(self._axes) < step:
            step_axes([r.at(k).as_dict() for k in range(len(self._axes), step)], self._axes)
        return self._axes[step - 1]

    def _draw_bars(self, r, v, keep: tuple[float, float] | None = None) -> None:
        # Figure 4: the penalised score is S_adapt (solid) with the accumulated penalty
        # hatched: stacked on top for error rates, cut from the top for BLEU/chrF. The value
        # axis is kept from the step before while it fits (`_axis_before`): the bars of
        # consecutive steps against one axis.
        self.bars.set_step(v, keep, display_name(r.metric),
                           "%" if is_percent(r.metric) else None)   # DCFs: plain
        set_tip(self.bars, "S_base, S_cor and S_imp of the step, their values under the "
                "bars. The step's penalty S_imp − S_cor is the dashed part of "
                "the imp bar, bracketed, its value above it. pen: S_pen drawn as "
                "S_adapt (solid) with the accumulated penalty Σ(S_imp − S_cor) "
                "hatched (added on top for error rates, cut from the top for "
                "BLEU/chrF), Σ above it. mem. (dashed): the memorise-only S_pen, "
                "had the system only applied the corrections (S_adapt,n = "
                "S_cor,n); the difference to S_pen is its net generalisation. "
                "A cut axis (not from 0) is said on the axis and drawn as broken "
                "bar feet")

    @property
    def bar_geometry(self):
        """The step's bars as drawn (`PenaltyBars`), None before a step."""
        return self.bars.geometry_

    @property
    def y_range(self):
        geometry = self.bars.geometry_
        return None if geometry is None else geometry.y_range

    def _draw_curve(self, walk: Walkthrough, step: int) -> None:
        r = walk.replay
        item = self.curve.getPlotItem()
        marker = getattr(self, "_marker", None)
        if marker is not None and getattr(self, "_curve_of", None) is walk:
            # same document: only the step's marker moves (the curves are 1,000s of points,
            # not even read again: the step's corner is its cumulative cost and S_adapt)
            at = r.at(step)
            marker.setPos(at.cum_cost, at.s_adapt)
            self._curve_title(r, step)
            return
        costs, adapt = r.curve()
        item.clear()
        _, pen_scores = r.pen_curve()
        # step functions: each score holds from its cost until the next step
        xs = step_curve_x(costs)
        item.plot(xs, adapt, stepMode="center", pen=pg.mkPen(ADAPT, width=2))
        item.plot(xs, pen_scores, stepMode="center",
                  pen=pg.mkPen(PEN, width=2, style=Qt.PenStyle.DashLine))
        item.addItem(pg.InfiniteLine(r.s_base, angle=0,
                                     pen=pg.mkPen(BASE, style=Qt.PenStyle.DotLine)))
        self._draw_questions(walk, item, costs, adapt)
        self._kept_drawn(item)
        self._add_marker(item, walk, costs[step], adapt[step])
        self._curve_of = walk
        labels = ("cumulative cost (" + _cost_unit(walk) + ")", display_name(r.metric))
        if getattr(self, "_curve_labels", None) != labels:
            # only when they change: a new label relayouts the plot (axes, title), ~10 ms
            self._curve_labels = labels
            item.setLabel("bottom", labels[0])
            item.setLabel("left", labels[1], units="%" if is_percent(r.metric) else None)
            item.getAxis("left").enableAutoSIPrefix(False)
            item.getAxis("bottom").enableAutoSIPrefix(False)
        self._curve_title(r, step)

    @staticmethod
    def _kept_drawn(item) -> None:
        """What stands from step to step (the curves, the questions' marks, S_base's line)
        is kept drawn: a step moves the marker, and the parts of the plot under its old and
        new places are copied from there instead of drawn again (both curves' thousands of
        points, at every step)."""
        for child in item.getViewBox().addedItems:
            for part in (child, *child.childItems()):
                if part.cacheMode() != QGraphicsItem.CacheMode.DeviceCoordinateCache:
                    part.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def _add_marker(self, item, walk: Walkthrough, cost: float, adapt: float) -> None:
        """The step's marker: a ring under the marks when the steps are valued (the step's
        ▲/▼ shows inside it), else a filled disc; a bare scatter item (a data item's setData
        redid its curve too). Out of the view's auto-range: its bounds padded by its size in
        pixels moved the range a little at every step (each step then repainted the whole
        plot and redrew both axes); the curves alone set the range, whose padding (7 % of
        the plot at 200 px) holds the marker at the curve's ends."""
        old = getattr(self, "_marker", None)
        if old is not None and old.scene() is not None:
            item.removeItem(old)
        ring = bool(walk.questions)
        self._marker = _Marker(15 if ring else 11, pg.mkPen("k", width=2 if ring else 1),
                               None if ring else pg.mkBrush(ADAPT))
        self._marker.setPos(cost, adapt)
        self._marker.setZValue(1)
        item.addItem(self._marker, ignoreBounds=True)

    def add_questions(self, walk: Walkthrough, step: int) -> None:
        """The questions' marks (they arrive from a worker after the curve) added to `walk`'s
        curve, its marker made a ring and its legend told; the curves are not drawn again
        (redrawing a 1,000-step document's whole curve held the event loop 20-30 ms). A
        curve of another walkthrough, or one with its marks, is drawn whole."""
        if getattr(self, "_curve_of", None) is not walk or getattr(
                self, "_questions_shown", False):
            self._curve_of = None
            self._draw_curve(walk, step)
            return
        item = self.curve.getPlotItem()
        costs, adapt = walk.replay.curve()
        self._draw_questions(walk, item, costs, adapt)
        self._kept_drawn(item)
        at = walk.replay.at(step)
        self._add_marker(item, walk, at.cum_cost, at.s_adapt)
        self._curve_title(walk.replay, step)

    def _draw_questions(self, walk: Walkthrough, item, costs, adapt) -> None:
        """Issue 34: each active step marked where it lands on the curve, ▲ when its question
        held more errors than a random one of the same cost, ▼ when fewer (the values are
        the walkthrough's `questions`, computed in core on the worker)."""
        values = walk.questions or {}
        self._questions_shown = bool(values)
        if not values:
            return
        for up, colour in ((True, QUESTION_BETTER), (False, QUESTION_WORSE)):
            at = [k for k, s in enumerate(walk.replay.steps, 1)
                  if s.step in values and (values[s.step].gain > 0) == up]
            if at:   # bare scatter items, out of the range (they lie on the curve): data
                # items re-set their points at each range news, 13 times as they were added
                marks = pg.ScatterPlotItem([costs[k] for k in at], [adapt[k] for k in at],
                                           symbol="t1" if up else "t", size=9,
                                           brush=pg.mkBrush(colour), pen=pg.mkPen(colour))
                marks.setZValue(2)   # above "this step"
                # kept drawn, as the curves (`_kept_drawn`, which sees only the items that
                # set the range): the marker's move repainted both sets of marks, each step
                marks.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
                item.addItem(marks, ignoreBounds=True)

    def _curve_title(self, r, step: int) -> None:
        """The legend and the curve's figures; the same for every step of a document (the
        step is in the numbers above): set only when it changes, since a new title relayouts
        the plot (~10 ms a step)."""
        msr = "–" if r.msr is None else f"{r.msr:.2f} %"
        area = "none (no cost)" if math.isnan(r.curve_area) else f"{r.curve_area:.2f}"
        adapt = (f"<span style='color:{ADAPT.name()}'>━ S_adapt</span>", "━ S_adapt")
        pen = (f"<span style='color:{PEN.name()}'>╍ S_pen</span>", "╍ S_pen")
        title = getattr(self, "curve_title", None)
        if title is None:
            from llgui.gui.widgets.fit_title import FittedTitle

            # one line when it fits, else two (at 1366x768 one line was cut after "area")
            title = self.curve_title = FittedTitle(self.curve, 8)
        questions = getattr(self, "_questions_shown", False)
        parts = [adapt, pen, "○ step" if questions else "● this step", f"area {area}",
                 f"MSR {msr}"]
        if questions:   # short: the title keeps to three lines at 1366x768
            # which way is better, said (outsider finding: "▲▼ vs random question" was not)
            parts.insert(3, (f"<span style='color:{QUESTION_BETTER.name()}'>▲</span> beat "
                             f"<span style='color:{QUESTION_WORSE.name()}'>▼</span> lost to "
                             f"random", "▲ beat ▼ lost to random"))
        if getattr(self, "_title", None) != parts:   # a new title relayouts the plot
            self._title = parts
            title.set(parts)


class _Marker(QGraphicsItem):
    """The step's marker on the learning curve: a disc (or a ring) of `size` pixels at its
    place, whatever the zoom (it ignores the view's scaling). Added out of the view's
    auto-range, so a step is no news to the view's range; a step moves it (`setPos`), and
    only its old and new places are repainted. It was a one-point scatter item: setting its
    data rebuilt its spot and bounds and its paint mapped it, ~0.8 ms a step."""

    def __init__(self, size: float, pen: QPen, brush: QBrush | None):
        super().__init__()
        self.opts = {"size": size}
        self._pen, self._brush = pen, brush
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        reach = size / 2 + pen.widthF()
        self._rect = QRectF(-reach, -reach, 2 * reach, 2 * reach)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._rect

    def paint(self, painter, _option, _widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(self._pen)
        painter.setBrush(self._brush if self._brush is not None else Qt.BrushStyle.NoBrush)
        radius = self.opts["size"] / 2
        painter.drawEllipse(QPointF(0.0, 0.0), radius, radius)


def _cost_unit(walk: Walkthrough) -> str:
    """The replay's cost unit (MT: words, or characters for scripts without spaces), short
    enough for the curve's axis at 1366x768 ("seconds listened" as "s listened")."""
    unit = walk.replay.cost_unit or {"mt": "words", "detection": "labels",
                                     "classification": "labels"}.get(walk.document.task,
                                                                     "seconds listened")
    return "s listened" if unit == "seconds listened" else unit