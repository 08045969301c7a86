"""Overlapping turns are stacked only over the stretch where they overlap (outsider finding:
a reference turn overlapping another for two seconds was drawn as a thin strip along its
whole length, which an expert reads as overlapped speech throughout).

Each case: the turns of a lane, and the pieces an expert draws, written by hand as
(label, start, end, row, rows): a piece outside any overlap fills the lane (row 0 of 1), the
pieces of one overlapped stretch share it (rows = how many the stretch needs). Rows within
a stretch go by speaker label (the default rank), then time."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.display.lanes import (
    BAR_FILL, lane_bars, lane_geometry, lane_parts, overlap_spans, stack_pieces,
)
from llgui.core.display.layout import LANE_TOLERANCE
from llgui.core.types import Turn
from tests.conftest import reference_data_dir

T = Turn

CASES = {
    "no overlap": (
        (T(0.0, 5.0, "A"), T(5.0, 8.0, "B"), T(10.0, 12.0, "A")),
        [("A", 0.0, 5.0, 0, 1), ("B", 5.0, 8.0, 0, 1), ("A", 10.0, 12.0, 0, 1)]),
    "a brief overlap at the end of a long turn": (
        (T(0.0, 60.0, "A"), T(58.0, 62.0, "B")),
        [("A", 0.0, 58.0, 0, 1), ("A", 58.0, 60.0, 0, 2), ("B", 58.0, 60.0, 1, 2),
         ("B", 60.0, 62.0, 0, 1)]),
    "the same, the later turn ranked first": (
        (T(0.0, 60.0, "B"), T(58.0, 62.0, "A")),
        [("B", 0.0, 58.0, 0, 1), ("A", 58.0, 60.0, 0, 2), ("B", 58.0, 60.0, 1, 2),
         ("A", 60.0, 62.0, 0, 1)]),
    "a triple overlap": (
        (T(0.0, 10.0, "A"), T(2.0, 8.0, "B"), T(4.0, 6.0, "C")),
        [("A", 0.0, 2.0, 0, 1), ("A", 2.0, 8.0, 0, 3), ("B", 2.0, 8.0, 1, 3),
         ("C", 4.0, 6.0, 2, 3), ("A", 8.0, 10.0, 0, 1)]),
    "abutting turns within the tolerance are not overlap": (
        # 54.95 + 2.04 ends a hair after 56.99 (RTTM onset + duration), and a turn that
        # ends half the tolerance into the next
        (T(54.95, 54.95 + 2.04, "A"), T(56.99, 58.5, "B"),
         T(58.5 - LANE_TOLERANCE / 2, 59.0, "A"), T(59.0, 61.0, "C")),
        [("A", 54.95, 54.95 + 2.04, 0, 1), ("B", 56.99, 58.5, 0, 1),
         ("A", 58.5 - LANE_TOLERANCE / 2, 59.0, 0, 1), ("C", 59.0, 61.0, 0, 1)]),
    "a turn fully inside another": (
        (T(0.0, 10.0, "B"), T(3.0, 5.0, "A")),
        [("B", 0.0, 3.0, 0, 1), ("A", 3.0, 5.0, 0, 2), ("B", 3.0, 5.0, 1, 2),
         ("B", 5.0, 10.0, 0, 1)]),
    "two overlaps of one turn, apart": (
        (T(0.0, 60.0, "A"), T(58.0, 62.0, "B"), T(61.0, 100.0, "C")),
        [("A", 0.0, 58.0, 0, 1), ("A", 58.0, 60.0, 0, 2), ("B", 58.0, 60.0, 1, 2),
         ("B", 60.0, 61.0, 0, 1), ("B", 61.0, 62.0, 0, 2), ("C", 61.0, 62.0, 1, 2),
         ("C", 62.0, 100.0, 0, 1)]),
    "one turn overlapped by two in a row: one stretch, the long turn on one row": (
        (T(0.0, 20.0, "B"), T(5.0, 10.0, "A"), T(10.0, 15.0, "C")),
        [("B", 0.0, 5.0, 0, 1), ("A", 5.0, 10.0, 0, 2), ("B", 5.0, 15.0, 1, 2),
         ("C", 10.0, 15.0, 0, 2), ("B", 15.0, 20.0, 0, 1)]),
}


def drawn(turns) -> list[tuple]:
    pieces = stack_pieces(turns)
    geometry = lane_geometry(turns)
    return sorted((geometry["labels"][geometry["inverse"][t]], a, b, int(level), int(depth))
                  for t, a, b, level, depth in zip(pieces["turn"].tolist(),
                                                   pieces["x0"].tolist(),
                                                   pieces["x1"].tolist(),
                                                   pieces["level"].tolist(),
                                                   pieces["depth"].tolist()))


@pytest.mark.parametrize("case", list(CASES))
def test_each_turn_is_stacked_only_where_it_overlaps(case):
    turns, expected = CASES[case]
    assert drawn(turns) == sorted(expected)
    pieces = stack_pieces(turns)
    assert np.all(np.diff(pieces["x0"]) >= 0)   # sorted by start (culling searches them)


def test_the_bars_of_a_brief_overlap_are_thin_only_over_it():
    """A [0, 60] and B [58, 62] in a lane 0.8 high centred at y = -2: A full height over
    [0, 58], A and B a row each over [58, 60], B full height over [60, 62]."""
    turns = (T(0.0, 60.0, "A"), T(58.0, 62.0, "B"))
    bars = lane_bars(turns, {"A": "#aa0000", "B": "#0000bb"}.get)
    parts = dict(lane_parts(bars, -2.0, 0.8))
    got = {colour: sorted(zip(*(np.round(a, 9).tolist() for a in part)))
           for colour, part in parts.items()}
    assert got == {
        "#aa0000": [(0.0, 58.0, -2.4, round(0.8 * BAR_FILL, 9)),
                    (58.0, 2.0, -2.4, round(0.4 * BAR_FILL, 9))],
        "#0000bb": [(58.0, 2.0, -2.0, round(0.4 * BAR_FILL, 9)),
                    (60.0, 2.0, -2.4, round(0.8 * BAR_FILL, 9))]}
    # what a piece is of: its turn (its own onset, offset and speaker)
    assert bars["turn"].tolist() == [0, 0, 1, 1]
    assert [bars["colours"][k] for k in bars["label"]] == ["#aa0000", "#aa0000",
                                                           "#0000bb", "#0000bb"]


AMI_REF = reference_data_dir() / "vbx-ami-mixheadset" / "ref" / "dev" / "IB4010.rttm"


@pytest.mark.skipif(not AMI_REF.exists(), reason=f"reference data absent: {AMI_REF}")
def test_the_stacked_stretches_of_an_ami_meeting_are_pyannotes_overlap():
    """IB4010's reference (the outsider's meeting): the pieces drawn in more than one row
    cover exactly pyannote.core's `Annotation.get_overlap()`, each turn's pieces tile it,
    and full-height pieces never overlap one another."""
    from pyannote.core import Annotation, Segment

    turns, annotation = [], Annotation()
    for k, line in enumerate(AMI_REF.read_text().splitlines()):
        f = line.split()
        start, end = float(f[3]), float(f[3]) + float(f[4])
        turns.append(Turn(start, end, f[7]))
        annotation[Segment(start, end), k] = f[7]
    turns = tuple(turns)
    overlap = annotation.get_overlap().support()
    assert len(overlap) > 50   # a meeting with overlapped speech, else this shows nothing
    pieces = stack_pieces(turns)
    stacked = pieces["depth"] > 1
    # the union of the stacked pieces, stretch by stretch (touching pieces are one)
    union = np.array(sorted(zip(pieces["x0"][stacked], pieces["x1"][stacked])))
    merged = []
    for a, b in union.tolist():
        if merged and a <= merged[-1][1] + LANE_TOLERANCE:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    expected = [[s.start, s.end] for s in overlap if s.duration > LANE_TOLERANCE]
    assert np.allclose(merged, expected, atol=1e-9)
    # each turn's pieces end to end: its own extent
    geometry = lane_geometry(turns)
    for k in range(len(turns)):
        mine = np.flatnonzero(pieces["turn"] == k)
        spans = sorted(zip(pieces["x0"][mine].tolist(), pieces["x1"][mine].tolist()))
        assert spans[0][0] == geometry["starts"][k] and spans[-1][1] == geometry["ends"][k]
        assert all(b == c for (_, b), (c, _) in zip(spans, spans[1:]))
    # full-height pieces: one speaker at a time
    full = np.flatnonzero(~stacked)
    order = full[np.argsort(pieces["x0"][full], kind="stable")]
    assert np.all(pieces["x0"][order][1:] >= pieces["x1"][order][:-1] - LANE_TOLERANCE)
    # in a stretch, as many rows as it needs: its pieces on one row never overlap
    assert pieces["depth"].max() >= 3
    assert np.all(pieces["level"] < pieces["depth"])
    stretch = np.searchsorted([a for a, _ in merged], pieces["x0"][stacked], side="right")
    rows: dict = {}
    for key, a, b in zip(zip(stretch.tolist(), pieces["level"][stacked].tolist()),
                         pieces["x0"][stacked].tolist(), pieces["x1"][stacked].tolist()):
        rows.setdefault(key, []).append((a, b))
    for spans in rows.values():
        spans.sort()
        assert all(c >= b - LANE_TOLERANCE for (_, b), (c, _) in zip(spans, spans[1:]))


def test_overlap_spans_are_where_two_or_more_turns_speak():
    """Written by hand: [0, 5] [2, 4] [4, 8] [6, 7] speak two at a time over [2, 5] (at 4
    one turn hands over to the next: one stretch) and [6, 7]; turns that abut, or overlap
    by float error, are none."""
    starts = np.array([0.0, 2.0, 4.0, 6.0, 20.0, 25.0, 30.0, 40.0])
    ends = np.array([5.0, 4.0, 8.0, 7.0, 25.0 + LANE_TOLERANCE / 2, 28.0, 40.0, 41.0])
    lo, hi = overlap_spans(starts, ends)
    assert lo.tolist() == [2.0, 6.0] and hi.tolist() == [5.0, 7.0]
    assert [a.size for a in overlap_spans(np.array([0.0]), np.array([1.0]))] == [0, 0]
