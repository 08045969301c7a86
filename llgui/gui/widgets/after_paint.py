"""Run something once a widget has painted (issue 36: a worker's result applied in slices).

A new document's walkthrough arrives from a worker in one piece, and drawing all of it at
once (the steps table, the document's view, the score bars and a learning curve of thousands
of points, every axis laid out anew) held the event loop for 80-140 ms. What the eye goes to
first is drawn first; the rest waits for that paint (`after_paint`) and is drawn on a later
turn of the event loop, so no turn holds the loop for the whole.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class _Watch(QObject):
    def __init__(self, widget: QWidget, callback: Callable[[], None], timeout_ms: int):
        super().__init__(widget)
        self._widget, self._callback = widget, callback
        widget.installEventFilter(self)
        # a widget that does not paint (hidden, another tab on top) must not hold it back
        QTimer.singleShot(timeout_ms, self, self._fire)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            # after this paint, on a turn of its own (a zero timer started now)
            QTimer.singleShot(0, self, self._fire)
        return False

    def _fire(self) -> None:
        callback, self._callback = self._callback, None
        if callback is None:
            return
        self._widget.removeEventFilter(self)
        self.deleteLater()
        callback()


def after_paint(widget: QWidget, callback: Callable[[], None], timeout_ms: int = 150) -> None:
    """Call `callback` once on a turn of the event loop after `widget`'s next paint (at the
    latest after `timeout_ms`; at once when `widget` is not visible)."""
    if not widget.isVisible():
        callback()
        return
    widget.update()
    _Watch(widget, callback, timeout_ms)
