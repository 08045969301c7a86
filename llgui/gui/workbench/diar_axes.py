"""The diarization timeline's axes and view box: lane names on the left, the document's
clock at the bottom, Shift+drag selecting a time region."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt

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

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        labels = time_labels([v * scale for v in values], spacing * scale)
        if self.hours and labels and labels[0].count(":") == 1:
            decimals = len(labels[0].partition(".")[2])
            labels = [format_time(v * scale, decimals, True) for v in values]
        return labels


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
