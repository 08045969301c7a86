"""Across time (issue 35): documents at whole times tick on whole numbers; two open systems
are drawn together. The tests of the output-only campaign of 24 systems Across time are in
tests/gui/systems/test_many_systems.py, beside the window of that campaign they read."""
from __future__ import annotations


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
