"""The Across-time tab: the heatmap is the table, clicks select models and documents, presets
and the other policy controls are undoable edits whose S_P follows equation 2.

S_P is held equal to equation 2 written out as loops (tests/gui/across_time/test_policy_item.py); the
heatmap to the score table as loaded; the window outlined for a model to the tests whose time
lies in [l_1, l_i], computed here from the times.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from llgui.core.across_time.policy import PRESETS, Policy
from llgui.io.policy_file import load_policy
from tests.gui.across_time.test_policy_item import (  # noqa: F401 - policy_tab: a fixture
    assert_same, cli_lifelong, drag, equation_2, handle_pos, mt_bundle, pixel_size, policy_tab,
    settle_layout, viewport_pos,
)


@pytest.fixture
def tab(window, qtbot):
    window.show_tab("time")
    tab = window.time_tab
    tab.set_bundle(window.state.bundle_index_of_task("mt"))
    window.state.edit_policy(PRESETS["B"], "B")
    window.state.undo_stack.clear()
    qtbot.waitExposed(tab.heatmap.plot)
    return tab


def table_of(window, task: str):
    return window.state.bundles[window.state.bundle_index_of_task(task)].lifelong


def click_scene(qtbot, widget: pg.PlotWidget, scene_pos) -> None:
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton,
                     pos=widget.mapFromScene(scene_pos))


@pytest.mark.parametrize("task, metric", [("mt", "bleu"), ("diarization", "der")])
def test_heatmap_is_the_table(window, tab, task, metric):
    table = table_of(window, task)
    tab.set_bundle(window.state.bundle_index_of_task(task))
    assert tab.table_metric == metric
    shown = tab.heatmap.image.image
    assert shown.shape == (len(table.models), len(table.tests)) == table.values[metric].shape
    assert np.array_equal(shown, table.values[metric], equal_nan=True)
    assert tab.heatmap.left.names == list(table.models)
    # The S_P plot has one point per model version, at the model times.
    x, y = tab._sp_curves["current"].getData()
    assert_same(x, table.model_time_values())
    assert_same(y, equation_2(table, metric, PRESETS["B"]))


def test_clicking_a_row_selects_that_model_and_outlines_its_window(window, tab, qtbot):
    table = table_of(window, "mt")
    row = 4
    click_scene(qtbot, tab.heatmap.plot, tab.heatmap.cell_scene_position(row, 2))
    assert tab.selected_model == row
    l = [s.value for s in table.model_times]
    inside = [j for j, s in enumerate(table.test_times) if min(l) <= s.value <= l[row]]
    rect = tab.heatmap.window_box.rect()
    assert tab.heatmap.window_box.isVisible()
    assert (rect.left(), rect.right()) == (inside[0] - 0.5, inside[-1] + 0.5)
    assert (rect.top(), rect.bottom()) == (row - 0.5, row + 0.5)
    # The policy plot shows that model's tests: one stem per test in its window.
    xs, _ = tab.test_marks.getData()
    assert len(xs) == len(inside)
    assert_same(sorted(xs), [(table.test_times[j].value - min(l)) / (l[row] - min(l))
                             for j in inside])
    tab.select_model(-1)


def test_clicking_a_document_point_opens_it_in_the_workbench(window, tab, qtbot):
    mt = window.state.bundle_index_of_task("mt")
    docs = [d.id for d in window.state.bundles[mt].documents]
    assert sorted(tab.series_points) == sorted(docs)
    target = docs[2]
    window.state.select(mt, docs[0])
    click_scene(qtbot, tab.series_plot, tab.document_scene_position(target))
    assert (window.state.selection.bundle, window.state.selection.doc) == (mt, target)
    assert window.tabs.currentWidget() is window.workbench


def test_preset_buttons_change_the_policy_undoably(window, tab, qtbot):
    state = window.state
    table = table_of(window, "mt")
    for letter in ("A", "C"):
        qtbot.mouseClick(tab.preset_buttons[letter], Qt.MouseButton.LeftButton)
        assert state.policy == PRESETS[letter] and state.policy_name == letter
        assert tab.preset_buttons[letter].isChecked()
        assert not tab.preset_buttons["B"].isChecked()
        assert_same(tab.shown_sp["s_p"], equation_2(table, "bleu", PRESETS[letter]))
    assert state.undo_stack.count() == 2
    state.undo_stack.undo()
    assert state.policy == PRESETS["A"] and tab.preset_buttons["A"].isChecked()
    state.undo_stack.undo()
    assert state.policy == PRESETS["B"] and state.policy_name == "B"
    assert_same(tab.shown_sp["s_p"], equation_2(table, "bleu", PRESETS["B"]))
    # A's curve climbs towards "now", C's falls: each preset is what its button says.
    a, c = PRESETS["A"], PRESETS["C"]
    assert a.weight(1.0) > a.weight(0.0) and c.weight(1.0) < c.weight(0.0)


def test_raw_sum_and_normalised(window, tab, qtbot):
    state = window.state
    table = table_of(window, "mt")
    qtbot.mouseClick(tab.preset_buttons["A"], Qt.MouseButton.LeftButton)
    tab.normalise_box.click()
    assert state.policy.normalise is False and state.policy.points == PRESETS["A"].points
    assert state.policy_name == "custom"
    assert_same(tab.shown_sp["s_p"], equation_2(table, "bleu", state.policy))
    state.undo_stack.undo()
    assert state.policy == PRESETS["A"] and tab.normalise_box.isChecked()


def test_absolute_mode_keeps_the_last_model_and_uses_dates(window, tab, qtbot):
    state = window.state
    table = table_of(window, "mt")
    qtbot.mouseClick(tab.preset_buttons["A"], Qt.MouseButton.LeftButton)
    relative = np.array(tab.shown_sp["s_p"])
    tab.set_mode("absolute")
    policy = state.policy
    assert policy.mode == "absolute" and policy.dates
    times = table.model_time_values()
    assert policy.xs.tolist() == [times.min(), times.max()]
    absolute = np.array(tab.shown_sp["s_p"])
    # The last model's window is the whole span the curve was stretched over: same S_P.
    assert math.isclose(absolute[-1], relative[-1], rel_tol=0, abs_tol=1e-9)
    # An earlier model sees only the old end of the calendar curve: A weighs it less evenly.
    assert not math.isclose(absolute[5], relative[5], abs_tol=1e-6)
    assert isinstance(tab.policy_plot.getPlotItem().getAxis("bottom"), pg.DateAxisItem)
    state.undo_stack.undo()
    assert state.policy == PRESETS["A"]
    assert not isinstance(tab.policy_plot.getPlotItem().getAxis("bottom"), pg.DateAxisItem)


def test_policy_files_round_trip_and_bad_files_are_reported(window, tab, tmp_path):
    state = window.state
    policy = Policy("relative", ((0.0, 0.3), (0.25, 0.9), (1.0, 0.5)), normalise=False)
    state.edit_policy(policy, "custom")
    path = tmp_path / "mine.json"
    tab.save_policy_file(path)
    assert load_policy(path) == policy
    state.edit_policy(PRESETS["C"], "C")
    assert tab.load_policy_file(path)
    assert state.policy == policy and state.policy_name == "mine"

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"mode": "relative", "points": [[0, -1]]}, indent=1) + "\n",
                   encoding="utf-8")
    errors_before = len(window.errors)
    assert not tab.load_policy_file(bad)
    assert state.policy == policy        # nothing changed
    new = window.errors[errors_before:]
    assert new and all(str(bad) in line for line in new)
    assert any("weight must be >= 0" in line for line in new)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_export_plot_writes_the_four_plots(window, tab, tmp_path, suffix):
    import xml.etree.ElementTree as ET

    from PySide6.QtGui import QImage

    path = tmp_path / f"time{suffix}"
    tab.export_plot(str(path))
    assert path.stat().st_size > 1000
    if suffix == ".png":
        image = QImage(str(path))
        assert (image.width(), image.height()) == (2 * tab.plots.width(), 2 * tab.plots.height())
    else:
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        assert [e for e in root.iter() if e.tag.endswith("path")]


def test_the_summary_shows_forgetting_and_learning_accuracy(window, tab):
    """Beside ACC/BWT/FWT, the tab shows forgetting and learning accuracy, both computed here
    from the table by their definitions (Chaudhry et al. 2018; Riemer et al. 2019), and names
    FWT's baseline (issue 27, item 5)."""
    table = table_of(window, "mt")
    values = table.values["bleu"]
    models, tests = table.model_time_values(), table.test_time_values()
    learned = np.searchsorted(models, tests, side="left")
    last = values.shape[0] - 1
    forgetting = [np.nanmax(values[learned[j]:last, j]) - values[last, j]
                  for j in range(values.shape[1]) if learned[j] < last
                  and np.isfinite(values[last, j]) and np.isfinite(values[learned[j]:last, j]).any()]
    learning = [values[learned[j], j] for j in range(values.shape[1])
                if learned[j] <= last and np.isfinite(values[learned[j], j])]
    text = tab.summary.text()
    assert "forgetting" in text and "learning acc." in text
    assert "first model" in tab.summary.toolTip() and "Chaudhry" in tab.summary.toolTip()

    def shown(v):
        return f"{v:+.2f}" if v < 0 else f"{v:.2f}"

    assert f"<td>forgetting</td><td align='right'>{shown(np.mean(forgetting))}</td>" in text
    assert f"<td>learning acc.</td><td align='right'>{shown(np.mean(learning))}</td>" in text


# -- editing the policy with real mouse events (was tests/gui/across_time/test_policy_item.py,
# which keeps the helpers and the fixture) ---------------------------------------------------
# The S_P values the tab shows after a drag must equal what the headless CLI prints for the
# policy saved from the GUI's state (`llgui lifelong BUNDLE --policy POLICY.json --format
# json`), and equation 2 written out as loops. Undo must bring back the previous policy and
# its S_P; double-click adds a point; Delete and right-click remove one, never the last.


def test_drag_shows_the_cli_s_p_and_undo_restores_it(window, policy_tab, qtbot, tmp_path):
    tab = policy_tab
    state = window.state
    start_policy = Policy("relative", ((0.0, 0.2), (0.5, 0.5), (1.0, 1.0)))
    state.edit_policy(start_policy, "custom")
    state.undo_stack.clear()
    settle_layout(qtbot, tab)
    table = mt_bundle(window).lifelong
    assert_same(tab.shown_sp["s_p"], equation_2(table, "bleu", start_policy))

    live = []   # (provisional policy, what the tab showed, the state's policy) per signal

    def on_dragging(policy):
        live.append((policy, np.array(tab.shown_sp["s_p"]), state.policy))

    state.policy_dragging.connect(on_dragging)
    try:
        drag(qtbot, tab, handle_pos(tab, 1), viewport_pos(tab, 0.3, 0.9))
    finally:
        state.policy_dragging.disconnect(on_dragging)

    # One undoable command for the whole drag; the point followed the mouse (to a pixel).
    assert state.undo_stack.count() == 1
    moved = state.policy
    px, py = pixel_size(tab)
    (x0, w0), (x1, w1), (x2, w2) = moved.points
    assert (x0, w0, x2, w2) == (0.0, 0.2, 1.0, 1.0)
    assert abs(x1 - 0.3) <= 2 * px and abs(w1 - 0.9) <= 2 * py

    # While dragging: provisional policies went out, S_P followed them, the state held still.
    assert live, "no policy_dragging signal during the drag"
    for policy, shown, held in live:
        assert held == start_policy
        assert_same(shown, equation_2(table, "bleu", policy))

    # After the release the tab shows the CLI's S_P for the state's policy, in its attribute
    # and in the plotted curve.
    report = cli_lifelong(mt_bundle(window).path, moved, tmp_path)
    cli_sp = [m["s_p"] for m in report["models"]]
    cli_pen = [m["s_p_pen"] for m in report["models"]]
    assert_same(tab.shown_sp["s_p"], cli_sp)
    assert_same(tab.shown_sp["s_p_pen"], cli_pen)
    assert_same(tab._sp_curves["current"].getData()[1], cli_sp)
    assert_same(cli_sp, equation_2(table, "bleu", moved))

    # Undo: the previous policy and its S_P; redo: the dragged one again.
    state.undo_stack.undo()
    assert state.policy == start_policy
    assert tab.policy_item.policy == start_policy
    before = cli_lifelong(mt_bundle(window).path, start_policy, tmp_path)
    assert_same(tab.shown_sp["s_p"], [m["s_p"] for m in before["models"]])
    state.undo_stack.redo()
    assert state.policy == moved
    assert_same(tab.shown_sp["s_p"], cli_sp)


def test_drag_is_clamped_between_neighbours_and_above_zero(window, policy_tab, qtbot):
    tab = policy_tab
    state = window.state
    state.edit_policy(Policy("relative", ((0.0, 0.4), (0.5, 0.5), (0.8, 1.0))), "custom")
    settle_layout(qtbot, tab)
    # Far right and below the axis: x stops just before the next point, w at 0.
    drag(qtbot, tab, handle_pos(tab, 1), viewport_pos(tab, 1.02, -0.2))
    (x0, _), (x1, w1), (x2, _) = state.policy.points
    assert x0 == 0.0 and x2 == 0.8
    assert 0.79 < x1 < 0.8
    assert w1 == 0.0
    assert len(state.policy.points) == 3


def test_double_click_adds_a_point(window, policy_tab, qtbot):
    tab = policy_tab
    state = window.state
    assert state.policy == PRESETS["B"]
    pos = viewport_pos(tab, 0.4, 0.3)
    viewport = tab.policy_plot.viewport()
    # What the window system delivers for a double-click (QTest.mouseDClick sends only the
    # MouseButtonDblClick event; pyqtgraph reports the double click on the release after it).
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.wait(20)
    assert len(state.policy.points) == 3
    assert state.undo_stack.count() == 1
    x, w = state.policy.points[1]
    px, py = pixel_size(tab)
    assert abs(x - 0.4) <= 2 * px and abs(w - 0.3) <= 2 * py
    assert state.policy.points[0] == (0.0, 1.0) and state.policy.points[2] == (1.0, 1.0)
    state.undo_stack.undo()
    assert state.policy == PRESETS["B"]


def test_delete_key_and_right_click_remove_points_never_the_last(window, policy_tab, qtbot):
    tab = policy_tab
    state = window.state
    three = Policy("relative", ((0.0, 0.2), (0.5, 0.6), (1.0, 1.0)))
    state.edit_policy(three, "custom")
    settle_layout(qtbot, tab)
    viewport = tab.policy_plot.viewport()

    # Click selects the middle point; Delete removes it. A hand reaches the handle before it
    # clicks: the move delivers the hover that pyqtgraph routes the click by (the first
    # event of a fresh view, a bare press and release, reached no item)
    qtbot.mouseMove(viewport, handle_pos(tab, 1))
    qtbot.wait(20)
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=handle_pos(tab, 1))
    assert tab.policy_item.selected == 1
    qtbot.keyClick(tab.policy_plot, Qt.Key.Key_Delete)
    assert state.policy.points == ((0.0, 0.2), (1.0, 1.0))

    # Right-click removes the point under the mouse.
    qtbot.mouseClick(viewport, Qt.MouseButton.RightButton, pos=handle_pos(tab, 0))
    assert state.policy.points == ((1.0, 1.0),)

    # The last point stays, whatever the user does.
    qtbot.mouseClick(viewport, Qt.MouseButton.RightButton, pos=handle_pos(tab, 0))
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=handle_pos(tab, 0))
    qtbot.keyClick(tab.policy_plot, Qt.Key.Key_Delete)
    assert state.policy.points == ((1.0, 1.0),)

    # Each removal was one undoable command.
    state.undo_stack.undo()
    state.undo_stack.undo()
    assert state.policy == three


# -- the S_P band (was tests/gui/across_time/test_bands.py, in a demo window of its own, ~0.7 s
# of CPU) ----------------------------------------------------------------------------------


def test_sp_band_and_summary_intervals(window, qtbot):
    """S_P band and ACC/BWT/FWT intervals in the Across-time tab (issue 15): on a worker, equal to
    the core's paired bootstrap, drawn as a band around the S_P curve.
    (Was tests/gui/across_time/test_bands.py, in a demo window of its own.)"""
    from llgui.core.significance.across_time import lifelong_intervals
    from llgui.core.significance.resample import Plan

    from llgui.gui.across_time.bands import KEY, SAMPLES, SEED
    window.show_tab("time")
    tab = window.time_tab
    qtbot.waitUntil(lambda: tab.table() is not None, timeout=60000)
    qtbot.waitExposed(tab.sp_plot)
    box = tab.bands.box
    qtbot.waitUntil(box.isVisible, timeout=10000)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert tab.bands.box.isChecked() and window.jobs.is_running(KEY)
    qtbot.waitUntil(lambda: tab.bands.result is not None, timeout=120000)
    expected = lifelong_intervals(tab.table(), tab.table_metric, window.state.policy,
                                  Plan("bs", SAMPLES, SEED, "document"))
    got = tab.bands.result
    assert [e.mean for e in got.s_p] == pytest.approx([e.mean for e in expected.s_p],
                                                      nan_ok=True)
    assert got.acc.ci == pytest.approx(expected.acc.ci, nan_ok=True)
    assert got.bwt.mean == pytest.approx(expected.bwt.mean, nan_ok=True)
    items = tab.sp_plot.getPlotItem().items
    assert sum(isinstance(i, pg.FillBetweenItem) for i in items) == 1
    assert "ACC" in tab.bands.label.text() and "±" in tab.bands.label.text()
    qtbot.mouseClick(tab.bands.box, Qt.MouseButton.LeftButton)
    assert not any(isinstance(i, pg.FillBetweenItem) for i in tab.sp_plot.getPlotItem().items)
