"""A table's columns fitted to their contents at the cost of one cell a column (gate 9).

`QTableView.resizeColumnsToContents` asks the item delegate for the size of every sampled
cell (`ResizeContentsPrecision` rows): each asks the model for eight roles through Python and
lays its text out. Opening 1,000 documents, that was 37-46 ms of the event loop in one
stretch, before the first paint, for 32 rows of the Documents panel. `fit_columns` reads only
the text of the same rows, finds each column's widest text with the view's font metrics,
and asks the delegate for that one cell's size: the width Qt's own fit gives, as long as a
column's cells differ only in their text (one font, no icon), as the tables it serves do.
"""
from __future__ import annotations

from PySide6.QtCore import Qt

_DISPLAY = Qt.ItemDataRole.DisplayRole


def sampled_rows(view) -> range:
    """The rows `resizeColumnsToContents` measures: from the first shown, as many as the
    header's `resizeContentsPrecision` (all of them for -1, the shown ones for 0)."""
    rows = view.model().rowCount()
    precision = view.horizontalHeader().resizeContentsPrecision()
    if precision < 0 or rows <= precision:
        return range(rows)
    first = max(view.rowAt(0), 0)
    if precision == 0:
        last = view.rowAt(view.viewport().height())
        return range(first, (last if last >= 0 else rows - 1) + 1)
    first = min(first, rows - precision)
    return range(first, first + precision)


def fit_columns(view) -> None:
    """Each shown column as wide as its widest sampled cell or its header, whichever is
    wider (as `view.resizeColumnsToContents()`)."""
    model = view.model()
    header = view.horizontalHeader()
    metrics = view.fontMetrics()
    rows = sampled_rows(view)
    grid = 1 if view.showGrid() else 0
    for column in range(model.columnCount()):
        if header.isSectionHidden(column):
            continue
        widest, best = -1, None
        for row in rows:
            index = model.index(row, column)
            text = model.data(index, _DISPLAY)
            if text is None:
                continue
            width = metrics.horizontalAdvance(str(text))
            if width > widest:
                widest, best = width, index
        hint = view.sizeHintForIndex(best).width() + grid if best is not None else 0
        view.setColumnWidth(column, max(hint, header.sectionSizeHint(column)))
