"""PolicyCurveItem: the user-policy curve drawn in a plot, edited with the mouse.

The item shows a `Policy` (llgui.core.across_time.policy) as its piecewise-linear curve, held constant
beyond the end points up to the edges of the editable range, and one handle per control point.

Mouse and keys (the item lives in a pyqtgraph ViewBox; all coordinates are the plot's: x in
the policy's units, y the weight):

- drag a handle: the point follows the mouse, x clamped strictly between its neighbours (and
  inside `bounds`), weight clamped to >= 0 and to the top of the view;
- double-click anywhere: add a point there;
- right-click a handle, or select it (click) and press Delete / Backspace: remove it; the last
  point is never removed. (Keys reach the plot widget, not the item: the owner routes them to
  `remove_point()`, which works whether or not the scene has focus.)

Two phases, as pyqtgraph's ROIs: `policy_changing(Policy)` while dragging, throttled to one
signal every THROTTLE_MS (a trailing timer delivers the last position, so the plots never lag
behind a mouse that stopped), and `policy_edited(Policy)` once on release, or once per added or
removed point: the caller turns that into one undoable command. The item never writes the
session state itself; the owner calls `set_policy` when the state changes (undo included).
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal

from llgui.core.across_time.policy import Policy

CURVE = "#1f5fa8"
HANDLE = "#1f5fa8"
SELECTED = "#e67e22"


class PolicyCurveItem(pg.GraphicsObject):
    policy_changing = Signal(object)   # provisional Policy while a handle is dragged
    policy_edited = Signal(object)     # the new Policy: a released drag, an added/removed point
    point_selected = Signal(int)       # index (in x order) of the selected point, -1 for none

    HANDLE_PX = 12        # handle diameter, pixels
    PICK_PX = 10          # a press this close to a handle's centre grabs it
    THROTTLE_MS = 30      # at most one policy_changing per this many milliseconds

    def __init__(self, policy: Policy, bounds: tuple[float, float] = (0.0, 1.0)):
        super().__init__()
        self.policy = policy
        self.bounds = (float(bounds[0]), float(bounds[1]))
        self.selected = -1
        self._drag: int | None = None          # index of the point being dragged
        self._drag_from: Policy | None = None  # the policy when the drag started
        self._offset = QPointF(0.0, 0.0)       # handle centre minus press position (data)
        self._pending: Policy | None = None    # provisional policy not yet emitted
        self._last_emit = 0.0
        self._rect = QRectF()
        self.setFlag(self.GraphicsItemFlag.ItemHasNoContents)
        self.setZValue(10)  # above the plot's other items, so it sees presses first

        self.curve = pg.PlotCurveItem(pen=pg.mkPen(CURVE, width=2.5))
        self.curve.setParentItem(self)
        self.handles = pg.ScatterPlotItem(size=self.HANDLE_PX, pxMode=True)
        self.handles.setParentItem(self)
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._emit_pending)
        self._redraw()

    # -- the model --------------------------------------------------------------------------

    def set_policy(self, policy: Policy, bounds: tuple[float, float] | None = None) -> None:
        """Show `policy` (the session's, after an edit or an undo); ends any drag."""
        self._drag = None
        self._drag_from = None
        self._timer.stop()
        self.policy = policy
        if bounds is not None:
            self.bounds = (float(bounds[0]), float(bounds[1]))
        if self.selected >= len(policy.points):
            self.selected = -1
        self._redraw()

    def _redraw(self) -> None:
        xs, ws = self.policy.xs, self.policy.ws
        lo, hi = self.bounds
        # Constant beyond the end points, drawn to the edges of the editable range.
        line_x = np.concatenate(([min(lo, xs[0])], xs, [max(hi, xs[-1])]))
        line_w = np.concatenate(([ws[0]], ws, [ws[-1]]))
        self.curve.setData(line_x, line_w)
        brushes = [pg.mkBrush(SELECTED if i == self.selected else "w")
                   for i in range(len(xs))]
        pens = [pg.mkPen(SELECTED if i == self.selected else HANDLE, width=2)
                for i in range(len(xs))]
        self.handles.setData(xs, ws, brush=brushes, pen=pens, symbol="o",
                             data=list(range(len(xs))))

    # -- geometry ---------------------------------------------------------------------------

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        # The whole visible view: a double-click anywhere in the plot must reach the item.
        return self._rect

    def viewRangeChanged(self) -> None:  # noqa: N802 - pyqtgraph's hook
        vb = self.getViewBox()
        if vb is None:
            return
        rect = vb.viewRect()
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)

    def dataBounds(self, axis, frac=1.0, orthoRange=None):  # noqa: N802, N803
        # Auto-range follows the curve's points, not the view-sized bounding rectangle.
        values = self.policy.xs if axis == 0 else self.policy.ws
        return float(values.min()), float(values.max())

    def paint(self, painter, option, widget=None) -> None:  # children draw everything
        pass

    # The ViewBox updates its transform lazily (before the next paint); its own mapping
    # functions bring it up to date first, so a press right after a range change still lands
    # on the handle the user sees.
    def _to_scene(self, x: float, w: float) -> QPointF:
        vb = self.getViewBox()
        point = QPointF(x, w)
        return vb.mapViewToScene(point) if vb is not None else self.mapToScene(point)

    def _from_scene(self, scene_pos: QPointF) -> QPointF:
        vb = self.getViewBox()
        return vb.mapSceneToView(scene_pos) if vb is not None else self.mapFromScene(scene_pos)

    def point_at(self, scene_pos: QPointF) -> int | None:
        """Index of the handle within PICK_PX pixels of a scene position, nearest first."""
        best, best_d = None, float(self.PICK_PX)
        for i, (x, w) in enumerate(self.policy.points):
            p = self._to_scene(x, w)
            d = float(np.hypot(p.x() - scene_pos.x(), p.y() - scene_pos.y()))
            if d <= best_d:
                best, best_d = i, d
        return best

    def scene_position(self, index: int) -> QPointF:
        """Scene position of handle `index` (tests map it to the viewport to press there)."""
        x, w = self.policy.points[index]
        return self._to_scene(x, w)

    def _clamped(self, points, index: int, x: float, w: float) -> tuple[float, float]:
        """(x, w) kept strictly between the neighbours of point `index`, inside the bounds,
        with 0 <= w <= the top of the view."""
        lo, hi = self.bounds
        span = max(hi - lo, 1e-12)
        gap = span * 1e-6  # two points may never share an x
        if index > 0:
            lo = max(lo, points[index - 1][0] + gap)
        if index < len(points) - 1:
            hi = min(hi, points[index + 1][0] - gap)
        if lo <= hi:
            x = min(max(x, lo), hi)
        else:  # neighbours closer than the gap: the point cannot move sideways
            x = points[index][0]
        top = self._rect.bottom() if self._rect.height() > 0 else float("inf")
        w = min(max(w, 0.0), max(top, 0.0))
        return float(x), float(w)

    # -- mouse ------------------------------------------------------------------------------

    def hoverEvent(self, ev) -> None:  # noqa: N802 - pyqtgraph's name
        if ev.isExit():
            self.setCursor(Qt.CursorShape.ArrowCursor)
            return
        if self.point_at(ev.scenePos()) is not None:
            ev.acceptDrags(Qt.MouseButton.LeftButton)
            ev.acceptClicks(Qt.MouseButton.LeftButton)    # select the handle
            ev.acceptClicks(Qt.MouseButton.RightButton)   # remove it
            self.setCursor(Qt.CursorShape.SizeAllCursor)
        else:
            self.setCursor(Qt.CursorShape.CrossCursor)

    def mouseDragEvent(self, ev) -> None:  # noqa: N802 - pyqtgraph's name
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            index = self.point_at(ev.buttonDownScenePos())
            if index is None:
                ev.ignore()   # not on a handle: let the view have it
                return
            self._drag = index
            self._drag_from = self.policy
            x, w = self.policy.points[index]
            self._offset = QPointF(x, w) - self._from_scene(ev.buttonDownScenePos())
            self._select(index)
        elif self._drag is None or self._drag_from is None:
            ev.ignore()
            return
        ev.accept()
        here = self._from_scene(ev.scenePos()) + self._offset
        start = self._drag_from
        x, w = self._clamped(start.points, self._drag, here.x(), here.y())
        moved = start.moved(self._drag, x, w)
        self.policy = moved
        self._redraw()
        if ev.isFinish():
            self._timer.stop()
            self._pending = None
            self._drag = None
            self._drag_from = None
            if moved != start:
                self.policy_edited.emit(moved)
        else:
            self._queue(moved)

    def mouseClickEvent(self, ev) -> None:  # noqa: N802 - pyqtgraph's name
        if ev.button() == Qt.MouseButton.RightButton:
            index = self.point_at(ev.scenePos())
            if index is None:
                ev.ignore()
                return
            ev.accept()
            self.remove_point(index)
            return
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        index = self.point_at(ev.scenePos())
        if ev.double():
            ev.accept()
            if index is None:
                pos = self._from_scene(ev.scenePos())
                self.add_point(pos.x(), pos.y())
            return
        if index is not None:
            ev.accept()
            self._select(index)
        else:
            self._select(-1)
            ev.ignore()

    # -- edits ------------------------------------------------------------------------------

    def add_point(self, x: float, w: float) -> bool:
        """Add a point at (x, w) (clamped into the bounds, w >= 0); emits policy_edited.
        False (nothing changes) if a point already has that x."""
        lo, hi = self.bounds
        x = float(min(max(x, lo), hi))
        w = float(max(w, 0.0))
        try:
            new = self.policy.added(x, w)
        except ValueError:
            return False
        self.policy = new
        self.selected = int(np.flatnonzero(new.xs == x)[0])
        self._redraw()
        self.point_selected.emit(self.selected)
        self.policy_edited.emit(new)
        return True

    def remove_point(self, index: int | None = None) -> bool:
        """Remove point `index` (default: the selected one); never the last point. Emits
        policy_edited; False when nothing was removed."""
        index = self.selected if index is None else index
        if not 0 <= index < len(self.policy.points) or len(self.policy.points) <= 1:
            return False
        new = self.policy.removed(index)
        self.policy = new
        self.selected = -1
        self._redraw()
        self.point_selected.emit(-1)
        self.policy_edited.emit(new)
        return True

    def _select(self, index: int) -> None:
        if index != self.selected:
            self.selected = index
            self._redraw()
            self.point_selected.emit(index)

    # -- throttled "-ing" signal ------------------------------------------------------------

    def _queue(self, policy: Policy) -> None:
        self._pending = policy
        wait_ms = self.THROTTLE_MS - 1000.0 * (time.monotonic() - self._last_emit)
        if wait_ms <= 0:
            self._timer.stop()
            self._emit_pending()
        elif not self._timer.isActive():
            self._timer.start(int(wait_ms) + 1)

    def _emit_pending(self) -> None:
        if self._pending is None or self._drag is None:
            return
        policy, self._pending = self._pending, None
        self._last_emit = time.monotonic()
        self.policy_changing.emit(policy)
