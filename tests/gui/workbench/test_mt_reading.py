"""Issue 23, items 6, 17 and 19 (MT): WMT23 en-zh paragraphs in a 1366x768 window. A cut cell
ends in "…", the reading pane shows the selected row whole, earlier corrections are marked,
and the corrections table and its export carry each step's target and the human's answer.
The expected texts are read from the WMT files and the log written here, never from the
window."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from tests.gui.conftest import settle

LINES = (38, 90)   # a document of WMT23 en-zh cut by lines (make_bundles.py's second)
# (step, kind, 1-based segment in the document): post-edits with the reference as answer
STEPS = [(1, "post_edit", 3), (2, "reference", 7), (3, "post_edit", 3), (4, "post_edit", 12)]


def _zh_bundle(tmp: Path, reference_data: Path) -> tuple[Path, list[str], list[str], list]:
    txt = reference_data / "wmt23-general" / "txt"
    a, b = LINES

    def cut(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").split("\n")[a - 1:b]

    refs = cut(txt / "references" / "generaltest2023.en-zh.ref.refA.zh")
    hyps = cut(txt / "system-outputs" / "generaltest2023.en-zh.hyp.ONLINE-B.zh")
    srcs = cut(txt / "sources" / "generaltest2023.en-zh.src.en")
    for name, rows in (("ref.zh", refs), ("hyp.zh", hyps), ("src.en", srcs)):
        (tmp / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    log = []
    for step, kind, segment in STEPS:
        entry = {"doc": "zh", "step": step, "initiative": "active", "kind": kind,
                 "target": {"sentence": segment},
                 "adapted": {"lines": {str(segment): refs[segment - 1]}}}
        if kind == "post_edit":
            entry["answer"] = refs[segment - 1]
        log.append(entry)
    (tmp / "log.jsonl").write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in log)
                                   + "\n", encoding="utf-8")
    (tmp / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "en-zh"\nmetrics = ["bleu"]\n\n[settings]\n'
        'trg_lang = "zh"\n\n[[documents]]\nid = "zh"\ntime = 1\nreferences = ["ref.zh"]\n'
        'hypothesis = "hyp.zh"\nsource = "src.en"\n\n[interactions]\nlog = "log.jsonl"\n',
        encoding="utf-8")
    return tmp / "bundle.toml", refs, srcs, log


@pytest.fixture(scope="module")
def _zh(qapp, tmp_path_factory, reference_data):
    """The en-zh window, built once for the module's four tests (~0.4 s of CPU a window)."""
    from llgui.gui.main_window import MainWindow
    from tests.gui.across_time.test_policy_item import wait_for

    path, refs, srcs, log = _zh_bundle(tmp_path_factory.mktemp("zh"), reference_data)
    window = MainWindow(use_session=False)
    window.resize(1366, 768)
    window.show()
    wait_for(lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    assert window.open_bundles([str(path)], select_doc="zh", step=4)
    yield window, refs, srcs, log
    window.jobs.shutdown(2000)
    window.close()


@pytest.fixture
def zh_window(_zh, qtbot):
    """The module's en-zh window at step 4, arrived at afresh (a test moves the step or the
    selected row: from step 0, step 4 selects its own row again)."""
    window = _zh[0]
    settle(qtbot, window)
    if window.state.step != 0:
        window.state.set_step(0)
        settle(qtbot, window)
    window.state.set_step(4)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.state.step == 4, timeout=30000)
    qtbot.wait(100)
    return _zh


def test_a_cut_cell_ends_in_an_ellipsis_and_a_whole_one_does_not(qtbot, zh_window):
    window, refs, _srcs, _log = zh_window
    view = window.workbench.mt_view
    table, model = view.table, view.model
    table.viewport().repaint()
    metrics = QFontMetrics(table.font())
    width = table.columnWidth(1)
    assert width > 50
    must_cut = must_not = 0
    for row in range(model.rowCount()):
        cell = table.visualRect(model.index(row, 1))
        if not cell.isValid() or not table.viewport().rect().contains(cell):
            continue   # painted only on screen
        advance = metrics.horizontalAdvance(refs[model.segment(row)])
        cut = view.delegate.cut.get((row, 1))
        if advance > 2.5 * width:     # three lines or more in a two-line row
            must_cut += 1
            assert cut is not None, row
            # the mark lies in its cell, at its bottom right
            assert cell.contains(cut.toAlignedRect().adjusted(1, 1, -1, -1))
            assert cut.right() >= cell.right() - 2 and cut.center().y() > cell.center().y()
        elif advance < 0.8 * width:   # one line
            must_not += 1
            assert cut is None, row
    assert must_cut >= 1   # the WMT paragraphs at 1366x768


def test_the_reading_pane_shows_the_selected_row_whole(qtbot, zh_window):
    window, refs, srcs, _log = zh_window
    view = window.workbench.mt_view
    pane = view.reading
    assert pane.isVisible() and pane.height() >= 2 * pane.fontMetrics().lineSpacing()
    # step 4 corrected segment 12: selected, its reference and source whole in the pane
    assert view.model.segment(view.table.currentIndex().row()) == 11
    text = pane.toPlainText()
    assert refs[11] in text and srcs[11] in text
    # a click on another row reads that one
    row = view.model.row_of_segment(5)
    table = view.table
    table.scrollTo(view.model.index(row, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualRect(view.model.index(row, 2)).center())
    assert refs[5] in pane.toPlainText() and srcs[5] in pane.toPlainText()
    assert refs[11] not in pane.toPlainText()


def test_earlier_corrections_are_marked_with_their_steps(qtbot, zh_window):
    window, _refs, _srcs, _log = zh_window
    model = window.workbench.mt_view.model
    number = {i: model.data(model.index(model.row_of_segment(i), 0)) for i in range(20)}
    # at step 4: segment 3 corrected at steps 1 and 3, segment 7 at step 2; 12 is this step's
    assert "✎1,3" in number[2] and "✎2" in number[6]
    assert "✎" not in number[11] and "corrected" in number[11]
    assert all("✎" not in number[i] for i in range(20) if i not in (2, 6))
    # the number column holds its marks whole
    table = window.workbench.mt_view.table
    metrics = QFontMetrics(table.font())
    for text in number.values():
        for line in text.split("\n"):
            assert metrics.horizontalAdvance(line) <= table.columnWidth(0)
    window.state.set_step(2)
    qtbot.waitUntil(lambda: model.data(model.index(6, 0)).startswith("7\n"), timeout=10000)
    assert "✎1" in model.data(model.index(2, 0))
    assert "✎" not in model.data(model.index(6, 0))   # step 2 is this one


def test_the_corrections_table_and_its_export_carry_target_and_answer(qtbot, zh_window,
                                                                      tmp_path):
    window, refs, _srcs, log = zh_window
    model = window.workbench.model
    answer = model.COLUMNS.index("answer")
    target = model.COLUMNS.index("target")
    for row, entry in enumerate(log, 1):
        segment = entry["target"]["sentence"]
        given = entry.get("answer", refs[segment - 1])   # `reference`: the reference itself
        assert model.index(row, target).data() == f"sentence {segment}"
        shown = model.index(row, answer).data()
        assert shown == given or (shown.endswith("…") and given.startswith(shown[:-1]))
        assert model.data(model.index(row, answer), Qt.ItemDataRole.ToolTipRole) == given
    # the scores stay in view at 1366x768: the answer column comes after S_pen
    table = window.workbench.table
    s_pen = table.visualRect(model.index(1, model.COLUMNS.index("S_pen")))
    assert s_pen.right() <= table.viewport().width()
    out = tmp_path / "corrections.csv"
    window.workbench.export_table(str(out), "csv")
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["target"] for r in rows] == [f"sentence {e['target']['sentence']}" for e in log]
    assert [r["answer"] for r in rows] == [e.get("answer", refs[e["target"]["sentence"] - 1])
                                           for e in log]
    assert [r["kind"] for r in rows] == [e["kind"] for e in log]
    out = tmp_path / "corrections.json"
    window.workbench.export_table(str(out), "json")
    steps = json.loads(out.read_text(encoding="utf-8"))["steps"]
    assert [s["answer"] for s in steps] == [r["answer"] for r in rows]
    assert [s["target"] for s in steps] == [r["target"] for r in rows]
