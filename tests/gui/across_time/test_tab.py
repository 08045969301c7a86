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
from tests.gui.across_time.test_policy_item import assert_same, equation_2


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
