"""What the DET plot adds around its curves: the ROC convex hull the ROCCH EER lies on, arrows
at the edge for operating points outside the view, and the words for a perfectly separated
system (whose DET curve lies on the axes, outside any probit plot).

Kept apart from the tab so that the plot's own drawing stays as it is; the maths (hull on
probit axes, separated systems) is `llgui.core.display.det_plot`'s.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor


def draw_hull(item, result, colour: QColor, probit) -> None:
    """The hull as a thin dotted line in the system's colour: the ROCCH EER point lies on it,
    not on the step curve."""
    # (imported here: llgui.core.detection.det loads scipy.special, which the window's
    # start-up must not pay)
    from llgui.core.display.det_plot import hull_xy

    x, y = hull_xy(result, probit)
    if x.size:
        item.plot(x, y, pen=pg.mkPen(colour, width=1, style=Qt.PenStyle.DotLine))


class EdgeHints:
    """Arrows at the plot's edge for the EER / minDCF / actDCF points outside the view (one
    per edge they lie beyond: a point's name, or how many points, whose tooltip names them);
    redrawn when the view moves."""

    def __init__(self, plot_item):
        self.item = plot_item
        self.points: list[tuple[float, float, QColor, str]] = []
        self.arrows: list[pg.ArrowItem] = []
        plot_item.getViewBox().sigRangeChanged.connect(self._redraw)

    def set_points(self, points) -> None:
        """`points`: (x, y, colour, what) in the plot's (probit) coordinates."""
        self.points = []
        for x, y, c, w in points:
            x, y = float(x), float(y)
            if math.isnan(x) or math.isnan(y) or (math.isinf(x) and math.isinf(y)):
                continue   # nowhere (a perfectly separated system: said in the notes)
            # P_fa = 0 or P_miss = 0 lies at -inf on probit axes: an arrow at the edge still
            # points to it, saying which is 0
            zero = ("P_fa = 0" if x == -math.inf else "P_miss = 0" if y == -math.inf else
                    "P_fa = 1" if x == math.inf else "P_miss = 1" if y == math.inf else "")
            if zero:
                w = f"{w} ({zero})"
            self.points.append((max(min(x, FAR), -FAR), max(min(y, FAR), -FAR), c, w))
        self._redraw()

    def outside(self) -> list[str]:
        """What is outside the view now (tests and the notes read it)."""
        (x0, x1), (y0, y1) = self.item.getViewBox().viewRange()
        return [w for x, y, _c, w in self.points if not (x0 <= x <= x1 and y0 <= y <= y1)]

    def _redraw(self, *_) -> None:
        vb = self.item.getViewBox()
        for arrow in self.arrows:
            vb.removeItem(arrow)
        self.arrows = []
        (x0, x1), (y0, y1) = vb.viewRange()
        px, py = vb.viewPixelSize()           # data units per pixel
        placed: list[tuple[float, float, float, float]] = []   # pixel boxes of the hints
        # the points outside, by the edge they lie beyond: one hint per edge, so that a
        # campaign's minDCF and actDCF points (at P_target = 0.01 often all above a DET
        # view) do not stack a tower of labels over the curves
        groups: dict[tuple[int, int], list[tuple[float, float, QColor, str]]] = {}
        for x, y, colour, what in self.points:
            if x0 <= x <= x1 and y0 <= y <= y1:
                continue
            groups.setdefault(((x > x1) - (x < x0), (y > y1) - (y < y0)), []).append(
                (x, y, colour, what))
        for (sx, sy), points in groups.items():
            points.sort(key=lambda p: (p[0], p[1]))
            x, y, colour, what = points[0]
            arrow = ARROWS[(sx, sy)]
            cx, cy = min(max(x, x0), x1), min(max(y, y0), y1)
            # anchored so that the text stays inside, the arrow at the edge it points through
            anchor = (1.0 if sx > 0 else 0.0 if sx < 0 else 0.5,
                      0.0 if sy > 0 else 1.0 if sy < 0 else 0.5)
            names = [p[3] for p in points]
            if len(points) > 1:   # short: a long label covered curves and points in view
                what = f"{len(points)} points"
                if len({p[2].name() for p in points}) > 1:
                    colour = QColor(70, 70, 70)
            text = f"{arrow} {what}" if sx <= 0 else f"{what} {arrow}"
            hint = pg.TextItem(text, color=colour, anchor=anchor,
                               fill=pg.mkBrush(255, 255, 255, 150))
            cx, cy = _clear_of(placed, hint, cx, cy, anchor, sy, px, py, (x0, x1))
            hint.setPos(cx, cy)
            hint.setToolTip("\n".join(names) + "\noutside the view (Reset view, or zoom out "
                            "with the wheel)")
            hint.setZValue(20)
            vb.addItem(hint, ignoreBounds=True)
            self.arrows.append(hint)


def _clear_of(placed, hint, cx: float, cy: float, anchor, sy: int, px: float, py: float,
              x_range) -> tuple[float, float]:
    """Where (data units) `hint`, anchored at (cx, cy), lies inside the view's width and
    overlaps none of the `placed` pixel boxes (left, right, bottom, top; y up): a centred
    text near a side is moved in, and a text over another a line at a time into the view
    (down from the top edge, up from the bottom one); its box is added to `placed`. The
    hints of two edges meeting at a corner otherwise wrote over each other."""
    rect = hint.textItem.boundingRect()
    w, h = rect.width(), rect.height()
    if not (px > 0 and py > 0 and w > 0 and h > 0):
        return cx, cy
    if anchor[0] == 0.5:
        lo, hi = x_range[0] / px + w / 2, x_range[1] / px - w / 2
        cx = (min(max(cx / px, lo), hi) if lo <= hi else cx / px) * px
    step = 1.0 if sy < 0 else -1.0
    left = cx / px - anchor[0] * w
    y = cy / py
    for _ in range(len(placed) + 1):
        box = (left, left + w, y - (1.0 - anchor[1]) * h, y + anchor[1] * h)
        if not any(box[0] < b[1] and b[0] < box[1] and box[2] < b[3] and b[2] < box[3]
                   for b in placed):
            break
        y += step * h
    placed.append(box)
    return cx, y * py


FAR = 1e6
"""Where an infinite probit coordinate is put: outside any view, so that it gets an arrow."""

ARROWS = {(-1, 0): "←", (1, 0): "→", (0, 1): "↑", (0, -1): "↓", (-1, 1): "↖", (1, 1): "↗",
          (-1, -1): "↙", (1, -1): "↘", (0, 0): "•"}
