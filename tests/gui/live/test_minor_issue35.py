"""Issue 35's minors in the live session: times as the workbench writes them (1:36.0, not
"96.0 s"); the 20-speaker lanes drawn with their fill patterns."""
from __future__ import annotations

from PySide6.QtCore import Qt

from llgui.core.types import PointTarget, SameTarget, Turn
from llgui.gui.jobs.live import Snapshot
from llgui.sim.live import Question


def _snap(question, labels=("A", "B")):
    turns = tuple(Turn(10.0 * i, 10.0 * i + 8.0, labels[i % len(labels)])
                  for i in range(2 * len(labels)))
    return Snapshot("diarization", "active", "show", 0, 1, "der", hypothesis=turns,
                    question=question, labels=tuple(labels),
                    extent=(0.0, 10.0 * len(turns)), window=3.0)


def test_the_live_session_says_times_as_the_workbench_does(qtbot):
    from llgui.gui.live.panels import DiarPanel

    panel = DiarPanel()
    qtbot.addWidget(panel)
    panel.show_snapshot(_snap(Question("show", 1, "same", SameTarget(96.0, 3725.5), None)))
    assert "A (1:36.0)" in panel.prompt.text() and "B (1:02:05.5)" in panel.prompt.text()
    assert "96.0 s" not in panel.prompt.text()
    panel.show_snapshot(_snap(Question("show", 2, "name", PointTarget(75.25), None)))
    assert "Who speaks at 1:15.2?" in panel.prompt.text()


def test_twenty_speakers_in_the_live_session_get_patterns(qtbot):
    from llgui.gui.live.panels import DiarPanel

    labels = tuple(f"spk{i:02d}" for i in range(20))
    panel = DiarPanel()
    qtbot.addWidget(panel)
    panel.show_snapshot(_snap(None, labels))
    styles = {bars.opts["brush"].style() for bars in panel.windows}
    assert Qt.BrushStyle.SolidPattern in styles
    assert {Qt.BrushStyle.BDiagPattern, Qt.BrushStyle.DiagCrossPattern,
            Qt.BrushStyle.HorPattern} <= styles
