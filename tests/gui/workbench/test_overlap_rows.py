"""A turn overlapping another only briefly is drawn at the lane's full height where it
overlaps nothing, and in a thinner row only over the overlap (outsider finding: a long
reference turn overlapped for two seconds was a thin strip along its whole length).

The rectangles the timeline's bar item hands to the painter (`LaneBars.layers`), not
pixels: A [0, 60] and B [58, 62] in the reference and in the system's lanes (h1 = A, h2 = B).
"""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.display.lanes import BAR_FILL
from llgui.core.walkthrough import walk
from tests.gui.workbench.conftest import shown_timeline

RTTM = ("SPEAKER m 1 0.000 60.000 <NA> <NA> {a} <NA> <NA>\n"
        "SPEAKER m 1 58.000 4.000 <NA> <NA> {b} <NA> <NA>\n")


@pytest.fixture(scope="module")
def brief_overlap(tmp_path_factory):
    from llgui.io.bundle import load_bundle

    folder = tmp_path_factory.mktemp("overlap")
    (folder / "ref.rttm").write_text(RTTM.format(a="A", b="B"))
    (folder / "hyp.rttm").write_text(RTTM.format(a="h1", b="h2"))
    (folder / "bundle.toml").write_text('''[bundle]
task = "diarization"
name = "brief overlap"
metrics = ["der"]

[[documents]]
id = "m"
time = "1"
references = ["ref.rttm"]
hypothesis = "hyp.rttm"
''')
    bundle = load_bundle(folder / "bundle.toml")
    document = bundle.documents[0]
    return walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)


def _rects(view, row: int) -> list[tuple[float, float, float]]:
    """(x0, x1, height) of every rectangle painted in lane `row` (centred at y = -row)."""
    half = view.LANE_HEIGHT / 2
    out = []
    for layer in view.bars.layers:
        if not len(layer):
            continue
        rects = layer.rects.ndarray()   # x, y, width, height as handed to drawRects
        mine = (rects[:, 1] >= -row - half - 1e-9) & (rects[:, 1] < -row + half)
        out += [(float(x), float(x + w), float(h)) for x, _, w, h in rects[mine]]
    return sorted(out)


def test_a_brief_overlap_thins_the_bars_only_over_it(qtbot, brief_overlap):
    view = shown_timeline(qtbot, 1000, 500, split=False)
    view.show_step(brief_overlap, 0, brief_overlap.errors_at(0), x_range=(0.0, 62.0))
    qtbot.wait(10)
    full = view.LANE_HEIGHT * BAR_FILL
    for row in (0, 1, 4):   # the reference, h0 (the system) and h0 adapted
        rects = _rects(view, row)

        def height_at(t: float) -> list[float]:
            return sorted(h for a, b, h in rects if a <= t < b)

        # A alone over [0, 58]: one bar at the lane's full height, wherever one looks
        for t in (1.0, 30.0, 57.5):
            assert height_at(t) == pytest.approx([full]), (row, t, rects)
        # over the overlap, A and B in two rows of half the lane each
        assert height_at(59.0) == pytest.approx([full / 2, full / 2]), (row, rects)
        # B alone after it: full height again
        assert height_at(61.0) == pytest.approx([full]), (row, rects)
        # and every rectangle lies within its lane
        assert all(0 < h <= full + 1e-9 for _, _, h in rects)
    # nothing lost: the pieces add up to the turns (60 s + 4 s)
    assert np.isclose(sum(b - a for a, b, _ in _rects(view, 0)), 64.0)
    # hovering a piece tells of its turn, whole: its own onset, offset and speaker
    assert view.tooltip_at(30.0, 0.0).splitlines()[1:] == ["A: 0:00.00 – 1:00.00 (60.00 s)"]
    assert view.tooltip_at(59.0, 0.0).splitlines()[1:] == ["A: 0:00.00 – 1:00.00 (60.00 s)",
                                                            "B: 0:58.00 – 1:02.00 (4.00 s)"]
    assert view.tooltip_at(61.0, 0.0).splitlines()[1:] == ["B: 0:58.00 – 1:02.00 (4.00 s)"]
