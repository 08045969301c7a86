"""Issue 36 (diarization): a step moves the items it keeps (bar items, listened windows, UEM
lines, the overview's panel brushes) instead of making new ones, and what it then shows is
what a freshly built view of the same step shows: the same bars in view, windows, brushes,
panels, ranges and labels, after stepping forward and back through a document."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.conftest import REPO
from tests.gui.workbench.conftest import shown_timeline, step_shown

DIAR_BUNDLE = REPO / "resources" / "demo" / "diarization" / "bundle.toml"


@pytest.fixture(scope="module")
def demo_walk():
    bundle = load_bundle(DIAR_BUNDLE)
    for document in bundle.documents:
        result = walk(document, bundle.steps_of(document.id), "der", bundle.settings,
                      bundle.cost)
        if any(v.windows for v in result.steps) and len(result.steps) >= 5:
            return result
    pytest.fail("no demo show with listened windows")


def _view(qtbot):
    return shown_timeline(qtbot, 1100, 650)


def _settle(qtbot, *views) -> None:
    """Until no view (or panel) has a new size still to label for: a resize re-labels on
    the event loop's next turn (`DiarView._on_resized`), and a compare made before it reads
    labels placed for the old width beside the new width."""
    def pending():
        return [v for view in views
                for v in [view] + (view.split.panels if view.split is not None else [])
                if getattr(v, "_rebar", False)]

    qtbot.waitUntil(lambda: not pending(), timeout=5000)


def _state(view, panel: bool = False) -> dict:
    """What one timeline shows: its bars in view (by colour), listened windows, UEM lines,
    range and turn labels; the overview adds its split panels and their brushes."""
    item = view.plot.getPlotItem()
    bars = {}
    for layer in view.bars.layers:   # what the view's bar item paints, by brush colour
        key = layer.brush.color().name()
        rows = np.column_stack([np.asarray(getattr(layer, k), dtype=float)
                                for k in ("x0", "y0", "width", "height")])
        bars[key] = sorted(map(tuple, rows.round(9).tolist())) + bars.get(key, [])
    for key in bars:
        bars[key] = sorted(bars[key])
    windows = sorted(tuple(round(x, 9) for x in w) for w in view.listened.regions)
    lines = sorted(round(line.value(), 9) for line in item.items
                   if isinstance(line, pg.InfiniteLine) and line.isVisible()
                   and line is not view.playhead)
    out = {"bars": bars, "windows": windows, "lines": lines,
           "range": tuple(round(x, 6) for x in item.getViewBox().viewRange()[0]),
           "labels": sorted(view.labelled), "lanes": view.lanes, "shown": view.shown,
           "title": item.titleLabel.text,
           "texts": sorted((text, round(x, 6), round(y, 6), ink)
                           for text, x, y, ink in view.turn_labels.labels),
           "px": (item.getViewBox().width(), item.getViewBox().height())}
    if not panel:
        split = view.split
        on = split is not None and split.isVisible()
        out["spans"] = list(split.spans) if on else []
        out["brushes"] = ([tuple(round(x, 9) for x in b.getRegion()) for b in split.brushes]
                          if on else [])
        out["panels"] = ([_state(p, True) for p in split.panels[:len(split.spans)]]
                         if on else [])
    return out


def _comparable(state: dict) -> dict:
    """The state without what depends on the plot's size in pixels (the per-speaker table
    beside the timeline keeps the width its widest step needed, so a view that has shown
    other steps can be narrower): the turn labels that fit (see `_same_labels`)."""
    out = {k: v for k, v in state.items() if k not in ("px", "labels", "texts", "panels")}
    out["panels"] = [_comparable(p) for p in state.get("panels", [])]
    return out


def _same_labels(a: dict, b: dict, step: int) -> int:
    """The turn labels equal wherever the two plots have the same size; how many compared."""
    compared = 0
    if a["px"] == b["px"]:
        assert a["labels"] == b["labels"], step
        assert a["texts"] == b["texts"], step
        compared += 1
    for x, y in zip(a.get("panels", []), b.get("panels", [])):
        compared += _same_labels(x, y, step)
    return compared


def test_a_stepped_timeline_shows_what_a_fresh_one_shows(qtbot, demo_walk):
    stepped = _view(qtbot)
    n = len(demo_walk.steps)
    labelled = 0
    for step in list(range(n + 1)) + [n // 2, 1, 0, n]:
        # (until each view says the step: one that opens the split view draws its panels
        # on later turns, and 5 ms of waiting were too few beside two busy processes)
        step_shown(qtbot, stepped, demo_walk, step, demo_walk.errors_at(step))
        fresh = _view(qtbot)
        step_shown(qtbot, fresh, demo_walk, step, demo_walk.errors_at(step))
        if stepped.split is not None and fresh.split is None:
            fresh._build_split(len(stepped.split.panels))
            step_shown(qtbot, fresh, demo_walk, step, demo_walk.errors_at(step))
        qtbot.wait(5)
        _settle(qtbot, stepped, fresh)
        a, b = _state(stepped), _state(fresh)
        assert _comparable(a) == _comparable(b), step
        labelled += _same_labels(a, b, step)
        fresh.close()
    assert labelled >= 2   # the labels were compared where the sizes allowed


def test_a_step_makes_no_new_plot_items_once_the_view_has_its_own(qtbot, demo_walk):
    view = _view(qtbot)
    n = len(demo_walk.steps)
    for step in range(n + 1):   # every kind of step once: the items it needs are made
        view.show_step(demo_walk, step, demo_walk.errors_at(step))
    qtbot.wait(5)

    def items():
        views = [view] + (view.split.panels if view.split is not None else [])
        return {id(i) for v in views for i in v.plot.getPlotItem().items}

    made = items()
    for step in list(range(n, -1, -1)) + list(range(n + 1)):
        view.show_step(demo_walk, step, demo_walk.errors_at(step))
        assert items() <= made, step   # moved and hidden, never made anew


def test_a_panel_draws_the_bars_it_would_lay_out_itself(qtbot, demo_walk):
    """The split view's panels draw the overview's bars of the step (laid out once): the same
    bars, culled to each panel's span, as a timeline laying out its own at that span."""
    from llgui.gui.workbench.diar_view import DiarView

    view = _view(qtbot)
    split_steps = 0
    for step in range(len(demo_walk.steps) + 1):
        view.show_step(demo_walk, step, demo_walk.errors_at(step))
        if view.split is None:
            view._build_split(2)
            view.show_step(demo_walk, step, demo_walk.errors_at(step))
        if not view.split.isVisible():
            continue
        split_steps += 1
        for panel, span in zip(view.split.panels, view.split.spans):
            own = DiarView(split=False)
            qtbot.addWidget(own)
            own.resize(panel.size())
            own._colours = view._colours
            own.collar, own.skip_overlap = view.collar, view.skip_overlap
            own.show_step(demo_walk, step, demo_walk.errors_at(step), x_range=span)
            assert _state(panel, True)["bars"] == _state(own, True)["bars"], (step, span)
            own.close()
    assert split_steps >= 2


def test_the_speaker_table_measures_only_changed_columns_and_fits_every_one(qtbot, demo_walk):
    """A step measures again only the per-speaker columns whose cells it changed (all when
    rows come or go); every column still fits its content as a whole measure would."""
    from PySide6.QtWidgets import QTableWidget

    view = _view(qtbot)
    table = view.speakers
    measured: list = []
    real = QTableWidget.resizeColumnToContents

    def counted(self, column):
        measured.append(column)
        return real(self, column)

    QTableWidget.resizeColumnToContents = counted
    try:
        for step in range(len(demo_walk.steps) + 1):
            before = [list(row) for row in table._cells]
            rows = table.rowCount()
            measured.clear()
            view.show_step(demo_walk, step, demo_walk.errors_at(step))
            changed = {c for k, line in enumerate(table._cells) for c, cell in enumerate(line)
                       if k >= len(before) or before[k][c] != cell}
            if table.rowCount() != rows:
                changed = set(range(table.columnCount()))
            assert set(measured) == changed, step
            widths = [table.columnWidth(c) for c in range(table.columnCount())]
            table.resizeColumnsToContents()
            assert [table.columnWidth(c) for c in range(table.columnCount())] == widths, step
    finally:
        QTableWidget.resizeColumnToContents = real
