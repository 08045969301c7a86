"""DET confidence bands in the Detection tab (issue 15): computed on a worker while the event
loop keeps running, the newest request wins, the bands drawn and the intervals in the table.
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QTimer

from llgui.core import det
from llgui.core import det_resample  # noqa: F401 - imported before the clicks are timed
from llgui.gui.det_bands import BANDS_KEY
from tests.gui.stall import MainThreadClock


@pytest.fixture
def tab(window, qtbot):
    window.show_tab("detection")
    tab = window.detection_tab
    qtbot.waitExposed(tab.plot)
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
    return tab


def test_bands_on_a_worker_newest_wins_and_drawn(window, tab, qtbot):
    delivered = []
    window.jobs.result_ready.connect(lambda key, result: delivered.append((key, result))
                                     if key == BANDS_KEY else None)
    gaps, clock = [], MainThreadClock(time.perf_counter())

    def tick():  # gaps while the band job is the only thing running (OS waits taken out)
        gap = clock.gap(time.perf_counter())
        if window.jobs.is_running(BANDS_KEY) and not window.jobs.is_running("det"):
            gaps.append(gap)

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    tab.bands.samples = 60   # fewer resamples than the window's 200: the test's time
    before = tab.bands.requests
    qtbot.mouseClick(tab.bands.box, pg.QtCore.Qt.MouseButton.LeftButton)   # a real click
    assert tab.bands.box.isChecked()
    assert window.jobs.is_running(BANDS_KEY)
    # a second request (another DCF point) replaces the first
    new_dcf = det.DCF_PRESETS[1]
    tab.set_dcf(new_dcf)
    assert tab.bands.requests == before + 2
    # the curves first (their drawing is the tab's own work), then only the bands compute
    # on the worker: the event loop must keep turning
    qtbot.waitUntil(lambda: tab.shown_dcf == new_dcf, timeout=60000)
    qtbot.wait(150)   # the new curves painted
    assert window.jobs.is_running(BANDS_KEY)
    clock.reset(time.perf_counter())
    timer.start()
    qtbot.waitUntil(lambda: not window.jobs.is_running(BANDS_KEY), timeout=120000)
    qtbot.wait(50)
    timer.stop()
    assert len(delivered) == 1, "only the newest request's result is delivered"
    # on a quiet machine the band job is quick: a tick or two while it runs is the measure
    assert gaps and max(gaps) < 0.1, f"the event loop stalled {1000 * max(gaps):.0f} ms"
    results = delivered[0][1]
    systems = tab.systems()
    assert [r.band.name for r in results] == [t.name for t in systems]
    for r, trials in zip(results, systems):
        # made with the newer DCF point
        assert r.min_dcf.score == pytest.approx(
            det.min_dcf(trials.scores, trials.is_target, *new_dcf), abs=1e-12)
        assert np.all(r.band.low <= r.band.p_miss) and np.all(r.band.p_miss <= r.band.high)
    fills = [i for i in tab.plot.getPlotItem().items if isinstance(i, pg.FillBetweenItem)]
    assert len(fills) == len(systems)
    header = [tab.table.horizontalHeaderItem(c).text() for c in range(tab.table.columnCount())]
    assert header[-2:] == ["EER ±95%", "minDCF ±95%"]
    assert "±" in tab.table.item(0, tab.table.columnCount() - 1).text()
    # off: no bands, no extra columns
    qtbot.mouseClick(tab.bands.box, pg.QtCore.Qt.MouseButton.LeftButton)
    assert not any(isinstance(i, pg.FillBetweenItem) for i in tab.plot.getPlotItem().items)
    assert tab.table.columnCount() == len(header) - 2
    tab.set_dcf(det.DCF_PRESETS[0])
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
