"""Issue 35, items 2 and 3: the corrections table's question column shows without scrolling
sideways at 1366x768 and 1920x1080 (with the step and initiative columns, scrolled to 0), and
the learning curve's ▲/▼ of the current step stays visible where the "this step" mark is
drawn (the pixel at the step's point on the grabbed plot has the mark's colour)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from llgui.gui.workbench.question_column import room as question_room
from llgui.gui.workbench.score_panel import QUESTION_BETTER, QUESTION_WORSE
from tests.conftest import REPO
from tests.gui.conftest import settle

MT_BUNDLE = REPO / "resources" / "demo" / "mt" / "bundle.toml"
DOC = "news-2023-01-09"   # steps 1-6 are the system's questions
DIAR_BUNDLE = REPO / "resources" / "demo" / "diarization" / "bundle.toml"
DIAR_DOC = "show-2023-03-27"   # targets like "5:51.5 ~ 3:50.4 (show-2023-03-20)"


def open_demo(qtbot, size, step, bundle=MT_BUNDLE, doc=DOC):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.jobs.release()
    assert window.open_bundles([bundle], select_doc=doc, step=step, tab="workbench")
    settle(qtbot, window)
    qtbot.waitUntil(lambda: bool(window.workbench.model.walkthrough.questions), timeout=60000)
    settle(qtbot, window)
    qtbot.wait(50)
    return window


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
@pytest.mark.parametrize("bundle, doc", [(MT_BUNDLE, DOC), (DIAR_BUNDLE, DIAR_DOC)])
def test_the_question_column_shows_without_scrolling(qtbot, size, bundle, doc):
    """(The diarization demo's long targets pushed S_pen and the question value off the table
    at 1366x768: outsider helper-39, finding 10.)"""
    window = open_demo(qtbot, size, 1, bundle, doc)
    try:
        table, model = window.workbench.table, window.workbench.model
        row = min(model.walkthrough.questions)   # the first step the system asked
        table.scrollTo(model.index(row, 0))
        column = model.COLUMNS.index("question")
        assert table.horizontalScrollBar().value() == 0
        assert table.columnViewportPosition(model.COLUMNS.index("step")) == 0
        right = table.columnViewportPosition(column) + table.columnWidth(column)
        assert 0 < right <= table.viewport().width()
        # the text is not elided: it fits in its column
        text = model.index(row, column).data()
        assert text and table.fontMetrics().horizontalAdvance(text) < table.columnWidth(column)
    finally:
        window.jobs.shutdown(5000)


def test_the_current_steps_mark_stays_visible_on_the_curve(qtbot):
    window = open_demo(qtbot, (1366, 768), 2)
    try:
        walk = window.workbench.model.walkthrough
        value = walk.questions[2]
        colour = QUESTION_BETTER if value.gain > 0 else QUESTION_WORSE
        costs, adapt = walk.replay.curve()
        curve = window.workbench.scores.curve
        scene = curve.getPlotItem().vb.mapViewToScene(QPointF(costs[2], adapt[2]))
        at = curve.mapFromScene(scene)
        image = curve.grab().toImage()
        ratio = image.devicePixelRatio()
        # the triangle's centre: a little inside it, toward its base
        dy = 1 if value.gain > 0 else -1
        pixel = QColor(image.pixel(int(round(at.x() * ratio)), int(round((at.y() + dy) * ratio))))
        assert abs(pixel.red() - colour.red()) + abs(pixel.green() - colour.green()) \
            + abs(pixel.blue() - colour.blue()) < 40, (pixel.name(), colour.name())
    finally:
        window.jobs.shutdown(5000)


def test_the_question_columns_room_is_kept_while_its_values_come(qtbot):
    """The question column has a typical value's room before its values arrive from the
    worker, and keeps it when they are narrower: their arrival used to resize the column and
    redraw the whole steps table while the user stepped (issue 36, gate 9's stepping gap)."""
    window = open_demo(qtbot, (1920, 1080), 1, doc="news-2023-03-06")
    try:
        workbench = window.workbench
        table, model = workbench.table, workbench.model
        column = model.COLUMNS.index("question")
        room = question_room(table)
        need = table.sizeHintForColumn(column)   # its values ("3/2.8/6.4" the widest)
        assert 0 < need < room
        assert table.columnWidth(column) == room
    finally:
        window.jobs.shutdown(5000)


def test_a_log_without_questions_has_no_question_column(qtbot, tmp_path):
    """A log of interactive steps only (an AMI meeting's boundary corrections): no step has a
    question value, and the empty column took the room the answer was cut for at 1366x768;
    a log with the system's questions shows it again in the same window."""
    import json

    clip = REPO / "tests" / "data" / "voxconverse" / "kdfqk.rttm"
    log = [{"doc": "kdfqk", "step": k, "initiative": "interactive", "kind": "boundary",
            "target": {"t": t}, "answer": [t - 1.0, t + 1.0]}
           for k, t in enumerate((30.0, 60.0), 1)]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    bundle = tmp_path / "bundle.toml"
    bundle.write_text(f'[bundle]\ntask = "diarization"\nname = "kdfqk"\nmetrics = ["der"]\n\n'
                      f'[[documents]]\nid = "kdfqk"\ntime = "1"\nreferences = ["{clip}"]\n'
                      f'hypothesis = "{clip}"\n\n[interactions]\nlog = "log.jsonl"\n')
    window = open_demo(qtbot, (1366, 768), 1)   # the MT demo: the system's questions
    try:
        table, model = window.workbench.table, window.workbench.model
        column = model.COLUMNS.index("question")
        assert not table.isColumnHidden(column)
        assert window.open_bundles([str(bundle)], select_doc="kdfqk", step=1, tab="workbench")
        settle(qtbot, window)
        qtbot.waitUntil(lambda: model.walkthrough is not None
                        and model.walkthrough.document.id == "kdfqk", timeout=60000)
        assert [s.initiative for s in model.walkthrough.log] == ["interactive"] * 2
        assert table.isColumnHidden(column)
        answer = model.COLUMNS.index("answer")
        assert not table.isColumnHidden(answer)
        window.state.select(0, DOC, step=1)   # back to the MT demo's questions
        settle(qtbot, window)
        qtbot.waitUntil(lambda: model.walkthrough.document.id == DOC, timeout=60000)
        assert not table.isColumnHidden(column)
    finally:
        window.jobs.shutdown(5000)
