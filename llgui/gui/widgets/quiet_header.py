"""A row table's column header that stands while the selected row moves (issue 36).

A table that selects whole rows highlights every column's section (Qt draws a section whose
column holds a selected cell as such), and Qt's item view repaints the region of the
selection's columns at every change of the selection: a step that moved the selected row
repainted the whole header (0.7-1 ms a step, for the same picture). `QuietHeader` repaints it
only when the columns the selection covers change."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableView


class QuietHeader(QHeaderView):
    def selectionChanged(self, selected, deselected) -> None:  # noqa: N802 - Qt's name
        if (not selected.isEmpty() and not deselected.isEmpty()
                and _columns(selected) == _columns(deselected)):
            return   # another row of the same columns: every section is drawn as it was
        super().selectionChanged(selected, deselected)


def _columns(selection) -> set:
    return {(r.left(), r.right()) for r in selection}


def quiet_header(table: QTableView) -> None:
    """Give `table` a `QuietHeader` as its column header, set as QTableView sets its own
    (clickable, highlighting the selection's sections). Call before configuring it."""
    header = QuietHeader(Qt.Orientation.Horizontal, table)
    header.setSectionsClickable(True)
    header.setHighlightSections(True)
    table.setHorizontalHeader(header)
