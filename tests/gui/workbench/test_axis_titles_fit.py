"""The score panel's axis titles fit their axes at 1366x768 (a newcomer found "cumulative cost
(seconds listened" and "DER · axis from 38 (%" cut on the demo's diarization show)."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetricsF

from llgui.gui.demo import demo_bundles
from tests.gui.conftest import settle, shown_window


@pytest.fixture
def laptop(qtbot):
    window = shown_window(qtbot, 1366, 768)
    yield window
    window.jobs.shutdown(2000)


@pytest.mark.parametrize("doc", ["show-2023-03-13", "news-2023-01-09"])
def test_axis_titles_fit_their_axes(qtbot, laptop, doc):
    assert laptop.open_bundles(demo_bundles(), select_doc=doc, step=3)
    settle(qtbot, laptop)
    qtbot.wait(50)
    panel = laptop.workbench.scores
    # the bars' value axis: its title whole along the plot's height (it is elided past it)
    title = panel.bars.axis_label()
    room = panel.bars.layout_now().plot.height()
    assert QFontMetricsF(panel.bars.font()).horizontalAdvance(title) <= room, (doc, title, room)
    for plot in (panel.curve,):
        item = plot.getPlotItem()
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            if not axis.isVisible() or not axis.labelText:
                continue
            length = axis.geometry().height() if side == "left" else axis.geometry().width()
            text = axis.label.boundingRect().width()
            assert text <= length, (doc, side, axis.labelText, text, length)
