"""The steps table's cells drawn from pictures (`llgui.gui.widgets.cell_pictures`, issue 36):
the same pixels as Qt's own delegate, a changed cell painted anew, and the next key's rows
painted ahead so that a step draws only pictures."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QTableView

from llgui.gui.widgets.cell_pictures import CellPictures, cell_pictures
from tests.gui.conftest import shown


def _table(qtbot, rows: int = 30, columns: int = 6) -> QTableView:
    model = QStandardItemModel(rows, columns)
    for r in range(rows):
        for c in range(columns):
            item = QStandardItem(f"{r}.{c} 12.34" if c else f"step {r}")
            if c == 2 and r % 3 == 0:
                item.setForeground(Qt.GlobalColor.darkRed)
            if c == 1:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            model.setItem(r, c, item)
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    shown(qtbot, table, 560, 300)
    table.setFocus()
    table.selectRow(3)
    return table


def _grab(table, delegate):
    table.setItemDelegate(delegate)
    return table.viewport().grab().toImage()


def _differences(a, b) -> list[tuple[int, int, int]]:
    """(x, y, largest channel difference) of each pixel that differs."""
    assert a.size() == b.size()
    out = []
    for y in range(a.height()):
        for x in range(a.width()):
            p, q = a.pixel(x, y), b.pixel(x, y)
            if p != q:
                out.append((x, y, max(abs(((p >> s) & 255) - ((q >> s) & 255))
                                      for s in (0, 8, 16, 24))))
    return out


def test_the_pictures_give_qts_own_pixels(qtbot):
    """Selected, focused, alternate and plain rows, coloured and right-aligned texts: drawn
    from pictures as Qt's delegate draws them (at most a few antialiased pixels at the
    selection's corners by one level: a picture is composed apart from the view)."""
    table = _table(qtbot)
    plain = _grab(table, QStyledItemDelegate(table))
    pictures = CellPictures(table)
    drawn = _grab(table, pictures)
    assert pictures.painted > 0 and pictures.drawn >= pictures.painted
    again = _grab(table, pictures)   # now all from the pictures kept
    for image in (drawn, again):
        differences = _differences(plain, image)
        assert len(differences) <= 8 and all(d <= 2 for _, _, d in differences), \
            differences[:10]


def test_a_changed_cell_is_painted_anew(qtbot):
    table = _table(qtbot)
    pictures = cell_pictures(table)
    before = table.viewport().grab().toImage()
    made = pictures.painted
    table.model().item(4, 2).setText("changed")   # dataChanged: that cell's pictures dropped
    after = _grab(table, pictures)
    assert before != after
    assert pictures.painted - made == 1   # only the changed cell painted anew
    plain = _grab(table, QStyledItemDelegate(table))
    assert len(_differences(plain, after)) <= 8
    # a change of the model's shape drops them all
    table.setItemDelegate(pictures)
    table.model().insertRow(0)
    table.viewport().grab()
    assert pictures.painted - made > 10


def test_the_next_keys_rows_are_painted_ahead(qtbot):
    """After `prepare`, Down and then Up draw the moved selection from pictures only."""
    table = _table(qtbot)
    pictures = cell_pictures(table)
    table.viewport().grab()   # painted now
    current = table.currentIndex()
    assert pictures.prepare(current.row(), current.column(), (0, 29), budget=10_000, seconds=60)
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_Up):
        made = pictures.painted
        qtbot.keyClick(table, key)
        table.viewport().grab()   # painted now
        assert pictures.painted == made, "a picture was made in the step"
        current = table.currentIndex()
        assert pictures.prepare(current.row(), current.column(), (0, 29), budget=10_000, seconds=60)
    assert table.currentIndex().row() == 2


def test_a_slice_at_a_time(qtbot):
    table = _table(qtbot)
    pictures = cell_pictures(table)
    table.viewport().grab()   # painted now
    current = table.currentIndex()
    made = pictures.painted
    assert pictures.prepare(current.row(), current.column(), (0, 29), budget=12,
                            seconds=60) is False
    assert pictures.painted - made == 12   # the budget, then the rest at the next call
    # and a slice of time: past it, the call ends after the cell under way (66 cells a call
    # were 26 ms on the event loop, which a step coming from a worker waited behind)
    for _ in range(3):
        made = pictures.painted
        assert pictures.prepare(current.row(), current.column(), (0, 29), seconds=0) is False
        assert pictures.painted - made == 1


def test_a_slice_goes_on_where_the_last_one_stopped(qtbot):
    """Slice by slice, every wanted cell is looked at about once: each call went through all
    of them from the first, and on a busy machine a 6-ms call made one picture (100-250 ms
    of the event loop a step on gate 9's 10-hour show). A new step starts afresh."""
    table = _table(qtbot)
    pictures = cell_pictures(table)
    table.viewport().grab()   # painted now
    looked = []
    original = pictures._cell_key
    pictures._cell_key = lambda *args: looked.append(args[:2]) or original(*args)
    current = table.currentIndex()
    before, calls = pictures.painted, 1
    while not pictures.prepare(current.row(), current.column(), (0, 29), budget=1, seconds=60):
        calls += 1
    wanted = (2 + 30) * 6   # rows 2 and 4 selected, then every row unselected; 6 columns
    assert calls - 1 <= pictures.painted - before <= calls and calls > 100
    assert len(looked) <= wanted + calls
    looked.clear()
    qtbot.keyClick(table, Qt.Key.Key_Down)
    current = table.currentIndex()
    assert pictures.prepare(current.row(), current.column(), (0, 29), budget=10_000, seconds=60)
    assert len(looked) == wanted


def test_the_workbench_steps_table_draws_a_step_from_pictures(module_demo_window, qtbot):
    """The workbench paints the rows ahead (`Workbench._prepare_table`) while the user
    reads: the Down key then makes no picture."""
    window = module_demo_window
    bench = window.workbench
    window.state.select(0, window.state.bundles[0].documents[0].id)
    qtbot.waitUntil(bench.ready, timeout=30000)
    table, pictures = bench.table, bench.table_pictures
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: not bench._table_ahead.isActive(), timeout=10000)
    # the slices after the first, each a turn of the event loop: until one look finds no
    # new picture (a fixed 50 ms was too short beside two CPU-bound processes)
    seen = [-1]

    def settled() -> bool:
        done, seen[0] = pictures.painted == seen[0], pictures.painted
        return done

    qtbot.waitUntil(settled, timeout=10000)
    made, drawn = pictures.painted, pictures.drawn
    qtbot.keyClick(table, Qt.Key.Key_Down)
    table.viewport().grab()   # painted now
    assert pictures.drawn > drawn and pictures.painted == made
