"""The flips page of the Across-time tab and the Systems tab's persistence columns (issue 33):
real Qt widgets offscreen, fed by the `regressions` and `campaign` reports of a WMT23 de-en
campaign; a click on a regressed unit shows both versions' outputs, equal to the lines of the
two hypothesis files."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.campaign.helpers import WMT_SYSTEMS, build_wmt_campaign, wmt_segments


@pytest.fixture(scope="module")
def reports(reference_data, tmp_path_factory):
    import os

    from llgui.campaign.regressions import campaign_regressions
    from llgui.campaign.run import run_campaign
    from llgui.campaign.cache import CellCache
    from llgui.io.campaign import load_campaign

    root = tmp_path_factory.mktemp("flips")
    path = build_wmt_campaign(root, reference_data, [list(range(0, 20)), list(range(20, 40))])
    run = run_campaign(load_campaign(path), workers=0, cache=CellCache(root / "cache"))
    return run.report, campaign_regressions(path, samples=100, run=run)


def test_click_a_regressed_unit_shows_both_versions(qtbot, reports, reference_data):
    from llgui.gui.across_time.flips_panel import FlipsPanel

    _, report = reports
    panel = FlipsPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    panel.show()
    panel.show_system("beta")
    panel.set_report(report)
    (pair,) = next(s for s in report["flips"] if s["name"] == "beta")["pairs"]
    texts = [panel.pairs.item(0, c).text() for c in range(panel.pairs.columnCount())]
    assert texts[:4] == ["M0 → M1", str(pair["n_units"]), str(pair["flips"]),
                         f"{pair['nfr']:.2f}"]
    assert panel.units.rowCount() == pair["flips"] > 1
    # click the second regressed unit, as a user would
    rect = panel.units.visualRect(panel.units.model().index(1, 1))
    qtbot.mouseClick(panel.units.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    flip = panel.current[1]
    ref, hyps = wmt_segments(reference_data)
    line = int(flip["batch"][1:]) * 20 + flip["index"]
    first, second = WMT_SYSTEMS["beta"]
    assert panel.before.toPlainText() == hyps[first][line]
    assert panel.after.toPlainText() == hyps[second][line]
    assert ref[line] in panel.reference.text().replace("&quot;", '"').replace("&#x27;", "'")
    assert f"{flip['score_before']:.2f}" in panel.before_title.text()


def test_systems_tab_shows_nfr_from_the_report(qtbot, reports):
    from llgui.gui.systems.tab import COLUMNS, LeaderboardModel

    report, regressions = reports
    model = LeaderboardModel()
    model.set_report(report, {}, "chrf")
    keys = [c[0] for c in COLUMNS]
    assert keys[2:5] == ["nfr", "relapse_rate", "replicate_sd"]   # after the name and versions
    for row in range(model.rowCount()):
        name = model.index(row, 0).data()
        pairs = next(s for s in regressions["flips"] if s["name"] == name)["pairs"]
        # one version pair: the system's NFR is that pair's (the same units, the same rule)
        assert model.index(row, keys.index("nfr")).data() == f"{pairs[0]['nfr']:.2f}"
        assert model.index(row, keys.index("relapse_rate")).data() == "–"


@pytest.fixture
def time_window(qtbot):
    """A window at 1366x768 showing the Across-time tab, its pages built."""
    from tests.gui.conftest import shown_window

    window = shown_window(qtbot, 1366, 768)
    window.show_tab("time")
    qtbot.waitUntil(lambda: getattr(window.time_tab, "pages", None) is not None,
                    timeout=10000)
    yield window
    window.jobs.shutdown(2000)
    window.close()


def test_the_flips_page_is_there_with_a_campaign_only(reports, time_window):
    """Without a campaign the Across-time tab showed an empty *Flips between versions* page,
    which window.md says comes "with a campaign open" (outsider helper-40, finding 10)."""
    from llgui.core.reports.campaign import table_from_report

    report, _ = reports
    tab = time_window.time_tab
    flips = tab.pages.indexOf(tab.flips)
    assert flips >= 0 and not tab.pages.isTabVisible(flips)
    # the no-table text points at docs that say how (the README's section is a picture)
    assert "docs/campaigns.md" in tab.no_table.text() and "README" not in tab.no_table.text()
    tab.set_campaign([(system["name"], table_from_report(report, k))
                      for k, system in enumerate(report["systems"])])
    assert tab.pages.isTabVisible(flips)
    tab.set_campaign([])
    assert not tab.pages.isTabVisible(flips)


def test_a_campaign_arriving_on_screen_is_drawn_a_part_per_turn(qtbot, reports, time_window):
    """A campaign whose scores arrived while Across time was on screen held the event loop
    100-190 ms (every system's S_P curve made and the whole tab repainted in one turn): the
    system is chosen at once, the drawing goes a part per turn of the event loop, and ends
    with every system's curve drawn."""
    import numpy as np

    from llgui.core.reports.campaign import table_from_report

    report, _ = reports
    tab = time_window.time_tab
    qtbot.waitUntil(lambda: not tab._stale, timeout=10000)
    names = [s["name"] for s in report["systems"]]
    tab.set_campaign([(name, table_from_report(report, k)) for k, name in enumerate(names)])
    assert tab.system_index == 0 and tab.pages.isTabVisible(tab.pages.indexOf(tab.flips))
    assert tab._stale and not (tab.shown_sp or {}).get("systems")   # not drawn yet
    qtbot.waitUntil(lambda: not tab._stale, timeout=10000)
    assert sorted(tab.shown_sp["systems"]) == sorted(names)
    curves = {name: curve for name, _, curve in tab._sp_curves["systems"]}
    for name, curve in curves.items():   # the other systems' curves hold what was shown
        np.testing.assert_array_equal(curve.getData()[1], tab.shown_sp["systems"][name])
