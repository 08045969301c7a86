"""Run something once a widget has painted (issue 36: a worker's result applied in slices).

A new document's walkthrough arrives from a worker in one piece, and drawing all of it at
once (the steps table, the document's view, the score bars and a learning curve of thousands
of points, every axis laid out anew) held the event loop for 80-140 ms. What the eye goes to
first is drawn first; the rest waits for that paint (`after_paint`) and is drawn on a later
turn of the event loop, so no turn holds the loop for the whole.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget


LATER_MS = 1
"""The timer that puts work on a later turn of the event loop than the current one: 1 ms, not
0. Qt posts a 0-ms single shot as an event, and a chain of them ran two slices at a time
before the event loop's timers (and what they drive) had their turn: a gap of two slices."""


class _Watch(QObject):
    def __init__(self, widget: QWidget, callback: Callable[[], None], timeout_ms: int):
        super().__init__(widget)
        self._widget, self._callback = widget, callback
        widget.installEventFilter(self)
        # a widget that does not paint (hidden, another tab on top) must not hold it back
        QTimer.singleShot(timeout_ms, self, self._fire)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            # after this paint, on a turn of its own
            QTimer.singleShot(LATER_MS, self, self._fire)
        return False

    def _fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is None:
            return
        self._widget.removeEventFilter(self)
        self.deleteLater()
        # and what it draws is painted on the turn after its own (a slice of 10-15 ms and
        # its paint of 20 made one stretch of the event loop)
        with paint_later(self._widget.window()):
            callback()


def after_paint(widget: QWidget, callback: Callable[[], None], timeout_ms: int = 150) -> None:
    """Call `callback` once on a turn of the event loop after `widget`'s next paint (at the
    latest after `timeout_ms`; at once when `widget` is not visible), and paint what it
    changes on the turn after (`paint_later`)."""
    if not widget.isVisible():
        callback()
        return
    widget.update()
    _Watch(widget, callback, timeout_ms)


_holding: set = set()   # the `_Held` not yet released (`paints_held`)


def paints_held() -> bool:
    """Whether a window's repaint is held by `paint_later` now (a benchmark that times a
    step until it is on screen waits for this too)."""
    return bool(_holding)


class _Held(QObject):
    """Holds a window's repaints (its UpdateRequest events) until `release`."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self._window, self.held = window, False
        window.installEventFilter(self)
        _holding.add(self)
        # a window deleted before `release` takes this with it (and its timer): not held.
        # (On this object's own signal: one on the window's stayed connected after every
        # release, a connection more for each step of a session.)
        self.destroyed.connect(lambda *_: _holding.discard(self))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self._window and event.type() == QEvent.Type.UpdateRequest:
            self.held = True
            return True
        return False

    def release(self) -> None:
        _holding.discard(self)
        self._window.removeEventFilter(self)
        if self.held:   # what was asked meanwhile, painted now (Qt posts no second request
            # for a window whose first is still pending: the held one stands for all)
            QCoreApplication.postEvent(self._window, QEvent(QEvent.Type.UpdateRequest),
                                       Qt.EventPriority.LowEventPriority.value)
        self.deleteLater()


@contextmanager
def paint_later(window: QWidget) -> Iterator[None]:
    """What the block changes is painted on a later turn of the event loop than the block's
    own, the layouts it asks for included (they are done in the pass that follows it, with
    the window's repaint): a timer of the event loop's may run between (`LATER_MS`)."""
    held = _Held(window)
    try:
        yield
    finally:
        QTimer.singleShot(LATER_MS, held, held.release)


def defer_paint(window: QWidget) -> None:
    """The repaint `window` was asked for on this turn, done on a later one
    (`paint_later` for changes already made: a repaint is asked for at once, but done when the
    event loop comes round)."""
    with paint_later(window):
        pass
