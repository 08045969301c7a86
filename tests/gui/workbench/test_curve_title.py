"""The learning curve's legend (its plot title, fitted to two or three lines at 1366x768) is
drawn whole: pyqtgraph gives a plot title a row of 30 px, and the first of three lines was cut
at the top (an outsider's 1366x768 screenshot of the demo, both workbenches)."""
from __future__ import annotations

import pytest

from tests.gui.conftest import settle


@pytest.mark.parametrize("doc", ["news-2023-01-09", "show-2023-03-13"])
def test_the_learning_curves_legend_is_drawn_whole_at_1366(qtbot, module_demo_window, doc):
    window = module_demo_window   # one demo window for both documents (~0.7 s of CPU a window)
    window.resize(1366, 768)
    task = "mt" if doc.startswith("news") else "diarization"
    window.state.select(window.state.bundle_index_of_task(task), doc, step=0)
    settle(qtbot, window)
    qtbot.wait(100)
    scores = window.workbench.scores
    item = scores.curve.getPlotItem()
    lines = scores.curve_title.lines
    assert len(lines) >= 2, lines   # the case that was cut: a legend on several lines
    text = item.titleLabel.item.mapRectToScene(item.titleLabel.item.boundingRect())
    row = item.titleLabel.sceneBoundingRect()
    assert row.top() - 0.5 <= text.top() and text.bottom() <= row.bottom() + 0.5, (text, row)
    assert text.top() >= -0.5   # inside the plot widget's scene, not above it
