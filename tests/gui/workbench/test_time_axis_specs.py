"""The timeline's time axis makes its drawing specs its own way (a panel's axis is made again at
every step): they are pyqtgraph's own, tick for tick and label for label."""
from __future__ import annotations

import random

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPicture

from llgui.gui.workbench.diar_axes import TimeAxis


def _specs(axis, generate):
    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        specs = generate(painter)
    finally:
        painter.end()
    if specs is None:
        return None
    (pen, a, b), ticks, texts = specs
    return ((pen.color().rgba(), pen.widthF(), a.x(), a.y(), b.x(), b.y()),
            [(p.color().rgba(), p1.x(), p1.y(), p2.x(), p2.y()) for p, p1, p2 in ticks],
            [(r.x(), r.y(), r.width(), r.height(), int(flags), text) for r, flags, text in texts])


@pytest.fixture
def plot(qtbot):
    axis = TimeAxis(orientation="bottom")
    widget = pg.PlotWidget(axisItems={"bottom": axis})
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    return widget, axis


@pytest.mark.parametrize("hours, grid", [(False, None), (True, None), (True, 0.2)])
def test_specs_equal_pyqtgraphs(qtbot, plot, hours, grid):
    widget, axis = plot
    axis.hours = hours
    if grid is not None:   # (the timeline's: a faint line at each tick)
        widget.getPlotItem().showGrid(x=True, y=False, alpha=grid)
    rng = random.Random(5)
    compared = labelled = 0
    for k in range(40):
        width = rng.choice([240, 420, 700, 1100])
        widget.resize(width, 160)
        start = rng.uniform(0, 3 * 3600)
        length = rng.choice([0.5, 4.0, 11.0, 60.0, 700.0, 3600.0]) * rng.uniform(0.5, 2.0)
        widget.getPlotItem().setXRange(start, start + length, padding=0)
        qtbot.wait(1)
        if k % 7 == 3:
            axis.setStyle(showValues=False)
        ours = _specs(axis, axis.generateDrawSpecs)
        theirs = _specs(axis, lambda p: pg.AxisItem.generateDrawSpecs(axis, p))
        axis.setStyle(showValues=True)
        assert ours == theirs, (width, start, length)
        compared += 1
        labelled += bool(ours and ours[2])
    assert compared == 40 and labelled >= 30   # (labels were there to compare)


def test_other_orientations_are_pyqtgraphs(qtbot):
    axis = TimeAxis(orientation="top")
    widget = pg.PlotWidget(axisItems={"top": axis})
    widget.showAxis("top")
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.getPlotItem().setXRange(10, 70, padding=0)
    qtbot.wait(1)
    ours = _specs(axis, axis.generateDrawSpecs)
    assert ours is not None and ours[2]
    assert ours == _specs(axis, lambda p: pg.AxisItem.generateDrawSpecs(axis, p))
