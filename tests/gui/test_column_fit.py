"""`fit_columns` gives each column the width Qt's own `resizeColumnsToContents` gives it,
from one measured cell a column instead of every sampled one (opening 1,000 documents,
gate 9). Qt's fit is the oracle: same view, same rows sampled, same delegate."""
from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTableView

from benchmarks.synthetic import write_mt_bundle
from llgui.gui.widgets.column_fit import fit_columns, sampled_rows
from tests.gui.conftest import shown, shown_window

ROWS = 400


def _texts(row: int) -> list[str]:
    """A row of cells whose widest text is not always its longest: "WWWW" is wider than
    "iiiiiii" in any proportional font; Devanagari and CJK as the WMT24 documents have."""
    return [f"doc-{row:05d}",
            "WWWW" if row == 7 else "iiiiiii",
            "हिन्दी अनुवाद" if row % 5 == 0 else "hi",
            "機械翻訳の評価" if row == 3 else f"{row * 0.37:.2f}",
            # far below the sampled rows: Qt does not measure it, nor may we
            "a far longer text than any sampled one" if row == ROWS - 1 else "x"]


def _widths(view) -> list[int]:
    header = view.horizontalHeader()
    return [header.sectionSize(k) for k in range(header.count())]


def _both(view) -> tuple[list[int], list[int]]:
    for column in range(view.model().columnCount()):
        view.setColumnWidth(column, 10)
    fit_columns(view)
    ours = _widths(view)
    for column in range(view.model().columnCount()):
        view.setColumnWidth(column, 10)
    view.resizeColumnsToContents()
    return ours, _widths(view)


def test_the_widths_are_qts_own(qtbot):
    model = QStandardItemModel(ROWS, 5)
    model.setHorizontalHeaderLabels(["document", "w", "script", "score", "a very long header"])
    for row in range(ROWS):
        for column, text in enumerate(_texts(row)):
            model.setItem(row, column, QStandardItem(text))
    view = QTableView()
    view.setModel(model)
    view.horizontalHeader().setResizeContentsPrecision(32)
    view.setColumnHidden(2, True)
    shown(qtbot, view, 900, 400)
    assert len(sampled_rows(view)) == 32
    ours, qts = _both(view)
    assert ours == qts
    assert qts[1] > view.fontMetrics().horizontalAdvance("iiiiiii"), "WWWW was measured"
    assert qts[4] < view.fontMetrics().horizontalAdvance(_texts(ROWS - 1)[4])

    view.scrollToBottom()   # the rows sampled follow the rows shown, as Qt's do
    ours, qts = _both(view)
    assert ours == qts
    assert qts[4] >= view.fontMetrics().horizontalAdvance(_texts(ROWS - 1)[4])


def test_the_documents_panel_of_many_documents(qtbot, tmp_path):
    """The real panel: its proxy, its column order, its delegates that cut ids in the
    middle, its hidden columns."""
    window = shown_window(qtbot)
    window.open_bundles([write_mt_bundle(tmp_path, 200)])
    qtbot.waitUntil(lambda: bool(window.state.bundles) and not window.jobs.busy, timeout=120000)
    view = window.documents_view
    ours, qts = _both(view)
    assert ours == qts
    assert sum(ours) > 0
    window.jobs.shutdown(2000)


def test_the_steps_table_of_each_demo_document(demo_window, qtbot):
    """The corrections table: its delegate paints cells from pictures, its answer column
    holds long texts (a diarization target names two times and a show)."""
    from tests.gui.conftest import settle

    window = demo_window
    for index, bundle in enumerate(window.state.bundles):
        if not bundle.documents:
            continue
        window.state.select(index, bundle.documents[0].id)
        settle(qtbot, window)
        view = window.workbench.table
        if view.model().rowCount() == 0:
            continue
        ours, qts = _both(view)
        assert ours == qts, bundle.task


def test_a_precision_of_zero_measures_the_shown_rows(qtbot):
    model = QStandardItemModel(ROWS, 1)
    for row in range(ROWS):
        model.setItem(row, 0, QStandardItem("x" * (40 if row == ROWS - 1 else 3)))
    view = QTableView()
    view.setModel(model)
    view.horizontalHeader().setResizeContentsPrecision(0)
    shown(qtbot, view, 300, 200)
    rows = sampled_rows(view)
    assert rows.start == 0 and 1 < len(rows) < ROWS
    ours, qts = _both(view)
    assert ours == qts
