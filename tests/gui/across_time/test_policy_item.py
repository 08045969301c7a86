"""Editing the user policy with real mouse events on the policy plot's viewport.

The S_P values the tab shows after a drag must equal what the headless CLI prints for the
policy saved from the GUI's state (`llgui lifelong BUNDLE --policy POLICY.json --format
json`), and equation 2 written out as loops here. Undo must bring back the previous policy and
its S_P; double-click adds a point; Delete and right-click remove one, never the last.
"""
from __future__ import annotations

import json
import math
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication

from llgui.core.across_time.policy import PRESETS, Policy
from llgui.io.policy_file import save_policy
from llgui.gui.demo import demo_bundles
from tests.conftest import llgui_in_process as _llgui  # noqa: E402


# --------------------------------------------------------------------------------------------
# Helpers shared with test_across_time.py


def wait_for(condition, timeout: float = 90.0) -> None:
    """Process Qt events until `condition()` holds (for module-scoped fixtures, no qtbot)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        QApplication.processEvents()
        time.sleep(0.01)


def open_demo_window(tmp_dir: Path):
    """A MainWindow (no session) with every demo bundle open and every job done."""
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    window.resize(1500, 950)
    window.show()
    assert window.open_bundles(demo_bundles())
    # The detection tab evaluates when first shown; the across-time tab draws when shown.
    window.show_tab("detection")
    # every bundle with documents (MT, diarization, the lifelong detection systems) is scored
    with_documents = sum(1 for b in window.state.bundles if b.documents)
    wait_for(lambda: not window.jobs.busy
             and len(window.time_tab.collections) == with_documents
             and window.detection_tab.results)
    window.show_tab("time")
    return window


def equation_2(table, metric: str, policy: Policy) -> list[float]:
    """S_P(M_i) = sum over t_j in [l_1, l_i] of s(M_i, t_j) P(t_j), by loops (relative mode,
    x = (t_j - l_1) / (l_i - l_1); missing cells skipped; weights divided by their sum over
    the window when the policy normalises)."""
    xs = [x for x, _ in policy.points]
    ws = [w for _, w in policy.points]

    def weight(x: float) -> float:
        if x <= xs[0]:
            return ws[0]
        if x >= xs[-1]:
            return ws[-1]
        for k in range(1, len(xs)):
            if x <= xs[k]:
                return ws[k - 1] + (ws[k] - ws[k - 1]) * (x - xs[k - 1]) / (xs[k] - xs[k - 1])
        raise AssertionError("unreachable")

    assert policy.mode == "relative"
    model_times = [s.value for s in table.model_times]
    test_times = [s.value for s in table.test_times]
    values = table.values[metric].tolist()
    l1 = min(model_times)
    out = []
    for i, li in enumerate(model_times):
        num = den = 0.0
        for j, tj in enumerate(test_times):
            v = values[i][j]
            if not (l1 <= tj <= li) or math.isnan(v):
                continue
            w = weight((tj - l1) / (li - l1) if li > l1 else 1.0)
            num += w * v
            den += w
        if policy.normalise:
            out.append(num / den if den > 0 else math.nan)
        else:
            out.append(num)
    return out


def cli_lifelong(bundle_path: str, policy: Policy, tmp_path: Path) -> dict:
    """What `llgui lifelong BUNDLE --policy FILE --format json` prints for `policy`."""
    policy_file = tmp_path / "policy.json"
    save_policy(policy, policy_file)
    run = _llgui(["lifelong", bundle_path, "--policy", str(policy_file), "--format", "json"])
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def assert_same(a, b) -> None:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True), (a, b)


# --------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def policy_tab(window, qtbot):
    """The across-time tab on screen, showing the MT bundle, policy B, empty undo stack."""
    window.show_tab("time")
    tab = window.time_tab
    mt = window.state.bundle_index_of_task("mt")
    if tab.bundle_index != mt:
        tab.set_bundle(mt)
    window.state.edit_policy(PRESETS["B"], "B")
    window.state.undo_stack.clear()
    qtbot.waitExposed(tab.policy_plot)
    settle_layout(qtbot, tab)
    return tab


def settle_layout(qtbot, tab) -> None:
    """Wait until the plot's layout stops moving (a tab shown for the first time lays out its
    axes over a few event-loop turns), so a press lands where the handle is drawn."""
    last = None
    for _ in range(100):
        here = (handle_pos(tab, 0), tab.policy_plot.getPlotItem().getViewBox().sceneBoundingRect())
        if here == last:
            return
        last = here
        qtbot.wait(30)


def viewport_pos(tab, x: float, w: float) -> QPoint:
    """Viewport pixel of the data point (x, w) of the policy plot."""
    vb = tab.policy_plot.getPlotItem().getViewBox()
    return tab.policy_plot.mapFromScene(vb.mapViewToScene(QPointF(x, w)))


def handle_pos(tab, index: int) -> QPoint:
    return tab.policy_plot.mapFromScene(tab.policy_item.scene_position(index))


def pixel_size(tab) -> tuple[float, float]:
    size = tab.policy_plot.getPlotItem().getViewBox().viewPixelSize()
    return abs(size[0]), abs(size[1])


def drag(qtbot, tab, start: QPoint, end: QPoint, steps: int = 8) -> None:
    """Press, several moves, release, as a hand would (pyqtgraph drops moves closer than
    10 ms apart, so the moves are spaced)."""
    viewport = tab.policy_plot.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, steps + 1):
        here = start + (end - start) * (k / steps)
        qtbot.mouseMove(viewport, here)
        qtbot.wait(40)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def mt_bundle(window):
    return window.state.bundles[window.state.bundle_index_of_task("mt")]


# --------------------------------------------------------------------------------------------
# The tests are at the end of tests/gui/across_time/test_tab.py, in that module's demo window
# (a window of the demo with every job done cost ~1 s of CPU in a module of their own).
