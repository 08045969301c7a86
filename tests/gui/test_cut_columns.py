"""`llgui.gui.widgets.cut_columns`: the number column a table's viewport edge crosses is
narrowed to end there, its numbers ending in "…", and gets its width back when the viewport
grows (the Documents panel read 27.13 as "27.1" at 1366 px, outsider helper-41)."""
from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTableView


def _view(qtbot):
    model = QStandardItemModel(3, 4)
    for row in range(3):
        for column in range(4):
            model.setItem(row, column, QStandardItem(f"{27.13 + row + 10 * column:.2f}"))
    view = QTableView()
    view.setModel(model)
    qtbot.addWidget(view)
    for column in range(4):
        view.setColumnWidth(column, 80)
    return view


def test_the_crossed_column_ends_at_the_edge_and_widens_back(qtbot):
    from llgui.gui.widgets.cut_columns import EdgeColumns

    view = _view(qtbot)
    edge = EdgeColumns(view, [1, 2, 3])
    view.resize(200, 150)
    view.show()
    qtbot.waitExposed(view)
    edge.sized()
    qtbot.wait(50)   # (a scrollbar that came or went resized the viewport: fitted again)
    room = view.viewport().width()
    assert list(edge.narrowed.values()) == [80]   # one column, 80 px before
    (crossed,) = edge.narrowed
    assert crossed in (1, 2)   # (80-px columns in a ~190-px viewport)
    assert abs(view.columnViewportPosition(crossed) + view.columnWidth(crossed) - room) <= 1
    for column in range(4):   # every column whole inside or wholly past the edge
        x, width = view.columnViewportPosition(column), view.columnWidth(column)
        assert x + width <= room + 1 or x >= room
    # its cells end in "…": a number too wide is elided on the right
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QStyleOptionViewItem

    assert view.textElideMode() == Qt.TextElideMode.ElideRight   # the view's own mode
    assert view.itemDelegateForColumn(crossed) is None   # (no delegate of Python needed)
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)   # a view that cuts in the middle:
    other = EdgeColumns(view, [crossed])                   # its number columns get one
    option = QStyleOptionViewItem()
    view.itemDelegateForColumn(crossed).initStyleOption(option, view.model().index(0, crossed))
    assert option.textElideMode == Qt.TextElideMode.ElideRight
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    other.deleteLater()
    view.resize(600, 150)   # wide enough for all: every column at its width again
    qtbot.waitUntil(lambda: not edge.narrowed and view.columnWidth(crossed) == 80,
                    timeout=5000)


def test_a_text_column_crossed_is_left_as_it_is(qtbot):
    from llgui.gui.widgets.cut_columns import EdgeColumns

    view = _view(qtbot)
    edge = EdgeColumns(view, [3])   # only the last counts as a number column
    view.resize(200, 150)
    view.show()
    qtbot.waitExposed(view)
    edge.sized()
    assert edge.narrowed == {} and all(view.columnWidth(c) == 80 for c in range(4))
