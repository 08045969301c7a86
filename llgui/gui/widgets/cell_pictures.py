"""A table's cells painted from pictures kept per cell and state (issue 36).

A step moves the steps table's selected row: Qt repaints the two rows, and its item delegate
asks the model (Python) for a dozen roles of each of their 22 cells and lays out each text
again. After a reader's pause that took 8.6 ms of a step here, for the same pictures as
before (`benchmarks/machine.py`: the memory a step touches after a pause is what it pays).
`CellPictures` paints each cell once per (row, column, state, size) into a picture, with
Qt's own delegate on an opaque ground of the view's colour, and draws the picture after; a
change of the model (data, rows, reset) drops them all, and a new look (palette, font,
size) is another key. `prepare` paints ahead, while the user reads, the rows the next key
shows in a new state (the row below and the row above selected, this row unselected) and the
rows a scroll would bring in. For a view whose model stays the one it had when given this
delegate (the steps table's).
"""
from __future__ import annotations

import time
from collections import OrderedDict

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFont, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

KEEP = 1536   # pictures kept, the oldest dropped first (a 30-px row of 11 cells is ~70 KB)
SLICE_S = 0.006
"""A call of `prepare` paints for about this long (a cell is 0.2-0.5 ms): 66 cells a call were
26 ms, an event-loop gap that a step whose view came from a worker then waited behind."""
_SELECTED = QStyle.StateFlag.State_Selected.value
_FOCUS = QStyle.StateFlag.State_HasFocus.value
_ALTERNATE = QStyleOptionViewItem.ViewItemFeature.Alternate.value
_SHOWN = _SELECTED | _FOCUS | QStyle.StateFlag.State_MouseOver.value   # what a cell's moves
# change


class CellPictures(QStyledItemDelegate):
    def __init__(self, view):
        super().__init__(view)
        self._view = view
        self._pictures: OrderedDict[tuple, QPixmap] = OrderedDict()
        self._base: QStyleOptionViewItem | None = None   # `_template`
        self._base_state = 0
        self._font, self._palette_key, self._looks = None, None, 0   # `_look`
        self._cursor: tuple | None = None   # (plan, cells done) of an unfinished `prepare`
        self.painted = 0   # cells painted by Qt's delegate (a picture made), for tests
        self.drawn = 0     # cells drawn from a picture
        model = view.model()
        model.dataChanged.connect(self._forget_cells)
        for signal in (model.headerDataChanged, model.modelReset,
                       model.layoutChanged, model.rowsInserted, model.rowsRemoved,
                       model.columnsInserted, model.columnsRemoved, model.rowsMoved):
            signal.connect(self.forget)

    def forget(self, *_args) -> None:
        """Every picture dropped (the model changed)."""
        self._pictures.clear()
        self._cursor = None

    def _forget_cells(self, top_left, bottom_right, *_roles) -> None:
        """The pictures of the cells a `dataChanged` names dropped, the others kept (the
        questions' values arriving in their column dropped every picture, and the next
        paint drew the whole table anew: 30-50 ms on the event loop while the user stepped)."""
        if not (top_left.isValid() and bottom_right.isValid()):
            self.forget()
            return
        rows = range(top_left.row(), bottom_right.row() + 1)
        columns = range(top_left.column(), bottom_right.column() + 1)
        for key in [k for k in self._pictures if k[0] in rows and k[1] in columns]:
            del self._pictures[key]
        self._cursor = None

    def _look(self, option) -> int:
        """A number for the font and palette `option` paints with, new when either changes
        (the view's `font().key()` was a string built at every cell)."""
        if option.font != self._font or option.palette.cacheKey() != self._palette_key:
            self._font, self._palette_key = QFont(option.font), option.palette.cacheKey()
            self._looks += 1
        return self._looks

    def _key(self, option, index, ratio: float, state: int | None = None) -> tuple:
        return self._cell_key(index.row(), index.column(), option, ratio,
                              option.state.value if state is None else state)

    def _cell_key(self, row: int, column: int, option, ratio: float, state: int) -> tuple:
        # plain integers: Python's enum flags cost ~2 us an operation, a dozen a cell
        rect = option.rect
        return (row, column, state, bool(option.features.value & _ALTERNATE), rect.width(),
                rect.height(), ratio, self._look(option))

    def paint(self, painter, option, index) -> None:  # noqa: D102 - Qt's
        ratio = painter.device().devicePixelRatioF()
        state = option.state.value
        key = self._key(option, index, ratio, state)
        picture = self._pictures.get(key)
        if picture is None:
            picture = self._picture(option, index, ratio)
            if picture is None:   # nothing to paint into (an empty cell's rect)
                super().paint(painter, option, index)
                return
            self._pictures[key] = picture
            if len(self._pictures) > KEEP:
                self._pictures.popitem(last=False)
        self._template(option, state)
        painter.drawPixmap(option.rect.topLeft(), picture)
        self.drawn += 1

    def _template(self, option, state: int) -> None:
        """The view's option of a cell, kept (as its state apart from selection, focus and
        hover changes: the window's activation) to paint other cells ahead."""
        base = state & ~_SHOWN
        if self._base is None or self._base_state != base:
            self._base, self._base_state = QStyleOptionViewItem(option), base

    def _option(self, selected: bool, focus: bool, alternate: bool):
        """The option the view would give a cell in this state, from the one kept."""
        if self._base is None:
            return None
        option = QStyleOptionViewItem(self._base)
        state = option.state.value & ~_SHOWN
        if selected:
            state |= _SELECTED
        if focus:
            state |= _FOCUS
        option.state = QStyle.StateFlag(state)
        features = option.features.value
        option.features = QStyleOptionViewItem.ViewItemFeature(
            (features | _ALTERNATE) if alternate else (features & ~_ALTERNATE))
        return option

    def _picture(self, option, index, ratio: float) -> QPixmap | None:
        size = option.rect.size()
        if size.width() <= 0 or size.height() <= 0:
            return None
        picture = QPixmap(size * ratio)
        picture.setDevicePixelRatio(ratio)
        # opaque, in the colour the view paints under a cell: the text is then drawn as it
        # is drawn in the view (a transparent picture's antialiasing differs)
        picture.fill(self._view.viewport().palette().color(QPalette.ColorRole.Base))
        shown = QStyleOptionViewItem(option)
        shown.rect = QRect(QPoint(0, 0), size)
        with_painter = QPainter(picture)
        try:
            # the row's panel (an alternate row's colour) as QTableView draws it under the
            # delegate, then the delegate
            view = self._view
            view.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewRow, shown,
                                       with_painter, view)
            super().paint(with_painter, shown, index)
        finally:
            with_painter.end()
        self.painted += 1
        return picture

    def prepare(self, row: int, column: int, around: tuple[int, int] = (0, -1),
                budget: int = 66, seconds: float = SLICE_S) -> bool:
        """Paint ahead the cells the next Up or Down key shows in a new state (`row` is the
        selected row, `column` the current one): rows row ± 1 selected, `row` unselected,
        then the rows `around` (first, last) unselected (those a scroll would bring in), at
        most `budget` cells and about `seconds` a call. Returns True when all of them are
        painted."""
        stop = time.perf_counter() + seconds
        view, model = self._view, self._view.model()
        rows = model.rowCount()
        wanted = [(row + 1, True), (row - 1, True), (row, False)]
        wanted += [(r, False) for r in range(max(around[0], 0), min(around[1], rows - 1) + 1)
                   if r != row]
        ratio = view.viewport().devicePixelRatioF()
        grid = 1 if view.showGrid() else 0   # (QTableView leaves the grid's line out)
        focus = view.hasFocus()
        columns = [c for c in range(model.columnCount()) if not view.isColumnHidden(c)]
        widths = {c: view.columnWidth(c) - grid for c in columns}
        # a call goes on from the cell where the last one stopped (the cells before it are
        # painted): each call scanned every wanted cell from the first, ~30 us a cell, so
        # on a busy machine a 6-ms call painted one picture and a step's rows took 10-20
        # calls, 100-250 ms of the event loop a step
        plan = (row, column, around, rows, ratio, focus, tuple(widths.items()))
        start = self._cursor[1] if self._cursor is not None and self._cursor[0] == plan else 0
        options: dict[tuple, object] = {}   # one option per state, its rect set per cell
        made = position = 0
        for r, selected in wanted:
            if not 0 <= r < rows:
                continue
            alternate = view.alternatingRowColors() and r % 2 == 1
            height = view.rowHeight(r) - grid
            for c in columns:
                position += 1
                if position <= start:
                    continue
                shown = (selected, selected and c == column and focus, alternate)
                option = options.get(shown)
                if option is None:
                    option = options[shown] = self._option(*shown)
                    if option is None:
                        return True   # nothing painted yet: nothing known of the view's options
                option.rect = QRect(0, 0, widths[c], height)
                key = self._cell_key(r, c, option, ratio, option.state.value)
                if key in self._pictures:
                    continue
                if made >= budget or (made and time.perf_counter() > stop):
                    self._cursor = (plan, position - 1)
                    return False
                picture = self._picture(option, model.index(r, c), ratio)
                if picture is not None:
                    self._pictures[key] = picture
                    made += 1
        self._cursor = None
        while len(self._pictures) > KEEP:
            self._pictures.popitem(last=False)
        return True


def cell_pictures(view) -> CellPictures:
    """Give `view` (a table whose model is set) a `CellPictures` delegate; returns it."""
    delegate = CellPictures(view)
    view.setItemDelegate(delegate)
    return delegate

