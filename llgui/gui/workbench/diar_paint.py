"""The timeline's lanes painted by two items per view (issue 36, gate 14).

A step of an hour's meeting changed ~20 bar items (one per colour) and ~60 turn-label items
in each of the three timelines of a split view; each change went through pyqtgraph (new
bounds, the view told, the item's transform and cache redone) and Qt's scene (every item's
dirty region processed), ~12 ms a step before a single bar was drawn. Here each timeline
has one `LaneBars` that paints every colour's bars (one `QPainter.drawRects` per colour,
from arrays in place) and one `LaneLabels` that paints every turn label in device pixels:
a step or a new range gives them their arrays and asks for one paint.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPen, QTextDocument

NO_PEN = QPen(Qt.PenStyle.NoPen)


class Layer:
    """The bars of one brush (a speaker's colour, or the fill pattern over it): x0, y0,
    width, height arrays, and the rectangles handed to the painter."""

    __slots__ = ("colour", "brush", "x0", "y0", "width", "height", "rects")

    def __init__(self, colour: str, brush: QBrush, x0, y0, width, height):
        self.colour, self.brush = colour, brush
        self.x0, self.y0, self.width, self.height = x0, y0, width, height
        n = int(np.size(x0))
        self.rects = pg.Qt.internals.PrimitiveArray(QRectF, 4)
        self.rects.resize(n)
        if n:
            memory = self.rects.ndarray()
            memory[:, 0] = x0
            memory[:, 1] = y0
            memory[:, 2] = width
            memory[:, 3] = height

    def __len__(self) -> int:
        return int(np.size(self.x0))


class _Painted(pg.GraphicsObject):
    """An item as large as the lanes (`set_extent`), painted whole when it changes."""

    def __init__(self):
        super().__init__()
        self._bounds = self._data = QRectF()

    def set_extent(self, data: tuple, paint: tuple) -> None:
        """The lanes' extent (x0, x1, y0, y1: what the view's auto-range shows) and where
        the item may paint (wider: a turn may end past the extent, a shade fills the
        view's height)."""
        self._data = QRectF(data[0], data[2], data[1] - data[0], data[3] - data[2])
        bounds = QRectF(paint[0], paint[2], paint[1] - paint[0], paint[3] - paint[2])
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return QRectF(self._bounds)

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803
        if self._data.isNull():
            return None, None
        if ax == 0:
            return self._data.left(), self._data.right()
        return self._data.top(), self._data.bottom()


class LaneBars(_Painted):
    """Every lane's bars of a timeline: `layers` (`Layer` each), painted in their order."""

    def __init__(self):
        super().__init__()
        self.layers: list[Layer] = []

    def set_layers(self, layers: list[Layer]) -> None:
        """Draw `layers`; nothing is repainted when they are the ones drawn."""
        if len(layers) == len(self.layers) and all(
                a is b for a, b in zip(layers, self.layers)):
            return
        self.layers = layers
        self.update()

    def paint(self, p, *args) -> None:
        p.setPen(NO_PEN)
        for layer in self.layers:
            if len(layer):
                p.setBrush(layer.brush)
                p.drawRects(*layer.rects.drawargs())


class LaneLabels(_Painted):
    """The turn labels of a timeline: `labels` as (text, x, y, ink), each drawn in pixels
    from its point (x, y) in the view's units, its left edge there and its middle at y."""

    POINT_SIZE = 7.5

    def __init__(self):
        super().__init__()
        self.labels: list[tuple[str, float, float, str]] = []
        self.font = None   # the application's font at the first paint, smaller
        self._pens: dict[str, QPen] = {}

    def set_labels(self, labels: list) -> None:
        if labels == self.labels:
            return
        self.labels = labels
        self.update()

    def paint(self, p, *args) -> None:
        if not self.labels:
            return
        if self.font is None:
            self.font = QFont()
            self.font.setPointSizeF(self.POINT_SIZE)
            self._offset = _text_offset(self.font)
        transform = p.transform()
        p.save()
        p.resetTransform()
        p.setFont(self.font)
        dx, dy = self._offset
        for text, x, y, ink in self.labels:
            pen = self._pens.get(ink)
            if pen is None:
                pen = self._pens[ink] = QPen(QColor(ink))
            p.setPen(pen)
            at = transform.map(QPointF(x, y))
            p.drawText(QPointF(at.x() + dx, at.y() + dy), text)
        p.restore()


def _text_offset(font: QFont) -> tuple[float, float]:
    """Where a label's baseline starts from its point, laid out as a text item anchored at
    its left middle lays it out (the document's margin around one line of `font`)."""
    document = QTextDocument()
    document.setDefaultFont(font)
    document.setPlainText("Xg")
    margin = document.documentMargin()
    height = document.size().height()
    line = document.firstBlock().layout().lineAt(0)
    return margin, -height / 2 + margin + line.y() + line.ascent()



class Shaded(_Painted):
    """Time regions shaded over the view's whole height, an edge line each side (the windows
    the human listened to): painted as a `pg.LinearRegionItem` and its two lines paint
    themselves, without two pyqtgraph items and three signals a region moved at every step."""

    def __init__(self, brush: QBrush, pen: QPen):
        super().__init__()
        self.regions: list[tuple[float, float]] = []
        self._brush, self._pen = brush, pen

    def set_regions(self, regions) -> None:
        regions = [(float(a), float(b)) for a, b in regions]
        if regions == self.regions:
            return
        self.regions = regions
        self.update()

    def paint(self, p, *args) -> None:
        if not self.regions:
            return
        view = self.viewRect()
        top, height = view.top(), view.height()
        for start, end in self.regions:   # (with the view's render hints, as pyqtgraph's
            p.setBrush(self._brush)       # region and its upright lines are drawn)
            p.setPen(NO_PEN)
            p.drawRect(QRectF(start, top, end - start, height).normalized())
            p.setPen(self._pen)
            for x in (start, end):
                p.drawLine(QPointF(x, top), QPointF(x, top + height))
