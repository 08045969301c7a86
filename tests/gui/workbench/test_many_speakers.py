"""Twenty speakers of a VoxConverse broadcast in the workbench (issue 35, item 5): beyond the
palette's reach, the fill pattern is a second channel; the lanes draw it, every pair of
speakers differs in colour (CIEDE2000 >= 15 in normal, protan and deutan vision) or in the
pattern drawn, and the legend says how they are told apart."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from llgui.core.display.lanes import lane_geometry

from llgui.core.display.palette import MIN_SPEAKER_DISTANCE, speaker_distance
from tests.gui.conftest import settle, shown_window

CLIP = Path(__file__).resolve().parents[2] / "data" / "voxconverse" / "kdfqk.rttm"


def _bundle(tmp_path):
    path = tmp_path / "bundle.toml"
    path.write_text(f'''[bundle]
task = "diarization"
name = "kdfqk"
metrics = ["der"]

[[documents]]
id = "kdfqk"
time = "1"
references = ["{CLIP}"]
hypothesis = "{CLIP}"
''')
    return path


def test_the_twenty_speakers_of_kdfqk_are_drawn_apart(qtbot, tmp_path):
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(_bundle(tmp_path))])
        settle(qtbot, window)
        view = window.workbench.diar_view
        reference = view.lanes["reference"]
        speakers = sorted({t.speaker for t in reference})
        assert len(speakers) == 20
        # what each speaker's turns are drawn with on the reference lane: the fill colour
        # of the layer under its first turn, and the pattern of the layer over it
        drawn = {}
        for speaker in speakers:
            turn = next(t for t in reference if t.speaker == speaker)
            fill, pattern = None, Qt.BrushStyle.SolidPattern
            # the colour of the reference lane's pieces of it (a turn is cut where it
            # overlaps: its pieces are told by the turn they are of)
            arrays = view._lane_info[0][3]
            geometry = lane_geometry(reference)
            k = int(np.flatnonzero((geometry["starts"] == turn.start)
                                   & (geometry["ends"] == turn.end))[0])
            held = {colour for colour, members in arrays["groups"].items()
                    if (arrays["turn"][members] == k).any()}
            assert len(held) == 1
            for layer in view.bars.layers:   # what the view's bar item paints
                if layer.colour not in held:
                    continue
                brush = layer.brush
                if brush.style() == Qt.BrushStyle.SolidPattern:
                    fill = brush.color().name()
                else:
                    pattern = brush.style()
            assert fill is not None, speaker
            drawn[speaker] = (fill, pattern)
        alike = [(a, b) for a, b in itertools.combinations(speakers, 2)
                 if drawn[a][1] == drawn[b][1]
                 and speaker_distance(drawn[a][0], drawn[b][0]) < MIN_SPEAKER_DISTANCE]
        assert alike == []
        assert len({p for _, p in drawn.values()}) >= 3     # a second channel is drawn
        legend = view.legend.text()
        assert "20 speakers: 6 colours" in legend and "hatched" in legend
    finally:
        window.jobs.shutdown(2000)
