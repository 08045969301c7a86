"""The Across time tab with nothing it draws: it says what it draws and where the open
bundles' numbers are, in place of empty axes."""
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
