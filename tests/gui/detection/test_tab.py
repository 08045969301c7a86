"""The Detection tab: numbers equal to the CLI's, jobs that can be cancelled or replaced,
NIST probit axes.

The table of the demo's three systems is held equal to what `llgui det ... --format json`
prints for the same score files, at two DCF operating points. A DET job on 10^6 trials is
cancelled (the cancelled signal arrives, nothing new is drawn) and replaced by a newer request
(only the newer result is drawn). The probit axes carry the NIST ticks and labels, placed at
the normal deviates scipy.stats.norm gives.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from scipy.stats import norm

from llgui.core.detection.det import DCF_PRESETS, DET_TICK_LABELS, DET_TICKS
from llgui.core.types import Trials


from tests.conftest import REPO  # noqa: E402
from tests.conftest import llgui_in_process as _llgui  # noqa: E402
SCORES = REPO / "resources" / "demo" / "detection" / "scores"
SYSTEMS = ("sysA", "sysB", "sysB-adapted")


@pytest.fixture
def tab(window, qtbot):
    window.show_tab("detection")
    tab = window.detection_tab
    qtbot.waitExposed(tab.plot)
    return tab


@pytest.fixture(scope="module")
def big_trials() -> Trials:
    """10^6 trials, all scores distinct (the slowest case), about 10 % targets."""
    rng = np.random.default_rng(7)
    labels = rng.random(1_000_000) < 0.1
    return Trials("big", rng.normal(0.0, 1.0, labels.size) + 2.0 * labels, labels)


def settle(qtbot, window) -> None:
    """Every job done and its queued outcome delivered."""
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
    assert window.jobs.pool.waitForDone(30000)
    qtbot.wait(50)


def cli_det(dcf) -> list[dict]:
    run = _llgui(["det", *(str(SCORES / f"{s}.txt") for s in SYSTEMS),
                  "--key", str(SCORES / "trials.key"), "--dcf", ",".join(f"{v:g}" for v in dcf),
                  "--format", "json"])
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["systems"]


@pytest.mark.parametrize("dcf", [DCF_PRESETS[0], DCF_PRESETS[2]])
def test_table_equals_the_cli(window, tab, qtbot, dcf):
    if tab.shown_dcf != dcf:
        tab.set_dcf(dcf, method="rocch")
        qtbot.waitUntil(lambda: tab.shown_dcf == dcf, timeout=60000)
    settle(qtbot, window)
    expected = cli_det(dcf)
    # the demo's lifelong detection bundle adds its own systems after these three
    rows = tab.table_rows()[:len(SYSTEMS)]
    assert [r["name"] for r in rows] == [e["name"] for e in expected] == list(SYSTEMS)
    for row, want in zip(rows, expected):
        for key in ("n_target", "n_nontarget", "eer_method"):
            assert row[key] == want[key]
        for key in ("eer", "min_dcf", "act_dcf"):
            assert abs(row[key] - want[key]) <= 1e-12, (key, row[key], want[key])
    # What is written in the cells is those numbers rounded (EER %, 3 places; DCF, 4).
    for r, want in enumerate(expected):
        assert tab.table.item(r, 3).text() == f"{want['eer']:.3f}"
        assert tab.table.item(r, 5).text() == f"{want['min_dcf']:.4f}"
        assert tab.table.item(r, 6).text() == f"{want['act_dcf']:.4f}"
    # The legend names each curve with its EER and minDCF.
    labels = [label.text for _sample, label in tab.legend.items]
    for want, label in zip(expected, labels):
        assert want["name"] in label and f"{want['eer']:.2f} %" in label
        assert f"{want['min_dcf']:.4f}" in label


def test_a_big_job_can_be_cancelled_and_nothing_new_is_shown(window, tab, qtbot, big_trials):
    settle(qtbot, window)
    shown_before, results_before = tab.shown_count, tab.results
    assert [r.name for r in results_before][:len(SYSTEMS)] == list(SYSTEMS)
    cancelled = []
    window.jobs.cancelled.connect(cancelled.append)
    try:
        with qtbot.waitSignal(window.jobs.cancelled, timeout=10000,
                              check_params_cb=lambda key: key == "det"):
            tab.set_systems([big_trials])
            assert tab.cancel_button.isEnabled()
            qtbot.mouseClick(tab.cancel_button, Qt.MouseButton.LeftButton)
        settle(qtbot, window)
    finally:
        window.jobs.cancelled.disconnect(cancelled.append)
    assert "det" in cancelled
    assert tab.shown_count == shown_before
    assert tab.results is results_before
    assert tab.table.rowCount() == len(results_before)
    assert "cancelled" in tab.status.text()
    assert not tab.cancel_button.isEnabled()
    # Back to the bundle's systems.
    tab.set_systems(None)
    qtbot.waitUntil(lambda: tab.shown_count == shown_before + 1, timeout=60000)
    settle(qtbot, window)


def test_a_newer_request_replaces_the_running_one(window, tab, qtbot, big_trials):
    from llgui.core.detection.det import evaluate

    settle(qtbot, window)
    shown_before = tab.shown_count
    first, second = DCF_PRESETS[0], DCF_PRESETS[1]
    tab.set_dcf(first, method="rocch")
    tab.set_systems([big_trials])          # replaces the request above
    tab.set_dcf(second)                    # replaces that one while it runs
    qtbot.waitUntil(lambda: tab.shown_count > shown_before, timeout=60000)
    settle(qtbot, window)
    assert tab.shown_count == shown_before + 1          # only the newest result was drawn
    (result,) = tab.results
    assert result.name == "big" and result.dcf == second
    direct = evaluate(big_trials, dcf=second)
    row = tab.table_rows()[0]
    assert row["n_target"] == big_trials.n_target
    assert abs(row["eer"] - 100 * direct.eer) <= 1e-12
    assert abs(row["min_dcf"] - direct.min_dcf) <= 1e-12
    assert abs(row["act_dcf"] - direct.act_dcf) <= 1e-12
    tab.set_systems(None)
    tab.set_dcf(DCF_PRESETS[0])
    qtbot.waitUntil(lambda: tab.results and tab.results[0].name == SYSTEMS[0], timeout=60000)
    settle(qtbot, window)


def test_probit_axes_have_the_nist_ticks(window, tab):
    tab.reset_view()
    # the plot is square in probit units (issue 23): the longer side shows more rates than
    # the NIST ones, never fewer; the shorter side exactly those
    shown = []
    for axis in (tab.x_axis, tab.y_axis):
        labels = axis.tick_labels()
        shown.append(labels)
        assert [t for t in labels if t in DET_TICK_LABELS] == list(DET_TICK_LABELS)
        lo, hi = axis.range
        values = [v for v in axis.tickValues(lo, hi, 500)[0][1]
                  if any(abs(v - n) < 1e-9 for n in norm.ppf(DET_TICKS))]
        assert np.allclose(values, norm.ppf(DET_TICKS), rtol=0, atol=1e-12)
    assert list(DET_TICK_LABELS) in shown
    item = tab.plot.getPlotItem()
    assert item.getAxis("bottom").labelText == "False Alarm probability (in %)"
    assert item.getAxis("left").labelText == "Miss probability (in %)"
    assert DET_TICK_LABELS == ("0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "40")


def test_one_eer_interval_in_the_window(window, tab, qtbot):
    """Issue 27: the separate "EER 95 % CI" box (stratified percentile, seed 0) is gone; the
    one EER interval is the DET bands job's, [low, high] around the point EER, BCa of 1,000
    stratified resamples, named in its tooltip."""
    from llgui.gui.detection.bands import SAMPLES

    settle(qtbot, window)
    assert not hasattr(tab, "bootstrap_box")
    assert SAMPLES == 1000
    assert tab.bands.signature == "bs:1000|seed:12345|unit:trial|strata:class|ci:bca95"
    assert "EER 95% CI" not in [tab.table.horizontalHeaderItem(c).text()
                                for c in range(tab.table.columnCount())]
    assert "BCa" in tab.bands.box.toolTip() and "separately" in tab.bands.box.toolTip()


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_export_plot_writes_the_det_plot(window, tab, tmp_path, suffix):
    import xml.etree.ElementTree as ET

    from PySide6.QtGui import QImage

    path = tmp_path / f"det{suffix}"
    tab.export_plot(str(path))
    assert path.stat().st_size > 1000
    if suffix == ".png":
        image = QImage(str(path))
        # twice the on-screen resolution
        assert (image.width(), image.height()) == (2 * tab.plot.width(), 2 * tab.plot.height())
    else:
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
        drawn = [e for e in root.iter() if e.tag.endswith(("path", "polyline"))]
        assert len(drawn) >= len(SYSTEMS)


def test_every_system_row_is_in_sight_at_1366(window, qtbot):
    """Issue 35: the systems table showed 3½ of 4 rows at 1366x768."""
    window.resize(1366, 768)
    window.show_tab("detection")
    tab = window.detection_tab
    qtbot.waitExposed(tab.plot)
    qtbot.waitUntil(lambda: not window.jobs.busy and tab.table.rowCount() > 0, timeout=60000)
    qtbot.wait(50)
    table = tab.table
    last = table.rowCount() - 1
    bottom = table.rowViewportPosition(last) + table.rowHeight(last)
    assert table.rowCount() >= 3 and bottom <= table.viewport().height()


def test_a_curve_hidden_under_an_identical_one_says_so_in_the_legend(window, tab, qtbot):
    """The demo's lifelong detection systems "adaptive" and "static" have the same scores:
    adaptive's DET curve lay under static's, unseen, with a legend entry of its own (an
    outsider looked for it at both sizes). Its entry now names the curve that hides it."""
    settle(qtbot, window)
    qtbot.waitUntil(lambda: {r.name for r in tab.results} >= {"adaptive", "static"},
                    timeout=60000)
    names = [r.name for r in tab.results]
    curves = {r.name: r.plot_curve for r in tab.results}
    assert np.array_equal(curves["adaptive"].p_miss, curves["static"].p_miss)   # the case
    assert names.index("adaptive") < names.index("static")   # static drawn over it
    legend = {label.text.split(" — ")[0]: label.text
              for _, label in tab.plot.getPlotItem().legend.items}
    assert "the same curve as static, under it" in legend["adaptive"]
    assert all("same curve" not in legend[n] for n in names if n != "adaptive")
