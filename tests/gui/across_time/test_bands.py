"""S_P band and ACC/BWT/FWT intervals in the Across-time tab (issue 15): on a worker, equal to
the core's paired bootstrap, drawn as a band around the S_P curve."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from llgui.gui.across_time.bands import KEY, SAMPLES, SEED


def test_sp_band_and_summary_intervals(demo_window, qtbot):
    from llgui.core.significance.across_time import lifelong_intervals
    from llgui.core.significance.resample import Plan

    window = demo_window
    window.show_tab("time")
    tab = window.time_tab
    qtbot.waitUntil(lambda: tab.table() is not None, timeout=60000)
    qtbot.waitExposed(tab.sp_plot)
    box = tab.bands.box
    qtbot.waitUntil(box.isVisible, timeout=10000)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert tab.bands.box.isChecked() and window.jobs.is_running(KEY)
    qtbot.waitUntil(lambda: tab.bands.result is not None, timeout=120000)
    expected = lifelong_intervals(tab.table(), tab.table_metric, window.state.policy,
                                  Plan("bs", SAMPLES, SEED, "document"))
    got = tab.bands.result
    assert [e.mean for e in got.s_p] == pytest.approx([e.mean for e in expected.s_p],
                                                      nan_ok=True)
    assert got.acc.ci == pytest.approx(expected.acc.ci, nan_ok=True)
    assert got.bwt.mean == pytest.approx(expected.bwt.mean, nan_ok=True)
    items = tab.sp_plot.getPlotItem().items
    assert sum(isinstance(i, pg.FillBetweenItem) for i in items) == 1
    assert "ACC" in tab.bands.label.text() and "±" in tab.bands.label.text()
    qtbot.mouseClick(tab.bands.box, Qt.MouseButton.LeftButton)
    assert not any(isinstance(i, pg.FillBetweenItem) for i in tab.sp_plot.getPlotItem().items)
