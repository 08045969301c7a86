"""DET confidence bands in the Detection tab (issue 15): computed on a worker while the event
loop keeps running, the newest request wins, the bands drawn and the intervals in the table.
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QTimer

from llgui.core.detection import det
from llgui.core.significance import detection as _significance  # noqa: F401 - imported before the clicks are timed
from llgui.gui.detection.bands import BANDS_KEY
from tests.gui.stall import LOADED_BUSY_LIMIT, BusyClock, MainThreadClock


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
    gaps, clock, busy = [], MainThreadClock(time.perf_counter()), BusyClock()
    seen = {"running": False, "delivered": 0, "shown": False}

    def tick():
        """Count a gap while the band job runs alone on the worker, from the tick after the new
        curves are on screen (drawing them is the tab's own work) to the tick after its result
        arrived and the bands were drawn (only they: the curves stay)."""
        gap = clock.gap(time.perf_counter())
        work = busy.busy()
        running = window.jobs.is_running(BANDS_KEY)
        overlapped = running or seen["running"] or len(delivered) != seen["delivered"]
        shown = tab.shown_dcf == new_dcf and not window.jobs.is_running("det")
        if overlapped and shown and seen["shown"]:
            gaps.append((work, gap))
        seen["running"], seen["delivered"], seen["shown"] = running, len(delivered), shown

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    tab.bands.samples = 60   # fewer resamples than the window's 1,000: the test's time
    before = tab.bands.requests
    new_dcf = det.DCF_PRESETS[1]
    timer.start()
    qtbot.mouseClick(tab.bands.box, pg.QtCore.Qt.MouseButton.LeftButton)   # a real click
    assert tab.bands.box.isChecked()
    assert window.jobs.is_running(BANDS_KEY)
    # a second request (another DCF point) replaces the first
    tab.set_dcf(new_dcf)
    assert tab.bands.requests == before + 2
    qtbot.waitUntil(lambda: tab.shown_dcf == new_dcf, timeout=60000)
    qtbot.waitUntil(lambda: not window.jobs.is_running(BANDS_KEY), timeout=120000)
    qtbot.wait(50)
    timer.stop()
    assert len(delivered) == 1, "only the newest request's result is delivered"
    # the job can end before the new curves are drawn (then nothing overlapped it alone);
    # whatever did overlap it must be short
    # (the main thread's own work between ticks, which holds on a loaded machine; wall-clock
    # stalls are gate 3's, on a quiet one)
    work, gap = max(gaps, default=(0.0, 0.0))
    assert work < LOADED_BUSY_LIMIT, (f"the event loop worked {1000 * work:.0f} ms (a gap of "
                                      f"{1000 * gap:.0f})")
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
    assert header[-2:] == ["EER 95% CI", "minDCF 95% CI"]
    assert header.count("EER 95% CI") == 1   # one EER interval in the window (issue 27)
    for row, r in enumerate(results):
        # a percentile-type [low, high] around the point EER (BCa), not mean ± half-width
        cell = tab.table.item(row, tab.table.columnCount() - 2)
        assert cell.text() == f"[{r.eer.low:.2f}, {r.eer.high:.2f}]"
        assert r.eer.low <= r.eer.score <= r.eer.high
        assert "strata:class|ci:bca95" in cell.toolTip() and "BCa" in cell.toolTip()
    for row, (r, trials) in enumerate(zip(results, systems)):
        # minDCF's interval only with 30 errors of each kind at its operating point, counted
        # here from the trials (Doddington's rule of 30), else "too few errors (k)"
        p_target, c_miss, c_fa = new_dcf
        tar = trials.scores[trials.is_target]
        non = trials.scores[~trials.is_target]
        cost = [(c_miss * p_target * (tar < t).mean() + c_fa * (1 - p_target) * (non >= t).mean(),
                 min(int((non >= t).sum()), int((tar < t).sum())))
                for t in np.append(np.unique(trials.scores), np.inf)]
        errors = min(cost, key=lambda c: c[0])[1]
        text = tab.table.item(row, tab.table.columnCount() - 1).text()
        assert r.min_dcf_errors == errors
        if errors >= 30:
            assert text == f"[{r.min_dcf.low:.4f}, {r.min_dcf.high:.4f}]"
        else:
            assert text == f"too few errors ({errors})"
    # off: no bands, no extra columns
    qtbot.mouseClick(tab.bands.box, pg.QtCore.Qt.MouseButton.LeftButton)
    assert not any(isinstance(i, pg.FillBetweenItem) for i in tab.plot.getPlotItem().items)
    assert tab.table.columnCount() == len(header) - 2
    tab.set_dcf(det.DCF_PRESETS[0])
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
