"""Issue 36, second pass: what a step leaves alone stays alone, and the shortcuts taken to
leave it alone give what the long way gives.

- a label whose text changes at every step (held in a `QuietBox`) does not lay out its
  parent again (QLabel.setText invalidates the parent's layout; each layout activated then
  invalidates the one above it, up to the window);
- the turn-label runs of a lane found over the bars in view only are the runs the core's
  `label_runs` finds over the whole lane, seen through the same range (random lanes,
  overlaps, ties, runs cut at either edge);
- the learning curve's range stays put from step to step of a document (the step's marker
  used to move it a little at each step).
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.conftest import REPO
from tests.gui.workbench.conftest import event_count


@pytest.mark.parametrize("quiet", [False, True])
def test_a_quiet_label_new_text_does_not_lay_out_its_parent(qtbot, quiet):
    from llgui.gui.widgets.quiet_label import QuietBox

    parent = QWidget()
    qtbot.addWidget(parent)
    layout = QVBoxLayout(parent)
    label = QLabel("step 1")
    label.setWordWrap(True)
    label.setFixedHeight(40)
    layout.addWidget(QuietBox(label) if quiet else label)
    layout.addWidget(QLabel("below"))
    parent.resize(400, 200)
    parent.show()
    qtbot.waitExposed(parent)
    qtbot.wait(20)   # the first show's own layout requests are past
    requests = event_count(parent, QEvent.Type.LayoutRequest)
    for k in range(2, 6):
        label.setText(f"<b>step {k}</b> · what the human gave at step {k}")
        qtbot.wait(1)
    # the plain label (the control) invalidates its parent's layout at each new text
    assert (requests.count == 0) if quiet else (requests.count >= 1)
    assert label.text().endswith("step 5") and label.width() > 300   # laid out once, wide


def test_a_quiet_box_follows_its_label_height(qtbot):
    from llgui.gui.widgets.quiet_label import QuietBox

    label = QLabel("a")
    label.setFixedHeight(30)
    box = QuietBox(label)
    qtbot.addWidget(box)
    box.show()
    assert box.height() == 30
    label.setFixedHeight(55)   # a caption grown to a third line
    qtbot.waitUntil(lambda: box.height() == 55, timeout=2000)
    assert label.height() == 55


def test_runs_over_the_bars_in_view_are_the_whole_lane_runs_in_view():
    from llgui.core.display.lanes import label_runs
    from llgui.gui.workbench.diar_bars import run_keys, runs_in

    rng = np.random.default_rng(36)
    compared = cut_left = cut_right = 0
    for _ in range(3000):
        n = int(rng.integers(1, 50))
        starts = np.sort(rng.uniform(0, 100, n)).round(1)   # ties included
        width = rng.choice([0.2, 1.0, 3.0, 10.0, 40.0], n) * rng.uniform(0.5, 1.5, n)
        arrays = {"x0": starts, "width": width,
                  "level": rng.integers(0, 2, n).astype(float)}
        geometry = {"inverse": rng.integers(0, int(rng.integers(1, 4)), n)}
        lo = float(rng.uniform(-10, 100))
        hi = lo + float(rng.choice([1.0, 5.0, 20.0, 200.0]))
        gap = float(rng.choice([0.01, 0.5, 2.0]))
        keys = run_keys(arrays, geometry)
        # the reference: the core's runs over the whole lane, as the view sees them
        whole = label_runs(starts, width, [f"{k}" for k in keys.tolist()], gap)
        part = runs_in(arrays, geometry, lo, hi, gap)

        def seen(x0, ends, first):
            left = np.maximum(x0, lo)
            shown = np.minimum(ends, hi) - left
            return sorted((round(float(s), 9), round(float(a), 9), int(f))
                          for s, a, f in zip(shown, left, first) if s > 0)

        expected = seen(*whole)
        assert seen(*part) == expected, (lo, hi, gap)
        compared += bool(expected)
        cut_left += any(x < lo for x in whole[0][np.minimum(whole[1], hi) > lo])
        cut_right += any(e > hi for e in whole[1][whole[0] < hi])
    assert compared > 1000 and cut_left > 100 and cut_right > 100   # the edges were met


@pytest.fixture(scope="module")
def mt_walk():
    bundle = load_bundle(REPO / "resources" / "demo" / "mt" / "bundle.toml")
    document = bundle.documents[0]
    return walk(document, bundle.steps_of(document.id), "bleu", bundle.settings, bundle.cost)


def test_the_learning_curve_keeps_its_range_from_step_to_step(qtbot, mt_walk):
    from llgui.gui.workbench.score_panel import ScorePanel

    panel = ScorePanel()
    qtbot.addWidget(panel)
    panel.resize(700, 330)
    panel.show()
    qtbot.waitExposed(panel)
    box = panel.curve.getPlotItem().getViewBox()
    ranges = []
    for step in range(len(mt_walk.steps) + 1):
        panel.show_step(mt_walk, step)
        qtbot.wait(5)   # the auto-range is applied before the paint
        ranges.append(box.viewRange())
        # the marker at the step's corner of the curve, in the view's coordinates
        at, marker = mt_walk.replay.at(step), panel._marker
        centre = box.mapSceneToView(marker.mapToScene(marker.boundingRect().center()))
        assert (centre.x(), centre.y()) == pytest.approx((at.cum_cost, at.s_adapt))
    assert all(r == ranges[1] for r in ranges[1:]), ranges
    # and the curves are in it whole, the marker at every step too
    costs, adapt = mt_walk.replay.curve()
    (x0, x1), (y0, y1) = ranges[-1]
    assert x0 < min(costs) and max(costs) < x1 and y0 < min(adapt) and max(adapt) < y1
