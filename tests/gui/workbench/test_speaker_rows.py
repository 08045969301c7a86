"""The per-speaker table below the timeline shows whole rows: at 1366x768 the room left under
an AMI meeting's split view held three and a half, and the fourth speaker's row was cut
through its figures (an outsider's report)."""
from __future__ import annotations

from tests.gui.workbench.conftest import shown_timeline, step_shown
from tests.gui.workbench.test_split_opening import show_walk  # noqa: F401 - a fixture


def test_the_table_below_the_split_view_ends_on_a_whole_row(qtbot, show_walk):  # noqa: F811
    result, step = show_walk
    parts = []
    for height in range(430, 560, 9):   # rooms that end at every point of a row
        view = shown_timeline(qtbot, 700, height)
        step_shown(qtbot, view, result, step, result.errors_at(step))
        qtbot.wait(30)   # (the layouts the step asked for)
        table = view.speakers
        assert view._speaker_row.orientation().name == "Vertical", "below the timeline"
        assert view.split is not None and view.split.isVisible()
        row = table.verticalHeader().defaultSectionSize()
        whole, part = divmod(table.viewport().height(), row)
        assert whole >= min(table.rowCount(), view.SPEAKER_ROWS_MIN)
        parts.append((height, whole, part))
        # the room the split view's first step gives the panels and the table is the one
        # the steps after it give them (it was fitted before the panels were shown)
        first = (table.height(), view.split.height())
        step_shown(qtbot, view, result, step, result.errors_at(step))
        qtbot.wait(30)
        assert (table.height(), view.split.height()) == first, height
        view.close()
    # below the last whole row, a pixel or two of frame, never part of a row
    assert [p for p in parts if p[2] > 3] == [], f"(window height, rows, px more): {parts}"
