"""The Across time tab's calendar axis over a month of days (the diarization demo's cost plot):
no day label is written over the month's label, and the first one drawn names the year."""
from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest


@pytest.mark.parametrize("width", [560, 900])
def test_days_apart_no_label_over_another_and_the_year_on_the_first(qapp, width):
    """Outsider helper-56: "29 MarApr 2023 03 Apr": pyqtgraph ticked the month (1 April) as
    well as every fifth day, and labelled both; the drawn label rectangles are measured."""
    import pyqtgraph as pg

    from llgui.gui.across_time.plots import CalendarAxis
    from tests.gui.axis_labels import assert_apart, drawn_labels

    axis = CalendarAxis("bottom", utcOffset=0)
    widget = pg.PlotWidget(axisItems={"bottom": axis})
    widget.resize(width, 200)
    widget.show()
    start = datetime(2023, 3, 4, tzinfo=timezone.utc).timestamp()
    end = datetime(2023, 4, 5, tzinfo=timezone.utc).timestamp()
    widget.getPlotItem().setXRange(start, end, padding=0)
    for _ in range(10):
        qapp.processEvents()
        time.sleep(0.01)
    drawn = drawn_labels(axis)
    assert len(drawn) >= 3
    assert_apart(drawn)
    texts = [text for _, text in drawn]
    assert texts[0].endswith("2023"), texts
    # the month's label stays, and the day ticks on either side of it are left out
    assert "Apr 2023" in texts
    widget.close()
