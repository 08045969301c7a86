"""Across time with an output-only campaign of 24 systems (issue 35, items 4 and 6): the other
systems overlaid with one legend entry instead of 23 over the plot, told apart by colour,
marker and line style; no legend entry for a curve that is not drawn (it showed as ⊘); the
penalised box, greyed, is not ticked; the time-series plot without a bundle says why and
draws no empty ticks; the heatmap's row axis has no "(x0.001)" prefix."""
from __future__ import annotations

import time

from tests.gui.systems.test_many_systems import N_SYSTEMS, many  # noqa: F401 - the fixture


def test_across_time_with_many_output_only_systems(many, qapp):  # noqa: F811
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


def test_documents_at_whole_times_tick_on_whole_numbers(qtbot, tmp_path):
    """A bundle whose documents are at times 1, 2, 3, 4 (no lifelong table): the time axis
    ticked at 1.5, 2.5, 3.5, times no document has."""
    from llgui.gui.main_window import MainWindow
    from tests.gui.conftest import settle

    docs = []
    for d in range(1, 5):
        (tmp_path / f"r{d}.txt").write_text("the cat sat on the mat\n")
        (tmp_path / f"h{d}.txt").write_text("the cat sat on a mat\n")
        docs.append(f'[[documents]]\nid = "d{d}"\ntime = {d}\nreferences = ["r{d}.txt"]\n'
                    f'hypothesis = "h{d}.txt"\n')
    bundle = tmp_path / "bundle.toml"
    bundle.write_text('[bundle]\ntask = "mt"\nname = "x"\n\n' + "\n".join(docs))
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    try:
        assert window.open_bundles([str(bundle)])
        settle(qtbot, window)
        window.show_tab("time")
        qtbot.waitUntil(lambda: not window.jobs.busy, timeout=60000)
        qtbot.wait(100)
        axis = window.time_tab.cost_plot.getPlotItem().getAxis("bottom")
        ticks = [v for _, values in axis.tickValues(0.8, 4.2, 600) for v in values]
        assert ticks and all(float(v).is_integer() for v in ticks), ticks
        assert {1.0, 2.0, 3.0, 4.0} <= set(ticks)
        # no lifelong table: the metric box is not greyed out; it chooses the workbench's
        # metric, and the per-document plot is scored in it
        tab = window.time_tab
        box = tab.metric_box
        assert box.isEnabled() and box.count() >= 2
        other = next(box.itemData(k) for k in range(box.count())
                     if box.itemData(k) != window.state.metrics.get("mt"))
        box.setCurrentIndex(box.findData(other))
        box.activated.emit(box.currentIndex())
        assert window.state.metrics["mt"] == other
        qtbot.waitUntil(lambda: getattr(tab.collections.get(tab.bundle_index), "metric",
                                        None) == other, timeout=60000)
    finally:
        window.jobs.shutdown(2000)
        window.close()


def test_the_policy_axis_title_fits_its_plot(many, qapp):  # noqa: F811
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


def test_two_open_systems_are_drawn_together(qtbot, capsys):
    """Issue 35: two systems on the same documents (two bundles open, no lifelong table) were
    never drawn together in Across time; the other one's S_pen per document is overlaid, the
    numbers `llgui replay`'s."""
    import json

    from llgui.cli.main import main
    from llgui.gui.main_window import MainWindow
    from tests.conftest import REPO
    from tests.gui.conftest import settle

    demo = REPO / "resources" / "demo"
    other = demo / "campaign" / "static" / "online" / "bundle.toml"
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    try:
        assert window.open_bundles([str(demo / "mt" / "bundle.toml"), str(other)])
        settle(qtbot, window)
        window.show_tab("time")
        tab = window.time_tab
        qtbot.waitUntil(lambda: bool(getattr(tab, "series_others", None)), timeout=60000)
        (name, s_pen), = tab.series_others.items()
        assert "static" in name
        capsys.readouterr()
        assert main(["replay", str(other), "--doc", "news-2023-01-09", "--metric", "bleu",
                     "--format", "json"]) == 0
        expected = json.loads(capsys.readouterr().out)["s_pen"]
        assert any(abs(float(v) - expected) < 1e-9 for v in s_pen)
        legend = [label.text for _, label in tab.series_plot.getPlotItem().legend.items]
        assert any(t.endswith(": S_pen") and "static" in t for t in legend)
    finally:
        window.jobs.shutdown(2000)
        window.close()


def test_each_system_has_one_colour_in_the_systems_tab_and_across_time(many, qapp):  # noqa: F811
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
