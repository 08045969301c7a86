"""A widget's next look drawn ahead, shown as a picture over it until it is brought to it
(issue 36).

Some widgets cost a step more to be given their new content than to be looked at: a zoomed
timeline panel culls its bars, sets its range and lays out its axis and title
(`workbench.diar_photo`). While the user reads a step, the owner draws the next step's look
into a twin of the widget in a window that is never on screen (`shadow_window`,
`QWidget.grab`), and at the step shows that picture over the widget (`Cover`): a pixmap
drawn, nothing laid out. The widget itself is given its content on a later turn of the event
loop, under the picture, which is then taken away: what the screen shows does not change
(tests hold the picture equal to the widget's own paint). The mouse entering or pressing a
picture, its wheel, or a focus on the widget bring the widget at once (it answers the
pointer and keys itself).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

LIVE_AFTER_MS = 40
"""How long after a step shown by its picture the widget under it is brought to the step:
past the step's paint and the turns after it (a reader takes 300 ms or more to the next
key)."""


class Cover(QLabel):
    """A picture over `widget` (a child of it, shown at no size while nothing is covered:
    a child shown or hidden lays every widget above it out again, and the window was painted
    twice a step). `touched()` is called when the mouse enters, presses or turns its wheel
    over the picture, or `widget` takes the focus."""

    def __init__(self, widget: QWidget, touched: Callable[[], None]):
        super().__init__(widget)
        self._widget = widget
        self._touched = touched
        # opaque: the widget under it is not painted while it is given its content
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setGeometry(0, 0, 0, 0)
        self.show()
        self._focus = _FocusWatch(widget, self)

    @property
    def covering(self) -> bool:
        return not self.size().isEmpty()

    def cover(self, picture: QPixmap) -> None:
        self.setPixmap(picture)
        self.setGeometry(self._widget.rect())
        self.raise_()

    def take_away(self) -> None:
        if self.covering:
            self.setGeometry(0, 0, 0, 0)

    def touch(self) -> None:
        if self.covering:
            self._touched()

    def enterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.touch()
        super().enterEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.touch()
        event.ignore()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.touch()
        event.ignore()


class _FocusWatch(QObject):
    """The covered widget (or a child of it) taking the focus touches the cover: keys go to
    the widget, which must show what it holds."""

    def __init__(self, widget: QWidget, cover: Cover):
        super().__init__(cover)
        self._cover = cover
        for watched in [widget] + widget.findChildren(QWidget):
            if watched is not cover and watched.focusPolicy() != Qt.FocusPolicy.NoFocus:
                watched.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FocusIn:
            self._cover.touch()
        return False


class ShadowWindow(QWidget):
    """A window of `parent`'s (its font, palette and style sheet) that is never on screen,
    its widgets side by side with no margin: the twins drawn ahead live there, each at its
    live widget's size (`QWidget.grab` paints them). A twin must fill its rectangle (a
    timeline panel does): what a transparent edge blends with here is this window's
    background, not what is behind the live widget (a text pane's rounded frame corners and
    scroll bar came out a shade darker)."""

    def __init__(self, parent: QWidget):
        super().__init__(parent, Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        self.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)


def shadow_window(parent: QWidget) -> ShadowWindow:
    return ShadowWindow(parent)
