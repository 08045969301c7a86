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
from tests.gui.conftest import diar_bundle, settle, shown_window

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


def test_an_unmapped_cluster_named_as_a_reference_speaker_is_said_to_be_the_systems(
        qtbot, tmp_path):
    """A `name` step's answer can give a system cluster a reference speaker's name; left
    unmapped, the legend listed "A" as the reference speaker and again under "unmapped:",
    read as one speaker (outsider helper-40 on AMI TS3003a, "MTD011UID")."""
    def rttm(name: str, turns) -> Path:
        path = tmp_path / name
        path.write_text("".join(f"SPEAKER m 1 {start:.2f} {end - start:.2f} <NA> <NA> {who} "
                                "<NA> <NA>\n" for start, end, who in turns))
        return path

    # x covers A, y covers B; the system's third cluster, named "A", is left over
    reference = rttm("ref.rttm", [(0, 10, "A"), (10, 20, "B")])
    hypothesis = rttm("hyp.rttm", [(0, 10, "x"), (10, 18, "y"), (18, 20, "A")])
    bundle = diar_bundle(tmp_path, reference, hypothesis, "m")
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(bundle)])
        settle(qtbot, window)
        legend = window.workbench.diar_view.legend.text()
        unmapped = legend.split("unmapped: ", 1)[1]
        assert "A&nbsp;(system's)" in unmapped and "&nbsp;x" not in unmapped
        assert "(system's)" not in legend.split("unmapped: ", 1)[0]   # the reference's own A
    finally:
        window.jobs.shutdown(2000)


def test_every_cluster_a_lane_draws_unmapped_is_named_in_the_legend(qtbot):
    """AMI TS3003a step 2: a `name` answer's cluster, grey on the corrected and adapted lanes
    but absent from h_{n-1}, had no legend entry (the legend named h_{n-1}'s unmapped ones
    only; outsider helper-41)."""
    from llgui.core.types import Turn
    from llgui.gui.workbench.diar_view import DiarView

    view = DiarView(split=False)
    qtbot.addWidget(view)
    reference = (Turn(0.0, 10.0, "A"), Turn(10.0, 20.0, "B"))
    seen = (Turn(0.0, 10.0, "x"), Turn(10.0, 20.0, "y"))   # both mapped
    view._tones = {"z": "#dcdcdc"}   # what `_step_lanes` gave: z drawn unmapped elsewhere
    view._update_legend(reference, seen, {"x": "A", "y": "B"}, None)
    unmapped = view.legend.text().split("unmapped: ", 1)[1]
    assert "#dcdcdc" in unmapped and "&nbsp;z" in unmapped
