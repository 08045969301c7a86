"""A table's number column that its viewport's edge cuts ends at the edge, its numbers ending
in "…": the Documents panel of a 1366-px window cut S_base mid-number, so that 9.33 read
"9.3" and 27.13 "27.1" (outsider helper-41). Qt elides a text its cell is too narrow for, but
not a column the viewport's edge crosses."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QStyledItemDelegate


class ElideRight(QStyledItemDelegate):
    """A number too wide for its cell ends in "…" ("27.…"), whatever the view's elide mode."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt's name
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight


class ElideMiddle(QStyledItemDelegate):
    """A text too wide for its cell is cut in the middle ("test-en-new…228963"), whatever the
    view's elide mode: for the id columns of a view that elides on the right (a delegate of
    Python costs every cell it paints, so the view's own mode serves the many columns)."""

    def initStyleOption(self, option, index) -> None:  # noqa: N802 - Qt's name
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class EdgeColumns(QObject):
    """Keeps `columns` (logical indexes of number columns) of `view` from being cut by its
    viewport's edge: the one the edge crosses is narrowed to end there (its cells then end in
    "…"), and given its width back when the viewport grows. `fit()` after the view's columns
    are sized; the viewport's resizes fit again."""

    def __init__(self, view, columns) -> None:
        super().__init__(view)
        self.view = view
        self.columns = tuple(columns)
        self.narrowed: dict[int, int] = {}   # column -> its width before it was narrowed
        if view.textElideMode() != Qt.TextElideMode.ElideRight:   # else the view's own
            self._delegate = ElideRight(view)
            for column in self.columns:
                view.setItemDelegateForColumn(column, self._delegate)
        view.viewport().installEventFilter(self)
        self._pending = False

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize and not self._pending:
            self._pending = True   # (once the resizes of a layout are over)
            QTimer.singleShot(0, self, self._refit)
        return False

    def _refit(self) -> None:
        self._pending = False
        for column, width in self.narrowed.items():
            self.view.setColumnWidth(column, width)
        self.narrowed.clear()
        self.fit()

    def sized(self) -> None:
        """The view's columns were sized anew: nothing is narrowed any more."""
        self.narrowed.clear()
        self.fit()

    def fit(self) -> None:
        view = self.view
        header = view.horizontalHeader()
        room = view.viewport().width()
        for visual in range(header.count()):
            column = header.logicalIndex(visual)
            if header.isSectionHidden(column):
                continue
            left = header.sectionViewportPosition(column)
            width = header.sectionSize(column)
            if left < room < left + width:   # the one the edge crosses
                if column in self.columns:
                    self.narrowed[column] = width
                    view.setColumnWidth(column, room - left)
                return
