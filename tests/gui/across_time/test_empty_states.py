"""The Across time tab where there is little to draw (outsider helper-56): with nothing it
draws, it says what it draws and where the open bundles' numbers are, in place of empty axes;
the per-document axes hold every series drawn on them, and a cost axis starts at 0."""
from __future__ import annotations

from tests.gui.conftest import shown_window


def test_across_time_with_only_a_detection_bundle_says_where_it_is_drawn(qtbot):
    """Outsider helper-56: a detection bundle alone showed an empty bundle box, empty axes and
    a 0-1 colour bar here; the tab now says that it draws MT and diarization bundles and
    where the detection bundle's numbers are. An MT bundle opened beside it is drawn."""
    from llgui.resources import demo_dir

    demo = demo_dir()
    window = shown_window(qtbot)
    assert window.open_bundles([str(demo / "detection-lifelong" / "bundle.toml")])
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=30000)
    window.show_tab("time")
    tab = window.time_tab
    qtbot.waitUntil(lambda: tab._built and not tab._stale, timeout=10000)
    assert tab.heatmap_stack.currentWidget() is tab.no_table and not tab.top_split.isVisible()
    text = tab.no_table.text()
    assert "Detection</b> tab" in text and "MT and diarization" in text
    assert "Demo: detection" in text      # the bundle, by its name
    assert tab.bottom_split.sizes()[1] == 0   # no empty per-document axes beside it
    assert window.open_bundles([str(demo / "mt" / "bundle.toml")])
    window.show_tab("time")
    qtbot.waitUntil(lambda: tab.heatmap_stack.currentWidget() is tab.heatmap, timeout=10000)
    qtbot.waitUntil(tab.top_split.isVisible, timeout=5000)   # (shown a turn later)
    assert tab.heatmap.values is not None
    assert tab.bottom_split.sizes()[1] > 0


def test_the_per_document_axes_hold_the_tables_points_and_a_cost_never_negative(
        qtbot, tmp_path):
    """Outsider helper-56: the per-document plot's y range was fitted to the documents alone,
    and a TER table's diagonal (s(M_i, l_i), drawn over them) lay wholly outside it; with no
    correction, the cumulative cost was a flat line on a -0.4..0.4 axis."""
    lines = [f"the sentence number {k} is here ." for k in range(6)]
    (tmp_path / "ref.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "hyp.txt").write_text("\n".join(lines) + "\n")   # TER 0 on every document
    rows = ["model,model_time,test,test_time,metric,value"]
    diagonal = {1: 92.5, 2: 97.0, 3: 105.25}
    for m in (1, 2, 3):
        for t in (1, 2, 3):
            rows.append(f"v{m},{m},t{t},{t},ter,{diagonal[m] if m == t else 40.0 + m + t}")
    (tmp_path / "lifelong.csv").write_text("\n".join(rows) + "\n")
    docs = "".join(f'\n[[documents]]\nid = "d{k}"\ntime = {k}\nreferences = ["ref.txt"]\n'
                   f'hypothesis = "hyp.txt"\nlines = "{2 * k - 1}-{2 * k}"\n' for k in (1, 2, 3))
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nname = "far table"\nmetrics = ["ter"]\n\n'
        '[lifelong]\nscores = "lifelong.csv"\n' + docs)
    window = shown_window(qtbot)
    assert window.open_bundles([str(tmp_path / "bundle.toml")])
    window.show_tab("time")
    tab = window.time_tab
    qtbot.waitUntil(lambda: bool(getattr(tab, "series_points", None)), timeout=20000)
    low, high = tab.series_plot.getPlotItem().getViewBox().viewRange()[1]
    assert low <= 0.0 and high >= max(diagonal.values())      # the documents and the table
    cost_low, cost_high = tab.cost_plot.getPlotItem().getViewBox().viewRange()[1]
    assert cost_low == 0.0 and cost_high > 0.0
    # the table's model versions at times 1, 2, 3: the S_P plot ticked on whole numbers only
    # (helper-56: 1.5 and 2.5, times no model version has)
    axis = tab.sp_plot.getPlotItem().getAxis("bottom")
    ticks = [v for _, values in axis.tickValues(0.8, 3.2, 600) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks), ticks
    assert {1.0, 2.0, 3.0} <= set(ticks)
    window.jobs.shutdown(2000)
