"""Twenty-four systems in the Systems tab at 1366x768 (issue 35, item 4): an output-only
campaign shows no empty online-run columns, every system's row is in sight, each system's
model versions are listed, and in the S_P plot no two systems look alike (colour, marker and
line style) with the legend beside the plot, not over it."""
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
def many(qapp, tmp_path_factory):
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
