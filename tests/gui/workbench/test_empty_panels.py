"""gui2, item 1: VoxConverse nitgx (21 speakers) scored with no interaction log at 1366x768:
the cost model, which prices nothing without steps, is folded away and the steps column
narrows, so the timeline gets the room; a bundle with steps keeps both (checked in
tests/gui/workbench/test_tab.py, test_with_steps_the_cost_model_stays, in that module's demo
window). A speaker's adjacent turns, drawn as one bar, carry its label at the overview zoom."""
from __future__ import annotations

from pathlib import Path

from tests.gui.conftest import diar_bundle, settle, shown_window

CLIP = Path(__file__).resolve().parents[2] / "data" / "voxconverse" / "nitgx.rttm"


def test_without_steps_the_cost_model_gives_its_room_to_the_timeline(qtbot, tmp_path):
    bundle = diar_bundle(tmp_path, CLIP, CLIP, "nitgx", "nitgx")
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(bundle)])
        settle(qtbot, window)
        qtbot.wait(100)
        bench = window.workbench
        assert len(bench.diar_view.lanes["reference"]) > 0          # the timeline is drawn
        assert not bench.cost_editor.isVisible()
        left, right = bench.splitter.sizes()
        assert right >= 0.6 * (left + right), (left, right)
        # the whole 20-minute show on screen (~2 s a pixel): no single turn holds a label,
        # but spk00's adjacent turns drawn as one long bar carry "spk00" (its first turns
        # in the RTTM: 0.63-7.65, 8.13-13.88, 14.73-22.22 s, each under a pixel apart)
        assert any(text == "spk00" for _row, text in bench.diar_view.labelled), \
            bench.diar_view.labelled
    finally:
        window.jobs.shutdown(2000)
