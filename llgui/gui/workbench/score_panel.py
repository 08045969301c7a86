"""Score panel: the step's scores as in figure 4 of the LREC paper, and the learning curve.

Left: bars for S_base, S_cor, S_imp and the penalised score, drawn as S_adapt (solid) with the
accumulated penalty Σ(S_imp − S_cor) hatched on top (error rates) or cut from the top (BLEU,
chrF). Right: S_adapt and S_pen against cumulative cost (figure 2), the current step marked,
with the curve's normalised area and the Minimal Supervision Rate.
"""
from __future__ import annotations

import math
import re

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import (
    QGraphicsItem, QGraphicsScene, QLabel, QSplitter, QVBoxLayout, QWidget,
)

from llgui.core.display.score_bars import penalty_bars, step_axes, step_curve_x
from llgui.core.walkthrough import Walkthrough
from llgui.core.metrics import display_name, is_percent
from llgui.gui.widgets.plot_range import quiet_hidden_axes, set_range, set_tip
from llgui.gui.widgets.quiet_label import QuietBox
from llgui.gui.workbench.diar_bars import settle_texts

BASE = QColor("#7f8c8d")
COR = QColor("#2e86c1")
IMP = QColor("#c0392b")
ADAPT = QColor("#27ae60")
PEN = QColor("#8e44ad")
QUESTION_BETTER = QColor(0, 120, 60)     # the steps table's better / worse colours
QUESTION_WORSE = QColor(180, 30, 30)


class ScorePanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.bars = pg.PlotWidget()
        self.curve = pg.PlotWidget()
        for w in (self.bars, self.curve):
            w.setBackground("w")
            # items move at every step: no spatial index to keep up to date
            w.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
            w.getPlotItem().setMenuEnabled(False)
            quiet_hidden_axes(w.getPlotItem())
        self.bars.getPlotItem().setMouseEnabled(x=False, y=False)
        self.bars.getPlotItem().hideButtons()
        self.numbers = QLabel("")
        self.numbers.setTextFormat(Qt.TextFormat.RichText)
        self.numbers.setWordWrap(True)
        # two lines, fixed: a new text never relayouts (and repaints) the whole window
        self.numbers.setFixedHeight(2 * self.numbers.fontMetrics().lineSpacing() + 6)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
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
        self._fitted: set = set()   # (width, height, shape) of the numbers measured whole

    def show_step(self, walk: Walkthrough, step: int, curve: bool = True) -> None:
        """The step's numbers and bars, and (`curve`) its place on the learning curve."""
        r = walk.replay
        unit = display_name(r.metric)
        view = r.at(step)          # the numbers come from core; this panel only draws them
        values = view.as_dict()
        self.shown = values
        better = "↑" if r.higher_is_better else "↓"   # the tooltip says it in words

        def f(v):
            return "–" if v is None else f"{v:.2f}"

        penalty = view.penalty
        memo = ""
        if view.net_generalisation is not None:
            # net generalisation: what the run gained over only applying the corrections
            memo = (f" · S<sub>pen</sub>&nbsp;memorise-only&nbsp;{f(values['s_pen_memorise'])}"
                    f" (net&nbsp;gen.&nbsp;<b>{view.net_generalisation:+.2f}</b>)")
        # a name and its value never part at a line end (1366x768 wrapped "Σ | 163.0")
        self.numbers.setText(
            f"<b>{unit}</b> {better} step&nbsp;{step}/{len(r.steps)}: "
            f"S<sub>base</sub>&nbsp;<b>{f(values['s_base'])}</b> · S<sub>cor</sub>&nbsp;"
            f"<b>{f(values['s_cor'])}</b> · S<sub>imp</sub>&nbsp;<b>{f(values['s_imp'])}</b> · "
            f"S<sub>adapt</sub>&nbsp;<b>{f(values['s_adapt'])}</b> · S<sub>pen</sub>&nbsp;"
            f"<b>{f(values['s_pen'])}</b> (Σ&nbsp;pen.&nbsp;{penalty:+.2f}){memo} · "
            f"cost&nbsp;{values['cost']:.1f}, Σ&nbsp;{values['cum_cost']:.1f}")
        set_tip(self.numbers, ("higher" if r.higher_is_better else "lower")
                + f" is better · {r.signature}")
        self._fit_numbers()   # a narrow window wraps them to a third line
        self._draw_bars(r, values, self._axis_before(r, step))
        if curve:
            self._draw_curve(walk, step)

    def draw_curve(self, walk: Walkthrough, step: int) -> None:
        """The learning curve of `walk`, the step marked (a new document's: after its bars
        have painted, `Workbench._draw_pending`)."""
        self._draw_curve(walk, step)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_numbers()

    def _fit_numbers(self) -> None:
        """The numbers above the plots whole at this width: the label grows to the lines it
        needs (never shrinks: a height that follows the text would relayout every step).
        Measuring the rich text is ~1 ms a step; a text laid out as one measured before at
        this width and height (`number_shape`: the same but for its digits, in a font whose
        digits are all as wide) needs the same lines, and is not measured again."""
        width = max(self.numbers.width(), 1)
        shape = number_shape(self.numbers.text(), self.numbers.font())
        key = (width, self.numbers.height(), shape)
        if shape is not None and key in self._fitted:
            return
        needed = self.numbers.heightForWidth(width)
        if needed > self.numbers.height():
            self.numbers.setFixedHeight(needed)
        if shape is not None:
            if len(self._fitted) > 256:
                self._fitted.clear()
            self._fitted.add((width, self.numbers.height(), shape))

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
        item = self.bars.getPlotItem()
        parts = getattr(self, "_bar_items", None)
        if parts is None or parts["metric"] != r.metric:
            # built once per metric; a step only moves them (rebuilding costs ~15 ms a step)
            item.clear()
            item.disableAutoRange()   # the ranges below, not what the labels' bounds suggest
            item.getAxis("left").enableAutoSIPrefix(False)
            # the values under their own bars, as tick text (name, value): two lines
            bottom = item.getAxis("bottom")
            tick_font = QFont(self.font())
            tick_font.setPointSizeF(max(7.0, self.font().pointSizeF() - 1))
            bottom.setStyle(tickFont=tick_font)
            bottom.setHeight(2 * QFontMetrics(tick_font).lineSpacing() + 10)
            self.tick_font = tick_font
            parts = {"metric": r.metric, "solid": [], "labels": []}
            for x, colour in enumerate((BASE, COR, IMP, ADAPT)):
                bar = _Bars(x=[x], height=[0.0], width=0.6, brush=colour,
                            pen=pg.mkPen(colour.darker(130)))
                item.addItem(bar)
                parts["solid"].append(bar)
            parts["hatch"] = _Bars(x=[3], y0=[0.0], height=[0.0], width=0.6,
                                             brush=QBrush(PEN, Qt.BrushStyle.BDiagPattern),
                                             pen=pg.mkPen(PEN, width=1.5))
            item.addItem(parts["hatch"])
            # the memorise-only reference: S_pen had the system only applied the corrections
            parts["memorise"] = _Bars(
                x=[4], height=[0.0], width=0.6, brush=QColor(PEN.red(), PEN.green(), PEN.blue(), 60),
                pen=pg.mkPen(PEN, width=1.5, style=Qt.PenStyle.DashLine))
            item.addItem(parts["memorise"])
            # the step's penalty S_imp − S_cor: the S_imp bar outlined up to S_cor, with a
            # bracket beside it
            # (dark hatching: seen on the red bar too, where an error rate's penalty lies)
            parts["gap"] = _Bars(x=[2], y0=[0.0], height=[0.0], width=0.6,
                                           brush=QBrush(IMP.darker(180), Qt.BrushStyle.FDiagPattern),
                                           pen=pg.mkPen(IMP.darker(180), width=1.2,
                                                        style=Qt.PenStyle.DashLine))
            parts["gap"].setZValue(2)
            item.addItem(parts["gap"])
            # (curve items: a data item's setData redid its curve and its points' items)
            parts["bracket"] = pg.PlotCurveItem(pen=pg.mkPen(IMP.darker(150), width=2),
                                                connect="pairs")
            parts["bracket"].setZValue(3)
            item.addItem(parts["bracket"])
            # the bars' feet drawn broken when the axis does not start at 0
            parts["breaks"] = pg.PlotCurveItem(pen=pg.mkPen("w", width=3), connect="pairs")
            parts["breaks"].setZValue(5)
            item.addItem(parts["breaks"])
            for colour in (IMP, PEN):   # the step's penalty, the accumulated one
                label = pg.TextItem("", color=colour.darker(130), anchor=(0.5, 1.0))
                label.setFont(tick_font)
                label.setZValue(10)
                item.addItem(label)
                parts["labels"].append(label)
            item.getViewBox().sigResized.connect(self._on_bars_resized)
            self._bar_items = parts
        # Figure 4: the penalised score is S_adapt (solid) with the accumulated penalty
        # hatched: stacked on top for error rates, cut from the top for BLEU/chrF.
        self._bar_values = v
        # the value axis kept from the step before while it fits (`_axis_before`): the
        # bars of consecutive steps against one axis (a new range redrew the axis and
        # moved every bar)
        geometry = penalty_bars(v, self._tick_digits(v), keep=keep)
        self.bar_geometry = geometry
        for bar, value in zip(parts["solid"], geometry.solid):
            bar.setVisible(value is not None)
            if value is not None:
                _set_bar(bar, height=[value])
        parts["hatch"].setVisible(geometry.hatch is not None)
        if geometry.hatch is not None:
            y0, height = geometry.hatch
            _set_bar(parts["hatch"], y0=[y0], height=[height])
        parts["memorise"].setVisible(geometry.memorise is not None)
        if geometry.memorise is not None:
            _set_bar(parts["memorise"], height=[geometry.memorise])
        step = geometry.step_penalty
        parts["gap"].setVisible(step is not None)
        parts["bracket"].setVisible(step is not None)
        if step is not None:
            imp, cor, _ = step
            _set_bar(parts["gap"], y0=[min(imp, cor)], height=[abs(cor - imp)])
            x = 2.0 + 0.42   # right of the S_imp bar: ] from S_imp to S_cor
            _set_data(parts["bracket"], [x, x, x - 0.1, x, x - 0.1, x],
                      [imp, cor, imp, imp, cor, cor])
        item.getAxis("bottom").setTicks([list(geometry.ticks)])
        low, high = geometry.y_range
        unit = "%" if is_percent(r.metric) else None
        # short enough for the bars' height at 1366x768 ("· axis from 38 (%)" was cut)
        left = display_name(r.metric) + (f" · from {low:g}" if geometry.cut else "")
        if getattr(self, "_bars_left", None) != (left, unit):
            self._bars_left = (left, unit)
            item.setLabel("left", left, units=unit)   # DCFs: plain
        if geometry.cut:
            # two slanted white strokes across each bar's foot: the bar goes on below
            h = 0.04 * (high - low)
            xs, ys = [], []
            for x, value in enumerate((*geometry.solid, geometry.memorise)):
                if value is None or value <= low:
                    continue
                for lift in (0.03, 0.06):
                    y = low + lift * (high - low)
                    xs += [x - 0.33, x + 0.33]
                    ys += [y, y + h * 0.5]
            _set_data(parts["breaks"], xs, ys)
        parts["breaks"].setVisible(geometry.cut)
        self._bar_texts = []
        marks = {int(x): (x, y, text) for x, y, text in geometry.marks}
        for label, x in zip(parts["labels"], (2, 3)):
            mark = marks.get(x)
            label.setVisible(mark is not None)
            if mark is not None:
                if label.toPlainText() != mark[2]:   # setText lays the text out again
                    label.setText(mark[2])
                self._bar_texts.append((label, float(mark[0]), float(mark[1]), False))
        self.y_range = geometry.y_range
        box = item.getViewBox()   # (each only when it changes: see `set_range`)
        set_range(box, 1, *geometry.view, padding=0)   # room for the marks on top
        set_range(box, 0, -0.6, 4.6, padding=0)
        self._place_bar_labels()
        settle_texts(item.getViewBox())
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

    def _tick_digits(self, v) -> int:
        """The decimals of the values under the bars: two when each fits its bar's slot,
        else one, else none (a narrow window: the header above has them all)."""
        vb = self.bars.getPlotItem().getViewBox()
        slot = max(vb.width(), 1.0) / 5.2   # the x range is 5.2 bars wide
        metrics = QFontMetrics(self.tick_font)
        for digits in (2, 1, 0):
            widest = max(metrics.horizontalAdvance(line) for _, text in
                         penalty_bars(v, digits).ticks for line in text.split("\n"))
            if widest + 4 <= slot:
                return digits
        return 0

    def _on_bars_resized(self, *_) -> None:
        v = getattr(self, "_bar_values", None)
        if v is not None and getattr(self, "bar_geometry", None) is not None:
            digits = self._tick_digits(v)
            if self.bar_geometry.ticks != penalty_bars(v, digits).ticks:
                self.bar_geometry = penalty_bars(v, digits)
                self.bars.getPlotItem().getAxis("bottom").setTicks(
                    [list(self.bar_geometry.ticks)])
        self._place_bar_labels()

    def _place_bar_labels(self, *_) -> None:
        """Place the penalty marks above their bars (in pixels) so that none overlaps another
        or a bar."""
        texts = getattr(self, "_bar_texts", None)
        if not texts:
            self.label_rects = []
            return
        vb = self.bars.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        width, height = max(vb.width(), 1.0), max(vb.height(), 1.0)
        px_x = width / (x1 - x0)
        px_y = height / (y1 - y0)
        boxes = []
        for label, x, value, _inside in texts:
            rect = label.boundingRect()   # in pixels: a TextItem ignores the view's scale
            w, h = rect.width(), rect.height()
            cx = (x - x0) * px_x
            top = (y1 - value) * px_y   # pixel row of the value, down from the top
            boxes.append([label, cx, w, h, top - h / 2 - 5])
        # marks whose x-extents meet are stacked upwards from the lowest: a mark only ever
        # moves up, away from its bar (moving one down put it on its bar)
        boxes.sort(key=lambda b: -b[4])
        self.label_rects = []
        placed: list[tuple[float, float, float, float]] = []
        for label, cx, w, h, centre in boxes:
            bottom = centre + h / 2
            for left, top, pw, ph in placed:
                if cx - w / 2 < left + pw + 2 and left < cx + w / 2 + 2:
                    bottom = min(bottom, top - 1)
            label.setPos(x0 + cx / px_x, y1 - bottom / px_y)   # anchored at its bottom centre
            placed.append((cx - w / 2, bottom - h, w, h))
            self.label_rects.append((cx - w / 2, bottom - h, w, h))

    @staticmethod
    def _label(item, x: float, y: float, text: str, inside: bool = False) -> None:
        label = pg.TextItem(text, color=(30, 30, 30), fill=(255, 255, 255, 190) if inside else None,
                            anchor=(0.5, -0.1) if inside else (0.5, 1.1))
        label.setPos(x, y)
        item.addItem(label)

    def _draw_curve(self, walk: Walkthrough, step: int) -> None:
        r = walk.replay
        item = self.curve.getPlotItem()
        marker = getattr(self, "_marker", None)
        if marker is not None and getattr(self, "_curve_of", None) is walk:
            # same document: only the step's marker moves (the curves are 1,000s of points,
            # not even read again: the step's corner is its cumulative cost and S_adapt)
            at = r.at(step)
            marker.setData([at.cum_cost], [at.s_adapt])
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
        self._marker = _Marker([cost], [adapt], symbol="o", size=15 if ring else 11,
                               brush=None if ring else ADAPT,
                               pen=pg.mkPen("k", width=2 if ring else 1))
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


class _Bars(pg.BarGraphItem):
    """A score bar whose bounds are measured once per value and view: pyqtgraph measures a
    pixel (for the pen's padding) each of the ~35 times a step's updates and paints ask the
    bars for their bounds."""

    _bounds = None

    def setOpts(self, **opts) -> None:  # noqa: N802 - pyqtgraph's name
        self._bounds = None
        super().setOpts(**opts)

    def viewTransformChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        self._bounds = None
        super().viewTransformChanged()

    def boundingRect(self):  # noqa: N802 - Qt's name
        if self._bounds is None:
            self._bounds = super().boundingRect()
        return QRectF(self._bounds)


class _Marker(pg.ScatterPlotItem):
    """The step's marker on the learning curve. Added out of the view's auto-range, so its
    bounds are no news to the view: a scatter item tells its view at every `setData`, and a
    view that auto-ranges then repaints itself whole (both curves, thousands of points, at
    every step) to find the range it already has. Only the marker's old and new places are
    repainted now."""

    def informViewBoundsChanged(self) -> None:  # noqa: N802 - pyqtgraph's name
        pass


_DIGIT = re.compile(r"[0-9]")
_TABULAR: dict[str, bool] = {}


def number_shape(text: str, font: QFont) -> str | None:
    """`text` with every digit written 0, when the digits of `font` (plain and bold) are all
    as wide, so that two texts of one shape break into the same lines at any width; else
    None (the text must be measured)."""
    key = font.toString()
    tabular = _TABULAR.get(key)
    if tabular is None:
        bold = QFont(font)
        bold.setBold(True)
        tabular = _TABULAR[key] = all(
            len({QFontMetricsF(f).horizontalAdvance(d) for d in "0123456789"}) == 1
            for f in (font, bold))
    return _DIGIT.sub("0", text) if tabular else None


def _set_bar(bar, **opts) -> None:
    """Give a bar item new values, unless it has them (S_base's bar is the same at every
    step: setting it lays the item out and repaints it)."""
    if any(bar.opts.get(k) != v for k, v in opts.items()):
        bar.setOpts(**opts)


def _set_data(item, xs: list, ys: list) -> None:
    """Give a data item new points, unless it has them (the bars' broken feet stand while
    the axis does; setData rebuilds the item's curve and repaints it)."""
    if getattr(item, "_points", None) != (xs, ys):
        item._points = (list(xs), list(ys))
        item.setData(xs, ys)


def _cost_unit(walk: Walkthrough) -> str:
    """The replay's cost unit (MT: words, or characters for scripts without spaces), short
    enough for the curve's axis at 1366x768 ("seconds listened" as "s listened")."""
    unit = walk.replay.cost_unit or {"mt": "words", "detection": "labels",
                                     "classification": "labels"}.get(walk.document.task,
                                                                     "seconds listened")
    return "s listened" if unit == "seconds listened" else unit