"""The table models keep the roles a paint asks of each cell (`PaintedCells`): a paint of the
Documents panel asked 7 roles of ~120 cells from Python, 20-56 ms of the event loop while
1,000 documents were scored (gate 9). What is kept must be what the model would say now: it
is forgotten whenever the model says anything changed."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt

from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.conftest import REPO

DISPLAY = Qt.ItemDataRole.DisplayRole


def _walk():
    bundle = load_bundle(REPO / "resources" / "demo" / "mt" / "bundle.toml")
    document = bundle.documents[0]
    return walk(document, bundle.steps_of(document.id), "bleu", bundle.settings, bundle.cost)


def test_a_kept_cell_is_computed_once_and_follows_a_change(qtbot):
    from llgui.core.effort.question import QuestionValue
    from llgui.gui.table_models import CorrectionsModel

    model = CorrectionsModel()
    walkthrough = _walk()
    model.set_walkthrough(walkthrough)
    computed = []
    real = model._cell
    model._cell = lambda index, role: computed.append((index.row(), role)) or real(index, role)
    column = model.COLUMNS.index("question")
    index = model.index(1, column)
    for _ in range(3):   # three paints: the text, alignment and colour computed once
        assert model.data(index, DISPLAY) == ""
        model.data(index, Qt.ItemDataRole.TextAlignmentRole)
        model.data(index, Qt.ItemDataRole.ForegroundRole)
    assert len(computed) == 3
    # the question values arrive later (a job): the tab says so with dataChanged
    step = walkthrough.replay.steps[0].step
    walkthrough.questions = {step: QuestionValue("d", step, "sentence", 3.0, 2.0, 1.0, 4.0)}
    model.dataChanged.emit(model.index(0, column), model.index(model.rowCount() - 1, column))
    assert model.data(index, DISPLAY) == real(index, DISPLAY) != ""
    # a tooltip (not kept) is computed each time, as before
    computed.clear()
    model.data(index, Qt.ItemDataRole.ToolTipRole)
    model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert [role for _, role in computed] == [Qt.ItemDataRole.ToolTipRole] * 2


def test_the_documents_cells_follow_the_scores(qtbot):
    from llgui.core.penalty import replay_bundle
    from llgui.gui.systems.compare_models import DocumentsComparisonModel

    bundle = load_bundle(REPO / "resources" / "demo" / "mt" / "bundle.toml")
    model = DocumentsComparisonModel()
    model.set_bundles([bundle])
    s_pen = model.index(0, model.COLUMNS.index("S_pen"))
    assert model.data(s_pen, DISPLAY) == "…"   # before the scores (kept)
    result = replay_bundle(bundle, "bleu", bundle.cost)
    model.set_result(0, result)
    summary = result.summaries()[bundle.documents[0].id]
    assert model.data(s_pen, DISPLAY) == f"{summary.s_pen:.2f}"
    # another system's bundle opened beside it: the Δ column and every cell anew
    other = dataclasses.replace(bundle, name="other")
    model.set_bundles([bundle, other])
    assert model.data(model.index(0, model.COLUMNS.index("S_pen")), DISPLAY) == "…"
