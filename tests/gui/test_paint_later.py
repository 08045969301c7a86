"""Opening bundles draws in steps the event loop's timers can run between (gate 9): the
window's paint of what `paint_later` changed comes on a later turn than the change, and the
jobs of the new bundles wait for that paint in a shown window, however long it takes."""
from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

from llgui.gui.demo import demo_bundles
from llgui.gui.widgets.after_paint import defer_paint, paint_later, paints_held
from tests.gui.conftest import shown, shown_window


class _Painted(QWidget):
    def __init__(self, order: list):
        super().__init__()
        self.order = order

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.order.append("paint")


def _painted_with_a_due_timer(qtbot) -> tuple[QWidget, list, QTimer]:
    """A shown widget that notes its paints in `order`, and a timer due already that notes
    "timer" there."""
    order: list[str] = []
    widget = shown(qtbot, _Painted(order), 300, 200)
    qtbot.waitUntil(lambda: "paint" in order)
    order.clear()
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setSingleShot(True)
    timer.timeout.connect(lambda: order.append("timer"))
    timer.start(0)
    time.sleep(0.003)   # the timer is due before what follows begins
    return widget, order, timer


def test_the_paint_comes_after_a_timer_of_the_event_loop(qtbot):
    widget, order, _timer = _painted_with_a_due_timer(qtbot)
    with paint_later(widget):
        widget.update()
        order.append("changed")
    QCoreApplication.sendPostedEvents()   # the pass that painted it at once before
    assert order == ["changed"]
    assert paints_held(), "a benchmark timing a step until it is on screen would stop here"
    qtbot.waitUntil(lambda: "paint" in order, timeout=2000)
    assert order == ["changed", "timer", "paint"]
    assert not paints_held()


def test_a_repaint_already_asked_for_is_deferred_past_a_timer(qtbot):
    """`defer_paint` after the change: the step that opens a long show's split view knows it
    did only once it has done it (its 40 ms and its paint of 35 were one stretch)."""
    widget, order, _timer = _painted_with_a_due_timer(qtbot)
    widget.update()          # asked for before the deferral
    order.append("changed")
    defer_paint(widget)
    QCoreApplication.sendPostedEvents()
    assert order == ["changed"] and paints_held()
    qtbot.waitUntil(lambda: "paint" in order, timeout=2000)
    assert order == ["changed", "timer", "paint"]


class _NoPaint(QObject):
    """Keeps a window from painting (its repaint requests swallowed)."""

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        return event.type() == QEvent.Type.UpdateRequest


def test_the_new_bundles_jobs_wait_for_the_paint_that_shows_them(qtbot):
    from llgui.gui.window.opening import OPEN_HOLD_MS

    window = shown_window(qtbot)
    qtbot.waitUntil(lambda: not window.jobs.holding)   # (the start-up hold is over)
    blocker = _NoPaint()
    window.installEventFilter(blocker)
    assert window.open_bundles(demo_bundles()[:1])
    assert window.jobs.holding
    qtbot.wait(5 * OPEN_HOLD_MS)   # a paint of 1,000 documents is 70 ms: no deadline
    assert window.jobs.holding, "the jobs started before the window painted the bundle"
    window.removeEventFilter(blocker)
    QCoreApplication.postEvent(window, QEvent(QEvent.Type.UpdateRequest))
    qtbot.waitUntil(lambda: not window.jobs.holding, timeout=5000)
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
    window.jobs.shutdown(2000)


def test_a_window_deleted_while_held_is_not_held_any_more(qtbot):
    window = QWidget()
    window.show()
    with paint_later(window):
        window.update()
    assert paints_held()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not paints_held(), "a benchmark waiting on it would wait for ever"


def test_holds_leave_no_connection_on_the_window(qtbot):
    """Each hold forgets itself on its own `destroyed`: one on the window's stayed connected
    after every release, a connection more for each step of a session."""
    from PySide6.QtCore import SIGNAL

    widget, order, _timer = _painted_with_a_due_timer(qtbot)
    before = widget.receivers(SIGNAL("destroyed(QObject*)"))
    for _ in range(20):
        with paint_later(widget):
            widget.update()
        qtbot.waitUntil(lambda: not paints_held(), timeout=2000)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert widget.receivers(SIGNAL("destroyed(QObject*)")) == before
