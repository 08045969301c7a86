"""A label whose new text does not lay the window out again.

`QLabel.setText` always calls `updateGeometry`: its parent's layout is invalidated, and each
layout activated on the way up invalidates its own parent's, so a step's caption, set at every
arrow key, laid out the whole window (the workbench's splitters, the score panel, the
document's view: 2-3 ms a step, the rich-text labels measured again each time). A label of
fixed height held in a `QuietBox` (a widget without a layout, which the label fills) stops that
at the box: the box's own height follows the label's fixed height, its width is the layout's.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class QuietBox(QWidget):
    """Holds `label` (of fixed height) in a parent's layout in its stead."""

    def __init__(self, label: QLabel, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        label.move(0, 0)
        policy = QSizePolicy(label.sizePolicy().horizontalPolicy(), QSizePolicy.Policy.Fixed)
        self.setSizePolicy(policy)
        self._follow()

    def _follow(self) -> None:
        """The box's height is the label's fixed height (set only when it changes: only
        then is the parent's layout invalidated)."""
        height = self.label.minimumHeight()
        if self.minimumHeight() != height or self.maximumHeight() != height:
            self.setFixedHeight(height)

    def event(self, event) -> bool:
        # the label's text or height changed (its `updateGeometry` ends here)
        if event.type() == QEvent.Type.LayoutRequest:
            self._follow()
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.label.resize(self.size())

    # the label's own widths (read when the layout is made for another reason), its height
    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.label.sizeHint().width(), self.label.minimumHeight())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.label.minimumSizeHint().width(), self.label.minimumHeight())


def lay_out(label: QLabel) -> None:
    """Lay `label`'s new rich text out now, at its width, as its paint would: a label that
    lays its text out in the paint asks there for a second paint of itself (the step's
    caption and the score numbers were painted twice a step)."""
    label.heightForWidth(max(label.width(), 1))
