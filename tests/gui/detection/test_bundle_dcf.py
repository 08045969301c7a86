"""A detection bundle's operating point ([settings] p_target, c_miss, c_fa) is the one the
Detection tab opens at, as `llgui score` / `replay` use it (the demo's lifelong detection
bundle says p_target = 0.5; the tab and `score` showed minDCF at 0.01)."""
from __future__ import annotations

import pytest

from llgui import api
from llgui.core.detection.det import evaluate
from tests.conftest import DEMO
from tests.gui.conftest import settle

LIFELONG = DEMO / "detection-lifelong" / "bundle.toml"


@pytest.fixture
def lifelong_window(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1500, 950)
    window.show()
    assert window.open_bundles([LIFELONG])
    settle(qtbot, window)
    window.show_tab("detection")
    yield window
    window.jobs.shutdown(2000)


def test_the_tab_opens_at_the_bundles_operating_point(lifelong_window, qtbot):
    tab = lifelong_window.detection_tab
    bundle = api.load(LIFELONG)
    assert bundle.settings["p_target"] == 0.5
    assert tab.dcf() == (0.5, 1.0, 1.0) == api.bundle_dcf(bundle)
    qtbot.waitUntil(lambda: len(tab.table_rows()) == len(bundle.detection), timeout=60000)
    for row, trials in zip(tab.table_rows(), bundle.detection):
        direct = evaluate(trials, dcf=(0.5, 1.0, 1.0))
        assert abs(row["min_dcf"] - direct.min_dcf) <= 1e-12
    # what `llgui det` on the bundle reports, and replay's S_base of min_dcf
    report = api.det_report(bundle)
    assert report["systems"][0]["dcf"] == [0.5, 1.0, 1.0]
    assert report["systems"][0]["min_dcf"] == pytest.approx(tab.table_rows()[0]["min_dcf"],
                                                            abs=1e-12)
    # a choice of the user's stays when another bundle opens
    tab.set_dcf((0.05, 1.0, 1.0))
    assert lifelong_window.open_bundles([DEMO / "detection" / "bundle.toml"])
    qtbot.waitUntil(lambda: len(lifelong_window.state.bundles) == 2
                    and not lifelong_window.jobs.busy, timeout=60000)
    assert tab.dcf() == (0.05, 1.0, 1.0)


def test_score_of_a_detection_bundle_with_a_log_gives_the_penalised_scores():
    """`score` on a detection bundle with an interaction log gives S_base, S_adapt, S_pen per
    document at the bundle's operating point, what `replay` gives; without a log the DET
    summary, at the bundle's operating point too."""
    report = api.score_report(LIFELONG)
    replay = api.replay_report(LIFELONG, "static", "min_dcf")
    doc = next(d for d in report["documents"] if d["id"] == "static")
    for key in ("s_base", "s_adapt", "s_pen"):
        assert doc["penalised"]["min_dcf"][key] == pytest.approx(replay[key], abs=1e-12)
    assert "p_target:0.5" in report["metrics"]["min_dcf"]["signature"]
    plain = api.score_report(DEMO / "detection" / "bundle.toml")
    assert plain["systems"][0]["dcf"] == list(api.DEFAULT_DCF)
