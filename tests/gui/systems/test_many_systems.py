"""Twenty-four systems in the Systems tab at 1366x768 (issue 35, item 4): an output-only
campaign shows no empty online-run columns, every system's row is in sight, each system's
model versions are listed, and in the S_P plot no two systems look alike (colour, marker and
line style) with the legend beside the plot, not over it.

The same campaign's Across-time tab (its tests were in across_time/test_legend_outside.py and
across_time/test_issue35_campaign.py, each module opening and scoring this campaign again in a
window of its own: ~2.5 s of CPU each; one window serves them all here): the S_P legend outside
the plot, the other systems overlaid, the policy axis title, one look per system in both
tabs."""
from __future__ import annotations

import time

import pytest

from llgui.gui.systems.tab import COLUMNS, ONLINE_KEYS
from tests.gui.across_time.test_policy_item import wait_for

N_SYSTEMS = 24
REFS = ["the cat sat on the mat", "a dog barked at night", "rain fell on the town",
        "we went home early", "the shop was closed"]


def _campaign(root):
    (root / "ref").mkdir(parents=True)
    (root / "ref" / "all.txt").write_text("\n".join(REFS) + "\n")
    systems = []
    for k in range(N_SYSTEMS):
        for version in ("v1", "v2"):
            # each system drops a different word: 24 different scores
            lines = [" ".join(w for i, w in enumerate(r.split()) if (i + k) % 7 or version == "v2")
                     for r in REFS]
            folder = root / "sys" / f"s{k:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{version}.txt").write_text("\n".join(lines) + "\n")
        systems.append(f'[[systems]]\nname = "system-{k:02d}"\nmodels = [{{id = "v1", time = '
                       f'"2024-01-01"}}, {{id = "v2", time = "2024-03-01"}}]\n'
                       f'hypotheses = "sys/s{k:02d}/{{model}}.txt"\n')
    batches = "".join(f'[[batches]]\nid = "b{b}"\ntime = "2024-0{b}-15"\n'
                      f'references = ["ref/all.txt"]\nlines = "{b}-{b + 2}"\n\n'
                      for b in (1, 2, 3))
    path = root / "campaign.toml"
    path.write_text('[campaign]\nname = "many"\ntask = "mt"\nmetrics = ["bleu"]\n\n' + batches
                    + "\n".join(systems))
    return path


@pytest.fixture(scope="module")
def _many(qapp, tmp_path_factory):
    from llgui.gui.main_window import MainWindow

    root = tmp_path_factory.mktemp("many")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LLGUI_CACHE_DIR", str(root / "cache"))
        window = MainWindow(use_session=False)
        window.resize(1366, 768)
        window.show()
        window.jobs.release()
        assert window.open_campaign(_campaign(root))
        wait_for(lambda: window.systems_view.model.rowCount() > 0 and not window.jobs.busy,
                 timeout=300)
        window.show_tab("systems")
        for _ in range(20):
            qapp.processEvents()
            time.sleep(0.01)
        yield window
        window.jobs.shutdown(2000)
        window.close()


@pytest.fixture
def many(_many, qapp):
    """The module's window of the campaign, on the Systems tab (the Across-time tests show
    their own tab; nothing else is changed)."""
    _many.show_tab("systems")
    for _ in range(20):
        qapp.processEvents()
        time.sleep(0.01)
    return _many


def test_an_output_only_campaign_shows_only_the_columns_that_apply(many):
    view = many.systems_view
    shown = [key for c, (key, _, _) in enumerate(COLUMNS) if not view.view.isColumnHidden(c)]
    assert not set(shown) & ONLINE_KEYS
    assert shown[:2] == ["system", "versions"] and {"s_p_A", "s_p_B", "s_p_C"} <= set(shown)
    # every shown column is inside the table's viewport: none cut at 1366
    header = view.view.horizontalHeader()
    right = max(header.sectionViewportPosition(c) + header.sectionSize(c)
                for c, (key, _, _) in enumerate(COLUMNS) if key in shown)
    assert right <= view.view.viewport().width()


def test_every_system_is_in_sight_with_its_versions(many):
    view = many.systems_view
    model = view.model
    assert model.rowCount() == N_SYSTEMS
    versions = [COLUMNS[c][0] for c in range(len(COLUMNS))].index("versions")
    assert {model.index(r, versions).data() for r in range(N_SYSTEMS)} == {"v1, v2"}
    table = view.view
    last = table.rowViewportPosition(N_SYSTEMS - 1) + table.rowHeight(N_SYSTEMS - 1)
    assert 0 <= last <= table.viewport().height(), (last, table.viewport().height())


def test_no_two_systems_look_alike_and_the_legend_is_beside_the_plot(many):
    view = many.systems_view
    assert len(view.curves) == N_SYSTEMS
    looks = set()
    for name, curve in view.curves.items():
        opts = curve.opts
        looks.add((opts["pen"].color().name(), opts["symbol"], opts["pen"].style()))
    assert len(looks) == N_SYSTEMS
    # no pyqtgraph legend box over the curves; the list beside the plot names every system
    assert view.plot.getPlotItem().legend is None
    legend = view.legend
    assert [legend.item(i).text() for i in range(legend.count())] == list(view.curves)
    plot_rect = view.plot.geometry()
    assert legend.isVisible() and legend.geometry().left() >= plot_rect.right()
    assert "marker" in legend.toolTip()


def test_many_versions_are_listed_by_count_first_and_last():
    """Thirteen monthly versions took the S_P columns' room: first and last, the count,
    every one in the tooltip."""
    from PySide6.QtCore import Qt

    from llgui.gui.systems.tab import LeaderboardModel

    models = [{"model": f"M{k:02d}", "time": f"2023-{k % 12 + 1:02d}-01"} for k in range(13)]
    report = {"metrics": ["bleu"], "systems": [{"name": "s", "models": models, "cells": [],
                                                "leaderboard": {}, "online": None}],
              "signatures": {}}
    model = LeaderboardModel()
    model.set_report(report, {})
    column = [c[0] for c in COLUMNS].index("versions")
    assert model.index(0, column).data() == "13: M00 … M12"
    tip = model.index(0, column).data(Qt.ItemDataRole.ToolTipRole)
    assert all(f"M{k:02d}" in tip for k in range(13))


# -- the same campaign Across time ------------------------------------------------------------

def test_the_sp_legend_is_outside_the_data_and_the_model_is_named_by_its_id(many, qapp):
    """gui2, item 3: the Across-time S_P legend lies outside the plot's data area (it covered
    the upper half of the plot at 1366x768), and the policy plot names the model by its own id
    (it said "tests of M₃" for the third model of a table whose ids were M0-M2)."""
    window = many
    window.show_tab("time")
    for _ in range(30):
        qapp.processEvents()
        time.sleep(0.01)
    tab = window.time_tab
    item = tab.sp_plot.getPlotItem()
    legend = item.legend
    assert legend is not None and legend.items      # the entries are there
    area = item.getViewBox().sceneBoundingRect()
    box = legend.sceneBoundingRect()
    assert box.height() > 0 and not area.intersects(box), (area, box)
    # the legend is whole inside the widget (not pushed past its right edge)
    assert tab.sp_plot.mapFromScene(box.bottomRight()).x() <= tab.sp_plot.width()
    table, i = tab.table(), tab.model_index()
    assert i >= 0
    label = tab.policy_plot.getPlotItem().getAxis("left").labelText
    assert label.endswith(f"tests of {table.models[i]}"), (label, table.models[i])


def test_across_time_with_many_output_only_systems(many, qapp):
    """Issue 35, items 4 and 6: the other systems overlaid with one legend entry instead of 23
    over the plot, told apart by colour, marker and line style; no legend entry for a curve
    that is not drawn (it showed as ⊘); the penalised box, greyed, is not ticked; the
    time-series plot without a bundle says why and draws no empty ticks; the heatmap's row
    axis has no "(x0.001)" prefix."""
    window = many
    window.show_tab("time")
    for _ in range(30):
        qapp.processEvents()
        time.sleep(0.01)
    tab = window.time_tab
    legend = tab.sp_plot.getPlotItem().legend
    entries = [(sample.item, label.text) for sample, label in legend.items]
    assert all(item.isVisible() for item, _ in entries), [t for i, t in entries
                                                          if not i.isVisible()]
    assert not any("penalised" in text for _, text in entries)
    assert sum("other systems" in text for _, text in entries) == 1
    assert len(entries) <= 6                          # 3 presets, current, the others
    systems = tab._sp_curves["systems"]
    assert len(systems) == N_SYSTEMS - 1
    looks = {(c.opts["pen"].color().name(), c.opts["symbol"], c.opts["pen"].style())
             for _, _, c in systems}
    assert len(looks) == N_SYSTEMS - 1
    box = tab.penalised_box
    assert not box.isEnabled() and not box.isChecked()
    series = tab.series_plot.getPlotItem()
    assert "no bundle: open one" in series.titleLabel.text
    assert not series.getAxis("left").style["showValues"]
    assert not tab.heatmap.plot.getPlotItem().getAxis("left").autoSIPrefix


def test_the_policy_axis_title_fits_its_plot(many, qapp):
    """The policy plot's left title ("weight P(x) · stems: the 5 tests of AIST-AIRC") was cut
    at 1366x768: it fits the plot's height now, the model's name in the axis' tooltip."""
    from PySide6.QtGui import QFontMetrics

    window = many
    window.show_tab("time")
    for _ in range(20):
        qapp.processEvents()
    axis = window.time_tab.policy_plot.getPlotItem().getAxis("left")
    text = axis.label.toPlainText()
    assert "stems" in text and "model version v2" in axis.toolTip()
    width = QFontMetrics(axis.label.font()).horizontalAdvance(text)
    assert width <= axis.boundingRect().height(), (text, width, axis.boundingRect().height())


def test_each_system_has_one_colour_in_the_systems_tab_and_across_time(many, qapp):
    """gui2, item 3: a system's curve looks the same (colour, marker, line style) in the
    Systems tab's S_P plot and among the other systems Across time (the Systems tab numbered
    all systems, Across time only the others, so every system after the current one moved)."""
    window = many
    window.show_tab("systems")
    window.show_tab("time")
    for _ in range(30):
        qapp.processEvents()
        time.sleep(0.01)
    systems_tab = {name: (c.opts["pen"].color().name(), c.opts["symbol"], c.opts["pen"].style())
                   for name, c in window.systems_view.curves.items()}
    across = {name: (c.opts["pen"].color().name(), c.opts["symbol"], c.opts["pen"].style())
              for name, _, c in window.time_tab._sp_curves["systems"]}
    assert len(across) == N_SYSTEMS - 1 and len(systems_tab) == N_SYSTEMS
    assert {name: systems_tab[name] for name in across} == across
