"""The Documents list with a comparison column: the per-document difference of S_pen between
two systems on the same document (issue 15, "side by side").

Two open bundles of the same task that share document ids are two systems on the same
documents. For each document, "Δ S_pen" is this bundle's S_pen minus the other's (the first
other open bundle of the same task holding that document, or the one `set_reference` names),
signed so that positive means this system is better; sorting the column puts the documents
that decide the comparison at the ends. It reads the same replays as the other columns.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from llgui.core.display.signed import signed
from llgui.core.penalty import pen_difference
from llgui.gui.table_models import BETTER, SORT_ROLE, WORSE, DocumentsModel

DIFF = "Δ S_pen"


class DocumentsComparisonModel(DocumentsModel):
    COLUMNS = DocumentsModel.COLUMNS + (DIFF,)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.reference: int | None = None   # the bundle compared against (None: the first other)

    def set_reference(self, bundle_index: int | None) -> None:
        self.reference = bundle_index
        self._painted.clear()
        self._changed_all()

    def set_result(self, bundle_index: int, result) -> None:
        super().set_result(bundle_index, result)
        self._changed_all()   # another bundle's rows compare against this one

    def _changed_all(self) -> None:
        rows = self.rowCount()
        if rows:
            column = len(self.COLUMNS) - 1
            self.dataChanged.emit(self.index(0, column), self.index(rows - 1, column))

    def other(self, row: int) -> int | None:
        """The bundle the row's document is compared with, or None."""
        b, doc = self._locate(row)
        task = self._bundles[b].task
        candidates = [self.reference] if self.reference is not None else \
            range(len(self._bundles))
        for k in candidates:
            if k is None or k == b or k >= len(self._bundles):
                continue
            other = self._bundles[k]
            if other.task == task and other.position(doc.id) >= 0:
                return k
        return None

    def difference(self, row: int) -> float | None:
        """S_pen of the row's bundle minus the other's, positive = better; None if unknown."""
        k = self.other(row)
        if k is None:
            return None
        b, doc = self._locate(row)
        result, theirs_result = self._results.get(b), self._results.get(k)
        if result is None or theirs_result is None or result.metric != theirs_result.metric:
            return None
        # the per-document summaries built on the worker (no scan of the replays per cell)
        mine = self._summaries.get(b, {}).get(doc.id)
        theirs = self._summaries.get(k, {}).get(doc.id)
        if mine is None or theirs is None:
            return None
        return pen_difference(mine, theirs, bool(result.higher_is_better))

    def _cell(self, index, role):
        if not index.isValid() or self.COLUMNS[index.column()] != DIFF:
            return super()._cell(index, role)
        raw = self.difference(index.row())
        if raw is not None and round(raw, 2) == 0:
            raw = 0.0   # no "-0.00": equal is equal
        if role == SORT_ROLE:
            return -math.inf if raw is None else raw
        if role == Qt.ItemDataRole.DisplayRole:
            return "" if raw is None else signed(raw)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and raw is not None:
            return QBrush(BETTER if raw > 0 else WORSE if raw < 0 else QColor(0, 0, 0))
        if role == Qt.ItemDataRole.ToolTipRole:
            k = self.other(index.row())
            if k is None:
                return "no other open system of this task has this document"
            return (f"S_pen of this system minus that of {self._bundles[k].name} on the same "
                    "document, positive = this system better")
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if (orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole
                and section == len(self.COLUMNS) - 1):
            return ("per-document difference of S_pen against another open system on the same "
                    "document (positive = better); sort to find the documents that decide "
                    "the comparison")
        return super().headerData(section, orientation, role)
