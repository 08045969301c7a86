"""The live session's diarization timeline writes the document's clock as the workbench and
its own question do (outsider38: the axis read "time (s)" 50-550 while the question said
"8:50.1"; window.md: one time format everywhere, never raw seconds)."""
from __future__ import annotations

from llgui.core.display.layout import format_time


def test_the_live_timeline_axis_is_in_minutes_and_seconds(qtbot):
    from llgui.gui.live.panels import DiarPanel

    panel = DiarPanel()
    qtbot.addWidget(panel)
    axis = panel.plot.getAxis("bottom")
    assert axis.labelText == "time (m:ss)"
    values = [480.0, 510.0, 540.0]
    assert axis.tickStrings(values, 1.0, 30.0) == [format_time(v, 0) for v in values] \
        == ["8:00", "8:30", "9:00"]
