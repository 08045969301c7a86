"""The Across time tab made ahead of its first show while the user reads (issue 36,
llgui.gui.window.warm_tabs): a part per turn of the event loop, never during steps, and what
it draws ahead is what the tab shows."""
from __future__ import annotations

import time

import numpy as np
import pytest

from llgui.gui.demo import demo_bundles
from tests.gui.across_time.test_policy_item import assert_same, equation_2
from tests.gui.conftest import settle, shown_window


@pytest.fixture
def quick_warmer(monkeypatch):
    """The warmer's wait for a reader shortened (1.5 s in the window) so the tests are quick."""
    from llgui.gui.window import warm_tabs

    monkeypatch.setattr(warm_tabs, "QUIET_MS", 300)


def _open_demo(qtbot):
    window = shown_window(qtbot)
    assert window.open_bundles(demo_bundles())
    settle(qtbot, window)
    return window


def test_a_reader_pause_builds_and_draws_the_hidden_tab_a_part_at_a_time(qtbot, quick_warmer):
    window = _open_demo(qtbot)
    tab = window.time_tab
    assert window.tabs.currentWidget() is window.workbench
    qtbot.waitUntil(lambda: tab._built and not tab._stale, timeout=20000)
    assert not tab.isVisible()
    # every widget part and every drawing part, each in a turn of its own
    assert window.tab_warmer.parts >= len(tab._build_parts()) + len(tab._refresh_parts())
    # drawn ahead for the table the tab shows: S_P of the demo's lifelong table under the
    # current policy (equation 2 written out in the tests), its matrix in the heatmap
    table = tab.table()
    assert table is not None and tab.table_metric is not None
    assert_same(tab.shown_sp["s_p"], equation_2(table, tab.table_metric, window.state.policy))
    np.testing.assert_array_equal(tab.heatmap.values, np.asarray(
        table.values[tab.table_metric], dtype=float))
    # shown, it draws nothing again (what was drawn ahead stands), then the band's job
    drawn = []
    tab._show_matrix = lambda *a, _f=tab._show_matrix: (drawn.append(1), _f(*a))
    window.show_tab("time")
    qtbot.waitUntil(tab.isVisible, timeout=5000)
    assert drawn == [] and not tab._bands_pending


def test_steps_at_a_reader_s_pace_hold_the_warmer_back(qtbot, quick_warmer):
    from llgui.gui.window import warm_tabs

    window = _open_demo(qtbot)
    parts = window.tab_warmer.parts
    # a step every 0.15 s, forward and back (under the 0.3-s quiet spell): nothing is made
    end = time.monotonic() + 1.2
    direction = +1
    while time.monotonic() < end:
        window.step_by(direction)
        direction = -direction
        qtbot.wait(150)
        assert window.tab_warmer.parts == parts, "a part was made between two steps"
    assert warm_tabs.QUIET_MS == 300
    qtbot.waitUntil(lambda: window.tab_warmer.parts > parts, timeout=20000)


def test_a_change_while_hidden_is_drawn_again_before_the_tab_is_shown(qtbot, quick_warmer):
    from llgui.core.across_time.policy import PRESETS

    window = _open_demo(qtbot)
    tab = window.time_tab
    qtbot.waitUntil(lambda: tab._built and not tab._stale, timeout=20000)
    before = list(tab.shown_sp["s_p"])
    window.state.edit_policy(PRESETS["C"], "C")
    assert tab._stale                      # hidden: marked, drawn later
    qtbot.waitUntil(lambda: not tab._stale, timeout=20000)   # drawn again ahead
    assert_same(tab.shown_sp["s_p"], equation_2(tab.table(), tab.table_metric, PRESETS["C"]))
    assert list(tab.shown_sp["s_p"]) != before



_IMPORTS_AHEAD = r"""
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
app = QApplication([])
from llgui.gui.window import warm_tabs
warm_tabs.QUIET_MS = 300
from llgui.gui.main_window import MainWindow
from llgui.resources import demo_dir
window = MainWindow(use_session=False)
window.resize(1200, 800)
window.show()
assert "llgui.core.detection.det" not in sys.modules    # not on the start-up path
assert window.open_bundles([str(demo_dir() / sys.argv[1] / "bundle.toml")])
end = time.monotonic() + 8
while time.monotonic() < end:
    app.processEvents()
    time.sleep(0.01)
tab = window.detection_tab
thread = tab._import_thread
if thread is not None:
    thread.join(20)
print("imported" if "llgui.core.detection.det" in sys.modules else "not imported",
      "on a thread" if thread is not None else "no thread",
      "built" if tab._built else "not built")
window.jobs.shutdown(2000)
"""


@pytest.mark.parametrize("bundle, expected", [
    ("detection-lifelong", "imported on a thread not built"),
    ("mt", "not imported no thread not built"),
])
def test_the_detection_tab_s_imports_are_made_on_a_thread_while_the_user_reads(
        bundle, expected):
    """`llgui.core.detection.det` (scipy.special, 150 ms) was imported in the Detection tab's
    first show, in one turn of the event loop; with detection scores open it is imported on
    a thread once the window is quiet, and the tab is not built for it. In a fresh
    interpreter (this one has imported it already)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _IMPORTS_AHEAD, bundle], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == expected
