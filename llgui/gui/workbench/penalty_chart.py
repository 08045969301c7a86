"""The step's score bars (figure 4 of the LREC paper), painted by one widget (issue 36).

The bars were a pyqtgraph plot of a dozen items (five bars, the hatched penalty, the
memorise-only bar, the step's penalty and its bracket, the broken feet, two marks, two axes):
a step set each item's values, each told the scene, and the plot's paint asked every item for
its bounds and painted it in Python: about a quarter of an MT step of the window (gate 14,
interleaved: 23.5 ms a step with them, 17 ms with the bars left standing). `PenaltyChart`
draws the same figure from the step's `PenaltyBars` (core) with one QPainter pass, and a step
whose bars look as before paints nothing.

Where everything goes (in pixels, for tests and for the marks' placement) is worked out once
per values and size (`layout`). The next step's chart can be laid out and painted into a
picture while the user reads this one (`prepare`): the step then copies the picture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from llgui.core.display.score_bars import PenaltyBars, penalty_bars

BASE = QColor("#7f8c8d")
COR = QColor("#2e86c1")
IMP = QColor("#c0392b")
ADAPT = QColor("#27ae60")
PEN = QColor("#8e44ad")
AXIS = QColor(90, 90, 90)   # the axes' lines and texts (pyqtgraph's grey was lighter)
X_RANGE = (-0.6, 4.6)       # the bars' slots: base, cor, imp, pen, mem. at 0..4
BAR_WIDTH = 0.6
TICK = 4                    # length of a value tick, pixels
GAP = 5                     # pixels kept between a penalty mark and a bar beside it
_NICE_STEPS = (1.0, 2.0, 2.5, 5.0)


@dataclass(frozen=True)
class ChartLayout:
    """Where a step's chart goes, in the widget's pixels. `plot`: the bars' area; `bars`:
    name -> rectangle of each drawn bar (base, cor, imp, adapt, hatch, memorise, gap);
    `marks`: (text, rectangle, colour) of the penalties written above their bars;
    `y_ticks`: (pixel row, text) of the value axis; `x_ticks`: (pixel column, text) under
    the bars; `bracket` and `breaks`: line segments ((x1, y1, x2, y2), pixels)."""

    geometry: PenaltyBars
    plot: QRectF
    bars: dict
    marks: tuple
    y_ticks: tuple
    x_ticks: tuple
    bracket: tuple
    breaks: tuple


def value_ticks(lo: float, hi: float, most: int) -> list[float]:
    """Round values in [lo, hi], at most `most` of them (at least two where the range
    allows), spaced 1, 2, 2.5 or 5 times a power of ten."""
    span = hi - lo
    if not (math.isfinite(span) and span > 0) or most < 1:
        return []
    raw = span / max(most, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next((n * power for n in _NICE_STEPS if n * power >= raw * (1 - 1e-9)),
                10 * power)
    first = math.ceil(lo / step - 1e-9)
    values = []
    k = first
    while k * step <= hi + 1e-9 * step:
        values.append(k * step)
        k += 1
    return values


def tick_text(value: float, values: list[float]) -> str:
    """`value` with the decimals the ticks' spacing needs, without trailing zeros ("47",
    "47.5")."""
    digits = 0
    if len(values) > 1:
        step = abs(values[1] - values[0])
        while digits < 12 and abs(round(step, digits) - step) > 1e-9 * step:
            digits += 1
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class PenaltyChart(QWidget):
    """The bars of one step: S_base, S_cor, S_imp, the penalised score (S_adapt solid, the
    accumulated penalty hatched on top for error rates, cut from the top for BLEU and chrF)
    and the memorise-only S_pen, their values under them, the step's penalty bracketed on
    the S_imp bar, the penalties written above their bars. `set_step(values, keep, label,
    unit)` gives it a step's numbers (`StepView.as_dict()`); the decimals under the bars
    follow the widget's width."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)   # it paints every pixel
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(150, 120)
        tick_font = QFont(self.font())
        tick_font.setPointSizeF(max(7.0, self.font().pointSizeF() - 1))
        self.tick_font = tick_font
        self._values = None
        self._keep = None
        self._label = ("", None)
        self._layout: ChartLayout | None = None
        self._ahead: dict = {}   # (values, keep, label, size) -> (layout, picture): `prepare`
        self._picture: tuple | None = None   # (layout, picture) of the step shown, if made ahead
        self.paints = 0   # for tests
        self.copied = 0   # paints copied from a picture made ahead (for tests)

    # -- what is shown --------------------------------------------------------------------

    def set_step(self, values, keep: tuple[float, float] | None, name: str,
                 unit: str | None) -> None:
        """Show a step's numbers; repaints only when what is drawn changes."""
        values = dict(values)
        old_label = self._label
        if values == self._values and keep == self._keep and (name, unit) == self._label:
            return
        self._values, self._keep, self._label = values, keep, (name, unit)
        old = self._layout
        self._layout = None
        self._picture = self._ahead.pop(self._ahead_key(values, keep, (name, unit)), None)
        if self._picture is not None:
            self._layout = self._picture[0]
        if old is None or self.layout_now() != old or old_label != self._label:
            self.update()

    def prepare(self, values, keep: tuple[float, float] | None, name: str,
                unit: str | None) -> None:
        """Lay out and paint a later step's chart now, into a picture its `set_step` takes
        (the layout and the paint were ~2 ms of a step on a slow machine)."""
        values = dict(values)
        key = self._ahead_key(values, keep, (name, unit))
        if key in self._ahead or not self.isVisible() or self.width() < 10:
            return
        shown = self._values, self._keep, self._label, self._layout
        try:
            self._values, self._keep, self._label = values, keep, (name, unit)
            self._layout = layout = self._make_layout()
            ratio = self.devicePixelRatioF()
            picture = QPixmap(self.size() * ratio)
            picture.setDevicePixelRatio(ratio)
            painter = QPainter(picture)
            try:
                painter.fillRect(self.rect(), Qt.GlobalColor.white)
                self._paint(painter, layout)
            finally:
                painter.end()
        finally:
            self._values, self._keep, self._label, self._layout = shown
        self._ahead = {key: (layout, picture)}   # the next step's only

    def _ahead_key(self, values: dict, keep, label) -> tuple:
        return (tuple(sorted(values.items())), keep, label, self.width(), self.height(),
                self.devicePixelRatioF())

    @property
    def geometry_(self) -> PenaltyBars | None:
        layout = self.layout_now()
        return None if layout is None else layout.geometry

    def axis_label(self) -> str:
        """The value axis' label: the metric, where it starts when not at 0 (short enough
        for the bars' height at 1366x768: "· axis from 38 (%)" was cut), its unit."""
        name, unit = self._label
        layout = self.layout_now()
        if layout is not None and layout.geometry.cut:
            name += f" · from {layout.geometry.y_range[0]:g}"
        return f"{name} ({unit})" if unit else name

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._layout = None
        self._picture = None
        self._ahead = {}

    # -- layout ---------------------------------------------------------------------------

    def layout_now(self) -> ChartLayout | None:
        """Where everything goes at this size (made once per values and size)."""
        if self._layout is None and self._values is not None:
            self._layout = self._make_layout()
        return self._layout

    def _geometry(self, plot_width: float, metrics: QFontMetricsF,
                  two: PenaltyBars) -> PenaltyBars:
        """The bars with two decimals under them (`two`) when each value fits its bar's
        slot, else one, else none (a narrow window: the numbers above have them all)."""
        slot = max(plot_width, 1.0) / (X_RANGE[1] - X_RANGE[0])
        for digits in (2, 1, 0):
            geometry = two if digits == 2 else penalty_bars(self._values, digits,
                                                            keep=self._keep)
            widest = max(metrics.horizontalAdvance(line) for _, text in geometry.ticks
                         for line in text.split("\n"))
            if widest + 4 <= slot:
                return geometry
        return geometry

    def _make_layout(self) -> ChartLayout:
        font = QFontMetricsF(self.font())
        ticks = QFontMetricsF(self.tick_font)
        width, height = float(self.width()), float(self.height())
        bottom_room = 2 * ticks.lineSpacing() + TICK + 4
        top, label_room = 6.0, font.height() + 4
        # the value axis and its texts (the range is the same whatever the decimals under
        # the bars, which follow the plot's width)
        probe = penalty_bars(self._values, 2, keep=self._keep)
        lo, hi = probe.view
        plot_height = max(height - top - bottom_room, 10.0)
        values = value_ticks(lo, hi, max(2, int(plot_height // (2.2 * ticks.height()))))
        texts = [tick_text(v, values) for v in values]
        text_room = max((ticks.horizontalAdvance(t) for t in texts), default=0.0)
        left = label_room + text_room + TICK + 4
        plot = QRectF(left, top, max(width - left - 6, 10.0), plot_height)
        geometry = self._geometry(plot.width(), ticks, probe)
        lo, hi = geometry.view
        x0, x1 = X_RANGE
        px_x = plot.width() / (x1 - x0)
        px_y = plot.height() / (hi - lo) if hi > lo else 1.0

        def x_px(x: float) -> float:
            return plot.left() + (x - x0) * px_x

        def y_px(y: float) -> float:
            return plot.bottom() - (y - lo) * px_y

        def bar(x: float, y0: float, y1: float) -> QRectF:
            a, b = sorted((y_px(y0), y_px(y1)))
            rect = QRectF(QPointF(x_px(x - BAR_WIDTH / 2), a), QPointF(x_px(x + BAR_WIDTH / 2), b))
            return rect.intersected(plot)

        bars = {}
        for x, (name, value) in enumerate(zip(("base", "cor", "imp", "adapt"), geometry.solid)):
            if value is not None:
                bars[name] = bar(x, 0.0, float(value))
        if geometry.hatch is not None:
            y0, h = geometry.hatch
            bars["hatch"] = bar(3, y0, y0 + h)
        if geometry.memorise is not None:
            bars["memorise"] = bar(4, 0.0, geometry.memorise)
        bracket = []
        if geometry.step_penalty is not None:
            imp, cor, _ = geometry.step_penalty
            bars["gap"] = bar(2, min(imp, cor), max(imp, cor))
            x = 2.0 + 0.42   # right of the S_imp bar: ] from S_imp to S_cor
            for a, b in (((x, imp), (x, cor)), ((x - 0.1, imp), (x, imp)),
                         ((x - 0.1, cor), (x, cor))):
                bracket.append((x_px(a[0]), y_px(a[1]), x_px(b[0]), y_px(b[1])))
        breaks = []
        if geometry.cut:
            # two slanted white strokes across each bar's foot: the bar goes on below
            low, high = geometry.y_range
            h = 0.04 * (high - low)
            for x, value in enumerate((*geometry.solid, geometry.memorise)):
                if value is None or value <= low:
                    continue
                for lift in (0.03, 0.06):
                    y = low + lift * (high - low)
                    breaks.append((x_px(x - 0.33), y_px(y), x_px(x + 0.33), y_px(y + h * 0.5)))
        y_ticks = tuple((y_px(v), text) for v, text in zip(values, texts))
        x_ticks = tuple((x_px(x), text) for x, text in geometry.ticks)
        colours = {2: IMP.darker(130), 3: PEN.darker(130)}
        marks = self._place_marks([(x_px(x), y_px(y), text, colours.get(int(x), AXIS))
                                   for x, y, text in geometry.marks], ticks,
                                  [rect for name, rect in bars.items() if name != "gap"])
        return ChartLayout(geometry, plot, bars, tuple(marks), y_ticks, x_ticks,
                           tuple(bracket), tuple(breaks))

    @staticmethod
    def _place_marks(wanted, metrics: QFontMetricsF, bars=()) -> list:
        """The penalty marks above their bars, none over another, over a bar or within
        `GAP` pixels of a bar beside it (a purple "Σ+10.43" 3 px from the dashed purple mem.
        bar read as mem.'s): a mark only ever moves up, away from its bar, above whatever it
        meets, marks stacked from the lowest."""
        boxes = []
        for cx, top, text, colour in wanted:
            w, h = metrics.horizontalAdvance(text) + 2, metrics.height()
            boxes.append((cx, w, h, top - 5, text, colour))   # bottom 5 px above the value
        boxes.sort(key=lambda b: -b[3])
        placed = []
        for cx, w, h, bottom, text, colour in boxes:
            left, right = cx - w / 2, cx + w / 2
            for _ in range(4):   # (moved above a bar, it may meet a mark placed before)
                before = bottom
                for rect, *_ in placed:
                    if left < rect.right() + 2 and rect.left() < right + 2 and \
                            bottom - h < rect.bottom():
                        bottom = min(bottom, rect.top() - 1)
                for bar in bars:   # (its own bar lies under it: a neighbour's top counts)
                    if left < bar.right() + GAP and bar.left() - GAP < right and \
                            bottom > bar.top() - GAP and not bar.left() <= cx <= bar.right():
                        bottom = min(bottom, bar.top() - GAP)
                if bottom == before:
                    break
            placed.append((QRectF(left, bottom - h, w, h), text, colour))
        return [(text, rect, colour) for rect, text, colour in placed]

    # -- paint ----------------------------------------------------------------------------

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        try:
            layout = self.layout_now()
            if self._picture is not None and self._picture[0] is layout:
                painter.drawPixmap(0, 0, self._picture[1])   # painted ahead (`prepare`)
                self.copied += 1
            else:
                painter.fillRect(self.rect(), Qt.GlobalColor.white)
                if layout is not None:
                    self._paint(painter, layout)
        finally:
            painter.end()
        self.paints += 1

    def _paint(self, painter: QPainter, layout: ChartLayout) -> None:
        plot, bars = layout.plot, layout.bars
        painter.save()
        painter.setClipRect(plot)
        for name, colour in (("base", BASE), ("cor", COR), ("imp", IMP), ("adapt", ADAPT)):
            if name in bars:
                painter.setPen(QPen(colour.darker(130), 1))
                painter.setBrush(colour)
                painter.drawRect(bars[name])
        if "hatch" in bars:
            painter.setPen(QPen(PEN, 1.5))
            painter.setBrush(QBrush(PEN, Qt.BrushStyle.BDiagPattern))
            painter.drawRect(bars["hatch"])
        if "memorise" in bars:
            painter.setPen(QPen(PEN, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(QColor(PEN.red(), PEN.green(), PEN.blue(), 60))
            painter.drawRect(bars["memorise"])
        if "gap" in bars:
            dark = IMP.darker(180)
            painter.setPen(QPen(dark, 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(QBrush(dark, Qt.BrushStyle.FDiagPattern))
            painter.drawRect(bars["gap"])
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if layout.bracket:
            painter.setPen(QPen(IMP.darker(150), 2))
            painter.drawLines([QLineF(*line) for line in layout.bracket])
        if layout.breaks:
            painter.setPen(QPen(Qt.GlobalColor.white, 3))
            painter.drawLines([QLineF(*line) for line in layout.breaks])
        painter.restore()
        # the axes: the value axis on the left, its label turned; the names and values
        # under the bars
        painter.setPen(QPen(AXIS, 1))
        painter.drawLine(QLineF(plot.left(), plot.top(), plot.left(), plot.bottom()))
        painter.drawLine(QLineF(plot.left(), plot.bottom(), plot.right(), plot.bottom()))
        painter.setFont(self.tick_font)
        metrics = QFontMetricsF(self.tick_font)
        line = metrics.lineSpacing()
        for y, text in layout.y_ticks:
            painter.drawLine(QLineF(plot.left() - TICK, y, plot.left(), y))
            box = QRectF(0, y - line / 2, plot.left() - TICK - 2, line)
            painter.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             text)
        slot = plot.width() / (X_RANGE[1] - X_RANGE[0])
        for x, text in layout.x_ticks:
            painter.drawLine(QLineF(x, plot.bottom(), x, plot.bottom() + TICK))
            box = QRectF(x - slot / 2, plot.bottom() + TICK + 1, slot, 2 * line + 2)
            painter.drawText(box, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                             text)
        for text, rect, colour in layout.marks:
            painter.setPen(colour)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.setFont(self.font())
        painter.setPen(AXIS)
        painter.save()
        painter.translate(2, plot.center().y())
        painter.rotate(-90)
        room = plot.height()
        label = QFontMetricsF(self.font()).elidedText(self.axis_label(),
                                                      Qt.TextElideMode.ElideRight, room)
        painter.drawText(QRectF(-room / 2, 0, room, QFontMetricsF(self.font()).height()),
                         Qt.AlignmentFlag.AlignCenter, label)
        painter.restore()
