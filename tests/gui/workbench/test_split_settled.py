"""Issue 36, gate 14: a step inside a split view leaves nothing for the paint to move.

pyqtgraph moves a text item placed in pixels (the overview brush's name, `t1`) and makes a
line's bounds again (`pg.InfiniteLine`) when the scene is first painted after the view
changed; done there, each change asks for another pass of the scene's changes and another
paint of the window. The step does both itself (`diar_bars.settle_texts`): after it, the
scene's own preparation for the paint changes nothing.
"""
from __future__ import annotations

import pyqtgraph as pg
import pytest

from llgui.core.walkthrough import walk
from tests.gui.workbench.conftest import shown_timeline


@pytest.fixture(scope="module")
def split_steps():
    """A synthetic one-hour show and two consecutive steps that both show the split view."""
    from benchmarks.synthetic import diar_bundle
    from llgui.gui.workbench.diar_split import split_spans

    bundle = diar_bundle(1, 6)
    document = bundle.documents[0]
    result = walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)
    split = [bool(view.windows and split_spans(view.windows, document.extent))
             for view in result.steps]
    for k in range(len(split) - 1):
        if split[k] and split[k + 1]:
            return result, k + 1
    pytest.fail("no two consecutive steps of the synthetic show split the view")


def _lines(box) -> list:
    lines = []
    for item in box.addedItems:
        if isinstance(item, pg.InfiniteLine) and item.isVisible():
            lines.append(item)
        elif isinstance(item, pg.LinearRegionItem) and item.isVisible():
            lines.extend(item.lines)
    return lines


def _labels(box) -> list:
    return [line.label for line in _lines(box)
            if getattr(line, "label", None) is not None and line.label.isVisible()]


def test_a_split_step_leaves_the_paint_no_line_bounds_nor_text_to_move(qtbot, split_steps):
    result, step = split_steps
    view = shown_timeline(qtbot, 1100, 650)
    view.show_step(result, step, result.errors_at(step))
    qtbot.waitUntil(lambda: view.shown == (result.document.id, step), timeout=10_000)
    qtbot.wait(100)
    assert view.split is not None and not view.split.isHidden()
    view.show_step(result, step + 1, result.errors_at(step + 1))   # (no event processed)
    boxes = [view.plot.getPlotItem().getViewBox()] + [
        panel.plot.getPlotItem().getViewBox() for panel in view.split.panels
        if panel.isVisible()]
    lines = [line for box in boxes for line in _lines(box)]
    assert lines, "the split view shows no line (brush edges, UEM limits)"
    # every line's bounds made for the new range already (None: made again at the paint)
    assert all(line._boundingRect is not None for line in lines)
    labels = [label for box in boxes for label in _labels(box)]
    assert labels, "the overview's brush has no name shown"
    before = [(label.pos(), label.transform()) for label in labels]
    for box in boxes:
        box.scene().prepareForPaint()   # what the paint would do first
    assert [(label.pos(), label.transform()) for label in labels] == before
