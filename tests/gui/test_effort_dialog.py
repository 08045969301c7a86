"""Issue 34 in the window: Session › Human vs oracle… computes on a worker and shows the
numbers of `llgui effort` (agreement, the fitted cost model, question value) and saves the
fitted cost model; the workbench's steps table has a question column and the learning curve
marks each active step, both from `llgui.core.effort` (checked independently in
tests/core/effort)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from llgui.core.cost import CostModel
from llgui.core.effort.units import question_report
from llgui.io.bundle import load_bundle
from llgui.io.effort_report import agreement_line, fit_rows
from llgui.sim.human import effort_report
from tests.gui.conftest import settle, shown_window
from tests.sim.test_human_effort import HUMAN_SESSIONS, recorded_sessions


pytestmark = pytest.mark.xdist_group(HUMAN_SESSIONS)   # beside tests/sim/test_human_effort.py


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """The MT and meeting sessions of tests/sim/test_human_effort.py (recorded once, there or
    here, whichever runs first)."""
    root, *_ = recorded_sessions(tmp_path_factory)
    return [root / "mt", root / "meeting"]


@pytest.fixture
def window(qtbot):
    window = shown_window(qtbot, 1366, 768)
    window.jobs.release()
    yield window
    window.jobs.shutdown(5000)


def test_the_dialog_shows_the_report_and_saves_the_cost_model(window, qtbot, sessions,
                                                               tmp_path):
    action = next(a for a in window.actions() if a.text() == "&Human vs oracle…")
    action.trigger()
    dialog = window.effort_dialog
    dialog.folders_edit.setPlainText("\n".join(str(s) for s in sessions))
    qtbot.mouseClick(dialog.compute_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not None or bool(dialog.error), timeout=120000)
    assert not dialog.error
    expected = effort_report(sessions)
    assert agreement_line(expected["agreement"]) in dialog.status.text()
    answers = expected["answers"]
    assert dialog.answers.rowCount() == len(answers)
    agree = [dialog.answers.item(r, 3).text() for r in range(len(answers))]
    assert agree == ["yes" if a["agree"] else "no" for a in answers]
    shown = [tuple(dialog.fit.item(r, c).text() for c in range(4))
             for r in range(dialog.fit.rowCount())]
    assert shown == fit_rows(expected["cost_fit"])
    assert dialog.questions.rowCount() == 2
    assert dialog.questions.item(1, 8).text() == "DER error seconds"
    dialog.save_cost_model(tmp_path / "cost.toml")
    saved = CostModel.from_dict(tomllib.loads((tmp_path / "cost.toml").read_text())["cost"])
    assert saved.to_dict() == expected["cost_model"]


def test_a_folder_without_a_bundle_is_named(window, qtbot, tmp_path):
    window.show_effort_dialog()
    dialog = window.effort_dialog
    dialog.folders_edit.setPlainText(str(tmp_path))
    qtbot.mouseClick(dialog.compute_button, Qt.MouseButton.LeftButton)
    assert str(tmp_path) in dialog.status.text() and dialog.report is None


def test_the_steps_table_and_the_curve_show_question_value(window, qtbot, sessions):
    bundle_path = Path(sessions[1]) / "bundle.toml"
    assert window.open_bundles([bundle_path])
    settle(qtbot, window)
    walk = window.workbench.model.walkthrough
    assert walk is not None and walk.questions
    expected = {v.step: v for v in question_report(load_bundle(bundle_path)).steps}
    assert set(walk.questions) == set(expected)
    model = window.workbench.model
    column = model.COLUMNS.index("question")
    for row in range(1, model.rowCount()):
        step = walk.replay.steps[row - 1].step
        v = expected[step]
        shown = model.index(row, column).data().split("/")
        for text, number in zip(shown, (v.asked, v.random, v.best)):   # 2 significant digits
            assert text == "≈0" if 0 < abs(number) < 0.005 else \
                float(text) == pytest.approx(number, abs=0.5 if number >= 10 else
                                             0.051 * max(abs(number), 0.1)), (text, number)
        assert f"{v.gain:+.3f}" in model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
    panel = window.workbench.scores
    marks = [item for item in panel.curve.getPlotItem().listDataItems()
             if item.opts.get("symbol") in ("t", "t1")]
    points = sorted(x for item in marks for x in item.getData()[0].tolist())
    costs, _ = walk.replay.curve()
    assert points == pytest.approx(sorted(costs[1:].tolist()))   # every step is active here
    ups = sum(len(item.getData()[0]) for item in marks if item.opts["symbol"] == "t1")
    assert ups == sum(v.gain > 0 for v in expected.values())
