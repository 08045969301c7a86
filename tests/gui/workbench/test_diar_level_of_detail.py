"""Issue 36, fifth pass (diarization): what the timeline draws of a long show, and what it
makes ahead of a step.

- an overview whose bars outnumber its pixel columns draws each lane at its level of detail:
  spans of whole columns, no more than there are columns, and every column where the lane
  has speech holds one (a 1-hour synthetic show, its overview at 900 px);
- the next step made ahead (`diar_ahead.prepare`) is what the step then shows, the same as a
  freshly built view shows, and the step finds its lanes' bars and labels made (none made
  again);
- a split panel's new title (a step's times) is set without laying its plot out again, and
  stays centred.
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject

from llgui.core.walkthrough import walk
from tests.gui.workbench.conftest import shown_timeline, step_shown
from tests.gui.workbench.test_diar_step_reuse import (  # noqa: F401 - the shared fixture
    _comparable, _state, _view, demo_walk,
)


@pytest.fixture(scope="module")
def hour_walk():
    from benchmarks.synthetic import diar_bundle

    bundle = diar_bundle(1, 3)
    document = bundle.documents[0]
    return walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)


def test_a_long_show_overview_draws_each_column_with_speech_once(qtbot, hour_walk):
    view = shown_timeline(qtbot, 1100, 650)
    view.show_step(hour_walk, 1, hour_walk.errors_at(1))
    qtbot.wait(10)
    box = view.plot.getPlotItem().getViewBox()
    (lo, hi), _ = box.viewRange()
    pixel = (hi - lo) / box.width()
    columns = int(np.ceil((hi - lo) / pixel - 1e-9))
    reference = view.lanes["reference"]
    assert len(reference) > columns   # (else there is no level of detail to check)
    # the reference lane's bars (row 0: y within [-0.4, 0.4]) over every layer drawn
    x0, width = [], []
    for layer in view.bars.layers:
        y0 = np.asarray(layer.y0, dtype=float)
        mine = (y0 >= -0.41) & (y0 < 0.4)
        x0 += np.asarray(layer.x0, dtype=float)[mine].tolist()
        width += np.asarray(layer.width, dtype=float)[mine].tolist()
    x0, width = np.array(x0), np.array(width)
    assert 0 < x0.size <= columns
    first = np.round((x0 - lo) / pixel)
    n = np.round(width / pixel)
    assert np.allclose(lo + first * pixel, x0) and np.allclose(n * pixel, width)
    drawn = np.zeros(columns, dtype=int)
    for f, k in zip(first.astype(int), n.astype(int)):
        drawn[f:f + k] += 1
    # which columns the reference speaks in, from its turns
    spoken = np.zeros(columns, dtype=bool)
    for turn in reference:
        # (a turn reaching a column by less than a millionth of it, by rounding: not in it)
        a = max(int((turn.start - lo) / pixel + 1e-6), 0)
        b = min(int(np.ceil((turn.end - lo) / pixel - 1e-6)), columns)
        spoken[a:b] = True
    bad = np.flatnonzero(drawn != spoken.astype(int))
    assert bad.size == 0, (bad[:10], drawn[bad[:10]], spoken[bad[:10]], columns, lo, pixel)


def test_a_step_made_ahead_is_the_step_a_fresh_view_shows(qtbot, demo_walk, monkeypatch):
    from llgui.gui.workbench import diar_ahead, diar_bars
    from llgui.gui.workbench.diar_view import DiarView

    made = {"lanes": 0, "labels": 0}
    lane_in_view, labels_of = diar_bars.lane_in_view, DiarView._lane_labels_of

    def counted_lanes(*args, **kwargs):
        made["lanes"] += 1
        return lane_in_view(*args, **kwargs)

    def counted_labels(self, *args, **kwargs):
        made["labels"] += 1
        return labels_of(self, *args, **kwargs)

    monkeypatch.setattr(diar_bars, "lane_in_view", counted_lanes)
    monkeypatch.setattr(DiarView, "_lane_labels_of", counted_labels)
    plain, stepped = _view(qtbot), _view(qtbot)   # the same steps, without and with
    n = len(demo_walk.steps)
    for view in (plain, stepped):
        view.show_step(demo_walk, 0, demo_walk.errors_at(0))
    totals = {"plain": 0, "ahead": 0}
    for step in range(1, n + 1):
        made.update(lanes=0, labels=0)
        step_shown(qtbot, plain, demo_walk, step, demo_walk.errors_at(step))
        qtbot.wait(5)
        totals["plain"] += made["lanes"] + made["labels"]
        diar_ahead.prepare(stepped, demo_walk, step)
        made.update(lanes=0, labels=0)
        step_shown(qtbot, stepped, demo_walk, step, demo_walk.errors_at(step))
        qtbot.wait(5)
        totals["ahead"] += made["lanes"] + made["labels"]
        # what the view made ahead shows is what the plain one shows, labels and all (the
        # same history: the same sizes), and what a fresh view shows
        a = _state(stepped)
        assert a == _state(plain), step
        fresh = _view(qtbot)
        step_shown(qtbot, fresh, demo_walk, step, demo_walk.errors_at(step))
        if stepped.split is not None and fresh.split is None:
            fresh._build_split(len(stepped.split.panels))
            step_shown(qtbot, fresh, demo_walk, step, demo_walk.errors_at(step))
        qtbot.wait(5)
        assert _comparable(a) == _comparable(_state(fresh)), step
        fresh.close()
    # the steps found lanes and labels made ahead: fewer made in the step
    assert totals["ahead"] < totals["plain"], totals


class _Layouts(QObject):
    def __init__(self, item):
        super().__init__()
        self.count = 0
        item.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        self.count += event.type() == QEvent.Type.LayoutRequest
        return False


@pytest.mark.parametrize("quiet", [False, True])
def test_a_panel_title_changes_without_laying_its_plot_out(qtbot, quiet):
    panel = shown_timeline(qtbot, 500, 300, split=False)
    panel.set_title("t = 0:01.5", "8pt")
    item = panel.plot.getPlotItem()
    layouts = _Layouts(item)
    for _ in range(50):   # the first title's own layouts are past (a loaded machine: later)
        layouts.count = 0
        qtbot.wait(20)
        if layouts.count == 0:
            break
    for k, title in enumerate(["t = 12:41.3", "t1 = 1:02:33.0, t2 = 1:40:07.9", "t = 9.5"]):
        if quiet:
            panel.set_title(title, "8pt")
        else:   # the control: pyqtgraph's own title
            item.setTitle(title, size="8pt")
        qtbot.wait(5)
        label = item.titleLabel
        assert label.item.toPlainText() == title
        centre = label.mapFromItem(label.item, label.item.boundingRect().center()).x()
        assert abs(centre - label.rect().center().x()) < 1.0, title
    assert (layouts.count == 0) if quiet else (layouts.count >= 1)
