"""The steps table's question column while its values are computed (issue 36).

The values of a document's questions arrive from a worker a second or more after the
document. When they widened their column on arrival, every other column moved and the whole
steps table was drawn anew, 30-40 ms on the event loop while the user stepped (gate 9's
stepping gap). The column keeps a typical value's room from the start (`reserve`), and grows
on arrival only when the values need more (`widen_for`).
"""
from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

SAMPLE = "5.5/3.7/10"
"""A typical question value (`table_models._question_text`)."""


def room(table) -> int:
    """The column width of a cell showing `SAMPLE`, as the table sizes it: the style's size of
    an item view cell (what the item delegate asks) and the grid line (what
    `sizeHintForColumn` adds)."""
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.font = table.font()
    option.text = SAMPLE
    option.features |= QStyleOptionViewItem.ViewItemFeature.HasDisplay
    cell = table.style().sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, option, QSize(),
                                          table).width()
    return cell + (1 if table.showGrid() else 0)


def reserve(table, column: int, walk) -> None:
    """Keep `column`'s room for the values of `walk`'s questions while they are computed (a
    walkthrough with active steps whose values are not there yet); hide it for a log without
    active steps (no question has a value: the empty column took the room the answer was cut
    for at 1366x768, an AMI meeting's boundary steps)."""
    asked = any(s.initiative == "active" for s in walk.log)
    if table.isColumnHidden(column) == asked:
        table.setColumnHidden(column, not asked)
    if walk.questions is not None or not asked:
        return
    table.setColumnWidth(column, max(table.columnWidth(column), room(table)))


def widen_for(table, column: int) -> bool:
    """`column` made wide enough for the values it now holds, never narrower (the room kept
    for them stays, and the other columns with it); True when it changed."""
    need = table.sizeHintForColumn(column)
    if need <= table.columnWidth(column):
        return False
    table.setColumnWidth(column, need)
    return True
