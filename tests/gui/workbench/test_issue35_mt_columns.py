"""Issue 35 minor: at step 0 of an MT document the MT view shows the reference and h₀ only,
no empty third text column; from step 1 on, what the human saw and what came after."""
from __future__ import annotations

from tests.gui.conftest import settle


def test_step_0_has_no_empty_text_column(qtbot, demo_window):
    window = demo_window
    window.state.select(window.state.bundle_index_of_task("mt"), "news-2023-01-09")
    settle(qtbot, window)
    view = window.workbench.mt_view
    window.state.set_step(0)
    settle(qtbot, window)
    header = view.model.headerData
    shown = [header(c, qtbot_h()) for c in range(view.model.columnCount())
             if not view.table.isColumnHidden(c)]
    assert shown == ["#", "reference", "system hypothesis (h₀)"]
    window.state.set_step(1)
    settle(qtbot, window)
    shown = [header(c, qtbot_h()) for c in range(view.model.columnCount())
             if not view.table.isColumnHidden(c)]
    assert shown == ["#", "reference", "the human saw (hₙ₋₁)", "after the step (hₙ)"]


def qtbot_h():
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal
