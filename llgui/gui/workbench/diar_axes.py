"""The diarization timeline's axes and view box: lane names on the left, the document's
clock at the bottom, Shift+drag selecting a time region."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsItem

from llgui.core.display.layout import format_time, time_labels, time_ticks


class LaneAxis(pg.AxisItem):
    """Left axis naming the lanes instead of numbers. Its width is the widest name's of
    `all_names` (every set of names it will show) in its tick font, set ahead: pyqtgraph
    measures the names at the first paint and, when they differ from the space it had, lays
    the plot out again and paints it twice (into a long show's split view, which changes
    the font, the window was laid out and painted three times in one step). With
    `keep_width`, a smaller font keeps the width of the largest one: the plot's width, and
    with it everything drawn for it ahead (a long show's level of detail), stays."""

    def __init__(self, names, *args, all_names=None, keep_width: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        # no tick marks: pyqtgraph's point into the plot, where they ran into the turns'
        # labels ("–MTD012ME", "–12", outsider helper-40); the names say which lane
        self.setStyle(tickLength=0)
        self.names = names
        self._all_names = tuple(all_names or (names,))
        self._kept = 0 if keep_width else None
        self.fit_names()
        # the names change only with the font or the step-0 lanes: kept as a pixmap, a
        # step's repaint of the plot copies them (replaying their picture was ~0.2 ms a view)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def setTickFont(self, font):  # noqa: N802 - pyqtgraph's name
        super().setTickFont(font)
        self.fit_names()

    def fit_names(self) -> None:
        """The text space of the widest name in the tick font, given now."""
        from PySide6.QtGui import QFontMetricsF

        metrics = QFontMetricsF(self.style["tickFont"] or self.font())
        widest = max((metrics.boundingRect(name).width() for names in self._all_names
                      for name in names), default=0.0)
        self.textWidth = int(widest + 0.999) + 2   # (within pyqtgraph's 10 px: kept)
        if self._kept is not None:
            self.textWidth = self._kept = max(self._kept, self.textWidth)
        self._updateWidth()

    def _updateMaxTextSize(self, x: int) -> None:  # noqa: N802 - pyqtgraph's name
        """(pyqtgraph's measure at paint: ignored while it fits, the width being set)."""
        if x > self.textWidth or self._kept is None:
            super()._updateMaxTextSize(x)

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        return [(1.0, [float(-i) for i in range(len(self.names))])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        return [self.names[int(round(-v))] if 0 <= -v < len(self.names) else "" for v in values]


class TimeAxis(pg.AxisItem):
    """Bottom axis in m:ss (h:mm:ss for a document that reaches an hour, at every zoom), ticks
    on round seconds, minutes or hours (`time_ticks`), not raw seconds or multiples of 500."""

    hours = False   # the document reaches an hour: every label h:mm:ss

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # kept as a pixmap: a step repaints the plot (its bars) and copies the axis, which is
        # drawn again only when its range or size changes (the overview's never does within
        # a document)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph's names
        pixels = max(float(size), 1.0)
        step, values = time_ticks(minVal, maxVal, most=max(int(pixels // 90), 2),
                                  margin=self._half_label() / pixels)
        return [(step, values)]

    def _half_label(self) -> float:
        """Half a label's width (a tick nearer than this to an end is not labelled)."""
        font = self.style["tickFont"] or self.font()
        key = (font.key(), self.hours)
        if getattr(self, "_half", (None, 0.0))[0] != key:
            from PySide6.QtGui import QFontMetricsF

            self._half = (key, QFontMetricsF(font).horizontalAdvance(
                "0:00:00" if self.hours else "00:00") / 2)
        return self._half[1]

    _TEXT_SIZES: dict = {}   # (font key, text) -> pyqtgraph's measure of a label (w, h)
    _ALIGN_TOP = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | \
        Qt.TextFlag.TextDontClip

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph's name
        """pyqtgraph's specs of a bottom axis (what every timeline has), made
        without its per-tick `Point`s and with each label's measure kept: a panel's axis
        is made again at every step (its range is the step's window), ~0.7 ms of the step
        in pyqtgraph's loop. The same specs as pyqtgraph's (a test holds them equal); any
        other configuration is pyqtgraph's own."""
        style = self.style
        if (self.orientation != "bottom" or self._tickLevels is not None
                or any(style["stopAxisAtTick"])):
            return super().generateDrawSpecs(p)
        font = style["tickFont"]
        if font is not None:
            p.setFont(font)
        bounds = self.mapRectFromParent(self.geometry())
        top = bounds.top()
        grid, view = self.grid, self.linkedView()
        start = top if view is None or grid is False else \
            view.mapRectToItem(self, view.boundingRect()).top()   # (a grid's lines: the view's)
        span = (QPointF(bounds.left() - 1.0, top + 1.0), QPointF(bounds.right() + 1.0, top + 1.0))
        transform = self.deviceTransform_()   # (pyqtgraph's: None without a view)
        if transform is None:
            return None
        a, b = transform.map(span[0]), transform.map(span[1])
        pixels = ((b.x() - a.x()) ** 2 + (b.y() - a.y()) ** 2) ** 0.5
        if pixels == 0:
            return None
        lo, hi = self.range
        levels = self.tickValues(lo, hi, pixels)
        dif = hi - lo
        scale = bounds.width() / dif if dif != 0 else 1.0
        offset = lo * scale if dif != 0 else 0.0
        x_min, x_max = sorted((lo * scale - offset, hi * scale - offset))
        tick_length = style["tickLength"]
        positions, tick_specs = [], []
        for i, (_spacing, ticks) in enumerate(levels):
            length = tick_length / (i * 0.5 + 1.0) if grid is False else 0.0
            pen = self._tick_pen(style["tickAlpha"], i, grid, pixels, len(ticks))
            row = []
            for v in ticks:
                x = v * scale - offset
                if x < x_min or x > x_max:
                    row.append(None)
                    continue
                row.append(x)
                tick_specs.append((pen, QPointF(x, start), QPointF(x, top + length)))
            positions.append(row)
        axis_spec = (self.pen(), span[0], span[1])
        text_specs = []
        if not style["showValues"]:
            return axis_spec, tick_specs, text_specs
        if len(levels) != 1:   # (the crowding rules of several text levels: pyqtgraph's)
            return super().generateDrawSpecs(p)
        spacing, values = levels[0]
        strings = self.tickStrings(values, self.autoSIPrefixScale * self.scale, spacing)
        shift = max(0, tick_length) + style["tickTextOffset"][1]
        box = self.boundingRect()
        font_key, tabular = _font_digits(p.font())
        sizes = TimeAxis._TEXT_SIZES
        if len(sizes) > 4096:
            sizes.clear()
        tallest = 0
        for text, x in zip(strings, positions[0]):
            if x is None or text is None:
                continue
            # in a font whose digits are all as wide, "0:27:19" measures as "0:00:00" does
            key = (font_key, text.translate(_ZEROS) if tabular else text)
            size = sizes.get(key)
            if size is None:
                measured = p.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter,
                                          text)
                size = sizes[key] = (measured.width(), measured.height() * 0.8)
            width, height = size
            tallest = max(tallest, height)
            rect = QRectF(x - width / 2.0, top + shift, width, height)
            if box & rect != rect:
                continue
            text_specs.append((rect, self._ALIGN_TOP, text))
        self._updateMaxTextSize(tallest)
        return axis_spec, tick_specs, text_specs

    def _tick_pen(self, alpha, level: int, grid, pixels: float, ticks: int) -> QPen:
        """pyqtgraph's tick pen of a level: the axis's, its opacity by the level (and the
        grid's opacity and density)."""
        if alpha is None:
            alpha = 255 / (level + 1)
            if grid is not False:
                alpha *= grid / 255.0 * min(max(0.05 * pixels / (ticks + 1), 0.0), 1.0)
        elif isinstance(alpha, float):
            alpha = min(255, max(0, int(round(alpha * 255))))
        pen = self.tickPen()
        if pen.brush().style() == Qt.BrushStyle.SolidPattern:
            pen = QPen(pen)
            color = QColor(pen.color())
            color.setAlpha(int(alpha))
            pen.setColor(color)
        return pen

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        labels = time_labels([v * scale for v in values], spacing * scale)
        if self.hours and labels and labels[0].count(":") == 1:
            decimals = len(labels[0].partition(".")[2])
            labels = [format_time(v * scale, decimals, True) for v in values]
        return labels


_ZEROS = str.maketrans("123456789", "000000000")
_DIGITS: dict = {}


def _font_digits(font) -> tuple[str, bool]:
    """(the font's key, whether its ten digits are all as wide and kern alike with the
    clock's signs: a label then measures as its digits' shape)."""
    key = font.key()
    tabular = _DIGITS.get(key)
    if tabular is None:
        from PySide6.QtGui import QFontMetricsF

        metrics = QFontMetricsF(font)
        widths = {metrics.horizontalAdvance(f"{d}:{d}{d}.{d}") for d in "0123456789"}
        tabular = _DIGITS[key] = len(widths) == 1
    return key, tabular


class SelectViewBox(pg.ViewBox):
    """A view box where Shift+drag selects a time region instead of panning."""

    def __init__(self, on_select, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._on_select = on_select

    _selecting = False

    def mouseDragEvent(self, ev, axis=None):  # noqa: N802 - pyqtgraph's name
        if ev.isStart():   # Shift held when the drag starts: a selection to its end
            self._selecting = (ev.button() == Qt.MouseButton.LeftButton
                               and bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier))
        if self._selecting:
            ev.accept()
            a = self.mapSceneToView(ev.buttonDownScenePos()).x()
            b = self.mapSceneToView(ev.scenePos()).x()
            self._on_select(min(a, b), max(a, b), ev.isFinish())
            return
        super().mouseDragEvent(ev, axis)
