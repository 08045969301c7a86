"""The diarization timeline's geometry (llgui.core.display.lanes), without a window: rows of
abutting and overlapping turns, bars by colour, error and collar geometry, label colours."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from llgui.core.display.lanes import (
    BAR_FILL, collar_zones, error_geometry, error_parts, extend_colours, focus_range,
    label_colour, lane_bars, lane_geometry, lane_parts, merge_parts, visible_bars,
)
from llgui.core.display.layout import pack_lanes
from llgui.core.display.palette import ERROR_COLOURS, IMPAIRED, UNMAPPED
from llgui.core.types import Turn
from tests.conftest import reference_data_dir

VBX_SYS = (reference_data_dir() / "vbx-ami-mixheadset" / "sys" / "test" / "ES2004a.rttm")


def vbx_like_turns() -> tuple[Turn, ...]:
    """Abutting turns as RTTM onset + duration leaves them (54.95 + 2.04 ends a hair after
    56.99, where the next turn starts), one speaker or two in turn, as VBx writes them."""
    turns, cents = [], 5495
    durations = itertools.cycle([204, 137, 311, 83, 229, 158])
    for k in range(40):
        d = next(durations)
        onset, duration = float(f"{cents / 100:.2f}"), float(f"{d / 100:.2f}")
        turns.append(Turn(onset, onset + duration, "S1" if k % 5 else "S2"))
        cents += d
    return tuple(turns)


def test_abutting_turns_are_drawn_on_one_row():
    turns = vbx_like_turns()
    # the float error is there (else the test proves nothing) and is not overlap
    assert any(a.end > b.start for a, b in zip(turns, turns[1:]))
    geometry = lane_geometry(turns)
    assert geometry["depth"] == 1 and not geometry["level"].any()
    # a real overlap still opens a second row
    overlapped = turns + (Turn(turns[3].start + 0.2, turns[3].end - 0.1, "S3"),)
    assert lane_geometry(overlapped)["depth"] == 2


@pytest.mark.skipif(not VBX_SYS.exists(), reason=f"reference data absent: {VBX_SYS}")
def test_the_vbx_output_of_an_ami_meeting_is_one_row():
    """VBx assigns one speaker per frame: its output has no overlap and is drawn on one row."""
    turns = []
    for line in VBX_SYS.read_text().splitlines():
        f = line.split()
        turns.append(Turn(float(f[3]), float(f[3]) + float(f[4]), f[7]))
    assert len(turns) > 100
    assert lane_geometry(tuple(turns))["depth"] == 1


def overlapping_turns() -> tuple[Turn, ...]:
    rng = np.random.default_rng(7)
    starts = np.sort(rng.uniform(0, 300, 60))
    return tuple(Turn(float(s), float(s + rng.uniform(0.5, 12)), f"S{rng.integers(4)}")
                 for s in starts)


def test_lane_geometry_sorts_turns_and_stacks_them_as_pack_lanes_does():
    turns = overlapping_turns()[::-1]   # any order in, sorted out
    geometry = lane_geometry(turns)
    order = sorted(range(len(turns)), key=lambda k: (turns[k].start, turns[k].end))
    assert geometry["starts"].tolist() == [turns[k].start for k in order]
    assert geometry["ends"].tolist() == [turns[k].end for k in order]
    assert [geometry["labels"][i] for i in geometry["inverse"]] == [turns[k].speaker
                                                                     for k in order]
    assert geometry["level"].tolist() == pack_lanes(turns)[order].tolist()
    assert geometry["depth"] == int(pack_lanes(turns).max()) + 1
    # cached by identity: the step-view job's result is what the view reads
    assert lane_geometry(turns) is geometry
    assert lane_geometry(tuple(turns)) is geometry   # (a tuple of a tuple is itself)


def test_lane_bars_group_turns_by_the_colour_of_their_label():
    turns = overlapping_turns()
    colours = {"S0": "#111111", "S1": "#222222", "S2": "#111111", "S3": "#333333"}
    bars = lane_bars(turns, colours.get)
    geometry = lane_geometry(turns)
    # each turn's pieces (cut where overlaps begin and end) tile it end to end
    for k in range(len(turns)):
        mine = np.flatnonzero(bars["turn"] == k)
        edges = sorted(zip(bars["x0"][mine].tolist(),
                           (bars["x0"] + bars["width"])[mine].tolist()))
        assert edges[0][0] == geometry["starts"][k] and edges[-1][1] == geometry["ends"][k]
        assert all(b == c for (_, b), (c, _) in zip(edges, edges[1:]))
    assert bars["label"].tolist() == geometry["inverse"][bars["turn"]].tolist()
    seen = np.concatenate(list(bars["groups"].values()))
    assert sorted(seen.tolist()) == list(range(bars["x0"].size))   # every piece once
    for colour, members in bars["groups"].items():
        assert {geometry["labels"][bars["label"][m]] for m in members} == {
            label for label, c in colours.items() if c == colour and label in geometry["labels"]}
    parts = dict(lane_parts(bars, -2.0, 0.8))
    for colour, (x0, width, y0, h) in parts.items():
        members = bars["groups"][colour]
        height = 0.8 / bars["depth"][members]
        assert np.array_equal(x0, bars["x0"][members])
        assert np.allclose(y0, -2.4 + bars["level"][members] * height)
        assert np.allclose(h, height * BAR_FILL)
    merged = merge_parts([parts["#111111"], parts["#333333"]])
    assert merged[0].size == len(bars["groups"]["#111111"]) + len(bars["groups"]["#333333"])


def test_error_geometry_and_parts():
    regions = ((1.0, 2.5, "miss"), (4.0, 4.5, "confusion"), (6.0, 9.0, "miss"))
    geometry = error_geometry(regions)
    assert geometry["miss"][0].tolist() == [1.0, 6.0]
    assert geometry["miss"][1].tolist() == [1.5, 3.0]
    assert geometry["confusion"][1].tolist() == [0.5]
    assert "false_alarm" not in geometry
    parts = error_parts(regions, -5.0, 0.8)
    assert [c for c, _ in parts] == [ERROR_COLOURS["miss"], ERROR_COLOURS["confusion"]]
    x0, width, y0, h = parts[0][1]
    assert y0.tolist() == [-5.4, -5.4] and h.tolist() == [0.8, 0.8]


def test_visible_bars_keep_a_margin_of_half_the_view():
    x0 = np.array([0.0, 10.0, 20.0, 30.0])
    width = np.array([1.0, 1.0, 1.0, 1.0])
    # view [12, 16]: margin 2 each side -> [10, 18]
    assert visible_bars(x0, width, 12.0, 16.0).tolist() == [False, True, False, False]


def test_collar_zones_around_every_reference_boundary():
    reference = (Turn(0.0, 5.0, "A"), Turn(5.0, 8.0, "B"), Turn(10.0, 12.0, "A"))
    x0, width = collar_zones(reference, 0.5)
    assert x0.tolist() == [-0.25, 4.75, 7.75, 9.75, 11.75] and width == 0.5
    assert collar_zones(reference, 0.0) is None
    assert collar_zones((), 0.5) is None
    assert collar_zones(reference, 0.5, max_zones=4) is None


def test_focus_range_centres_the_windows_within_the_show():
    assert focus_range([(100.0, 106.0)], (0.0, 1000.0)) == (73.0, 133.0)   # at least 60 s
    assert focus_range([(100.0, 106.0), (140.0, 146.0)], (0.0, 1000.0)) == (54.0, 192.0)
    assert focus_range([(2.0, 8.0)], (0.0, 1000.0)) == (0.0, 35.0)


def test_label_colours_follow_the_mapping():
    colours = {"A": "#aa0000", "B": "#00bb00"}
    assert label_colour("A", None, colours) == "#aa0000"          # a reference label
    assert label_colour("Z", None, colours) == UNMAPPED
    assert label_colour("h1", {"h1": "B"}, colours) == "#00bb00"  # mapped to B
    assert label_colour("h2", {"h1": "B"}, colours) == UNMAPPED   # mapped to nobody
    assert label_colour("A", {}, colours) == UNMAPPED             # a hypothesis mapped to none
    assert label_colour("h9", {"h9": "A"}, colours, unmappable="h9") == IMPAIRED
    palette = ("#1", "#2", "#3")
    assert extend_colours(dict(colours), ["A", "C", "D"], palette) == {
        "A": "#aa0000", "B": "#00bb00", "C": "#3", "D": "#1"}


def test_overlaps_stack_locally_and_in_the_same_speaker_order_in_every_lane():
    """Issue 23, items 12 and 19: a triple overlap thinned every bar of the lane to a third,
    and two speakers overlapping were stacked by start time, A over B in one lane and B over
    A in the next."""
    from llgui.core.display.lanes import stack_pieces

    reference = (Turn(0.0, 5.0, "B"), Turn(1.0, 4.0, "A"), Turn(10.0, 12.0, "A"),
                 Turn(20.0, 30.0, "A"), Turn(21.0, 29.0, "B"), Turn(22.0, 28.0, "C"))
    # the hypothesis: the same speech under cluster names, the overlap starting the other way
    hypothesis = (Turn(0.0, 5.0, "h2"), Turn(0.5, 4.0, "h1"), Turn(10.0, 12.0, "h1"))
    names = {"h1": "A", "h2": "B"}
    ref, hyp = stack_pieces(reference), stack_pieces(hypothesis, rank=lambda h: names[h])
    g_ref, g_hyp = lane_geometry(reference), lane_geometry(hypothesis)

    def row_of(geometry, pieces, label):   # the row of a label's piece at t = 2 s
        return {geometry["labels"][geometry["inverse"][t]]: level
                for t, a, b, level in zip(pieces["turn"], pieces["x0"], pieces["x1"],
                                          pieces["level"]) if a <= 2.0 < b}[label]

    assert row_of(g_ref, ref, "A") == row_of(g_hyp, hyp, "h1") == 0
    assert row_of(g_ref, ref, "B") == row_of(g_hyp, hyp, "h2") == 1
    lone = ref["x0"] == 10.0
    assert ref["depth"][lone].tolist() == [1.0]            # full height away from overlap
    assert ref["depth"].max() == 3.0 and hyp["depth"].max() == 2.0
    bars = lane_bars(reference, lambda label: "#000000")
    (_, (_, _, _, heights)), = lane_parts(bars, 0.0, 0.8)
    assert heights.max() == pytest.approx(0.8 * BAR_FILL)
    assert heights.min() == pytest.approx(0.8 / 3 * BAR_FILL)


def test_error_geometry_from_the_regions_arrays_is_the_tuples_geometry():
    """`der.error_regions` hands its arrays along (`RegionList`, kept by a step view's
    `RegionTuple`); the geometry made from them is, array for array and kind for kind in
    the same order, the one made from the (start, end, kind) tuples."""
    from llgui.core.diarization.der import RegionTuple, error_regions, region_tuple
    from llgui.core.display.lanes import _error_geometry

    rng = np.random.default_rng(3)
    compared = 0
    for trial in range(30):
        n = int(rng.integers(1, 60))
        starts = np.sort(rng.uniform(0, 300, n))
        ref = tuple(Turn(float(s), float(s + rng.uniform(0.2, 9)), f"r{rng.integers(4)}")
                    for s in starts)
        hyp = tuple(Turn(float(t.start + rng.normal(0, 0.5)), float(t.end + rng.normal(0, 0.5)),
                         f"h{rng.integers(5)}") for t in ref if rng.random() > 0.2)
        hyp = tuple(t for t in hyp if t.end > t.start)
        regions = region_tuple(error_regions(ref, hyp, collar=0.25 * (trial % 3)))
        assert isinstance(regions, RegionTuple) and regions.arrays is not None
        plain = tuple(regions)   # (a tuple without arrays: the tuples' way)
        ours, theirs = _error_geometry(regions), _error_geometry(plain)
        assert list(ours) == list(theirs)
        for kind in theirs:
            for a, b in zip(ours[kind], theirs[kind]):
                assert np.array_equal(a, b), (trial, kind)
        compared += len(theirs)
    assert compared >= 60


def test_a_step_views_errors_carry_their_arrays():
    from llgui.core.walkthrough import walk
    from llgui.io.bundle import load_bundle
    from tests.conftest import REPO

    bundle = load_bundle(REPO / "resources" / "demo" / "diarization" / "bundle.toml")
    document = next(d for d in bundle.documents if bundle.steps_of(d.id))
    result = walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)
    view = result.view(1)
    arrays = getattr(view.adapted_errors, "arrays", None)
    assert arrays is not None and arrays[0].size == len(view.adapted_errors)
    assert [(s, e) for s, e, _ in view.adapted_errors] == list(zip(arrays[0].tolist(),
                                                                   arrays[1].tolist()))
