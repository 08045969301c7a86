"""Geometry for the views (llgui.core.display.layout): lanes, time labels, label placement, bar range."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.display.layout import (
    bar_range, date_labels, format_time, pack_lanes, place_labels, time_labels, zoom_panels,
)
from llgui.core.types import Turn

VBX = "vbx-ami-mixheadset"


def test_vbx_output_is_packed_on_one_row(reference_data):
    """VBx writes onset + duration; 54.95 + 2.04 != 56.99 in floats. Its single-speaker-at-a-
    time output must stay on one row, as it does not overlap (with tolerance 0 it would not)."""
    from llgui.io.rttm import load_turns

    files = sorted((reference_data / VBX / "sys" / "test").glob("*.rttm"))[:4]
    assert files
    split_without_tolerance = 0
    for path in files:
        (turns,) = load_turns(path).values()
        assert pack_lanes(turns).max() == 0, path.name
        split_without_tolerance += int(pack_lanes(turns, tolerance=0).max())
        # and each speaker's own turns, as the view draws them
        for speaker in {t.speaker for t in turns}:
            assert pack_lanes([t for t in turns if t.speaker == speaker]).max() == 0
    assert split_without_tolerance > 0   # the float error is really there in these files


def test_pack_lanes_real_overlap_opens_a_row():
    #   0----2        row 0
    #      1.5---3    row 1 (overlaps the first)
    #            3--4 row 0 (abuts... the first row is free since 2)
    turns = [Turn(0, 2, "a"), Turn(1.5, 3, "b"), Turn(3.0000000000001, 4, "c"), (2 - 1e-12, 2.5)]
    assert pack_lanes(turns).tolist() == [0, 1, 0, 0]
    assert pack_lanes([]).tolist() == []


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 500), st.integers(1, 50)), max_size=40))
def test_pack_lanes_rows_never_overlap(spans):
    turns = [(s / 10, (s + d) / 10) for s, d in spans]
    rows = pack_lanes(turns)
    for row in set(rows.tolist()):
        on_row = sorted(t for t, r in zip(turns, rows) if r == row)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(on_row, on_row[1:]))
    # exactly as many rows as the deepest overlap needs (turns still running at a start)
    depth = max((sum(a <= t[0] and b > t[0] + 1e-6 for a, b in turns) for t in turns),
                default=0)
    assert (int(rows.max()) + 1 if turns else 0) == depth


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 40)), max_size=80),
       st.sampled_from([0.0, 1e-6, 0.15]))
def test_pack_lanes_equals_the_turn_by_turn_greedy(spans, tolerance):
    """Clusters of overlapping turns are packed one by one, the rest go to row 0 (issue 11);
    rows equal the plain greedy over every turn: lowest row whose last turn has ended."""
    import math

    turns = [(s / 10, (s + d) / 10) for s, d in spans]
    expected = [0] * len(turns)
    ends: list[float] = []
    for i in sorted(range(len(turns)), key=lambda i: turns[i]):
        start, end = turns[i]
        row = next((r for r, last in enumerate(ends) if last <= start + tolerance), len(ends))
        if row == len(ends):
            ends.append(-math.inf)
        expected[i] = row
        ends[row] = max(ends[row], end)
    assert pack_lanes(turns, tolerance=tolerance).tolist() == expected


@pytest.mark.parametrize("seconds, decimals, text", [
    (0, 0, "0:00"), (75, 0, "1:15"), (59.6, 0, "1:00"), (605, 0, "10:05"),
    (3599.4, 0, "59:59"), (3600, 0, "1:00:00"), (3725.5, 0, "1:02:06"), (75.25, 1, "1:15.2"),
    (36000, 0, "10:00:00"), (-5, 0, "-0:05"), (59.96, 1, "1:00.0"),
])
def test_format_time(seconds, decimals, text):
    assert format_time(seconds, decimals) == text


def test_time_labels_one_format_per_axis():
    assert time_labels([0, 1800, 3600]) == ["0:00:00", "0:30:00", "1:00:00"]
    assert time_labels([10, 10.5, 11]) == ["0:10.0", "0:10.5", "0:11.0"]
    assert time_labels([0, 60, 120]) == ["0:00", "1:00", "2:00"]


def overlaps(centres, sizes):
    spans = sorted((c - s / 2, c + s / 2) for c, s in zip(centres, sizes))
    return any(a[1] > b[0] + 1e-9 for a, b in zip(spans, spans[1:]))


def test_bar_labels_of_close_values_do_not_overlap():
    """The issue's case: 30.94 (adapt) and 30.76 (pen) labels ran into each other."""
    values = [30.63, 30.94, 30.76, 30.80]
    size = 1.2   # a label's height in score units at the plot's scale
    placed = place_labels(values, size, gap=0.1)
    assert not overlaps(placed, [size + 0.1] * 4)
    assert np.argsort(placed).tolist() == np.argsort(values, kind="stable").tolist()
    # labels already apart stay where they are
    assert place_labels([10, 20, 30], 2).tolist() == [10, 20, 30]


def test_place_labels_is_the_least_squares_fit():
    # two labels of size 2 wanting the same place split evenly around it
    assert place_labels([5, 5], 2).tolist() == [4, 6]
    # a cluster pushed inside limits keeps its spacing
    out = place_labels([0, 0.5, 1], 1, lo=0, hi=10)
    assert out.tolist() == pytest.approx([0.5, 1.5, 2.5])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.floats(-100, 100), st.floats(0.1, 5)), min_size=1, max_size=12),
       st.floats(0, 1))
def test_placed_labels_never_overlap(items, gap):
    wanted = [w for w, _ in items]
    sizes = [s for _, s in items]
    placed = place_labels(wanted, sizes, gap=gap, lo=-200, hi=200)
    assert not overlaps(placed, [s + gap - 1e-9 for s in sizes])
    for (a, sa), (b, sb) in itertools.combinations(zip(placed, sizes), 2):
        assert abs(a - b) >= (sa + sb) / 2 + gap - 1e-6


def test_bar_range_shows_small_differences():
    low, high = bar_range([30.63, 30.94, 30.76])
    assert 0 < low < 30.63 and 30.94 < high < 40
    assert bar_range([5, 40, 80])[0] == 0
    assert bar_range([]) == (0.0, 1.0)


@pytest.mark.parametrize("values, expected", [
    ([5, 40, 80], (0.0, 100.0)),        # 80 * 1.15 = 92 -> 100
    ([10, 50], (0.0, 60.0)),            # 57.5 -> 60
    ([0.1, 0.4], (0.0, 0.5)),           # 0.46 -> 0.5
    ([20, 86.9], (0.0, 100.0)),         # 99.9 -> 100
    ([20, 87], (0.0, 120.0)),           # 100.05 -> 120
    ([-80, -5], (-100.0, 0.0)),
])
def test_a_bar_axis_from_zero_ends_on_a_round_number(values, expected):
    assert bar_range(values) == pytest.approx(expected)


@pytest.mark.parametrize("values, keep, expected", [
    # the fresh range is (29, 32): a kept (28, 32) holds it and is not half as large again
    ([30.6, 30.9, 30.7], (28.0, 32.0), (28.0, 32.0)),
    ([30.6, 30.9, 30.7], (29.0, 32.0), (29.0, 32.0)),
    # a value past the kept range's margin: the fresh range (29, 34), grown upwards by a
    # quarter of its size (1.25 units, rounded out) where the values left the kept one
    ([30.6, 32.5], (28.0, 32.0), (29.0, 36.0)),
    ([27.0, 28.5], (28.0, 32.0), (25.0, 30.0)),   # fresh (26, 30), downwards by 1
    ([5, 40, 80], (0.0, 60.0), (0.0, 100.0)),     # from 0: fresh, its round end
    # too loose (20 units for 3): fresh
    ([30.6, 30.9, 30.7], (20.0, 40.0), (29.0, 32.0)),
    # another kind: a cut axis is not kept for bars from 0, nor the other way round
    ([30.6, 30.9, 30.7], (0.0, 33.0), (29.0, 32.0)),
    ([5, 40, 80], (4.0, 100.0), (0.0, 100.0)),
    ([5, 40, 80], (0.0, 120.0), (0.0, 120.0)),
])
def test_a_bar_axis_is_kept_while_it_fits(values, keep, expected):
    assert bar_range(values, keep=keep) == pytest.approx(expected)


def test_a_drifting_score_keeps_its_axis_for_several_steps():
    """Bars of consecutive steps read against one axis: a DER drifting by 0.1 a step changes
    its axis only when a value leaves it, and every axis shows its values with a margin."""
    ranges = []
    keep = None
    for k in range(30):
        values = [24.0, 25.0 - 0.1 * k, 26.0 - 0.1 * k]
        keep = bar_range(values, keep=keep)
        fresh = bar_range(values)
        assert keep[0] <= fresh[0] and fresh[1] <= keep[1]
        ranges.append(keep)
    assert len(set(ranges)) <= 4 < len(ranges)


def test_a_growing_penalty_keeps_its_axis_for_several_steps():
    """An error rate whose accumulated penalty grows by a point a step (S_pen from 28 to
    57): the axis holds every step's bars and is replaced at no more than one step in
    three."""
    keep, ranges = None, []
    for k in range(30):
        values = [24.0, 26.0, 27.0, 25.0, 28.0 + k]
        keep = bar_range(values, keep=keep)
        fresh = bar_range(values)
        assert keep[0] <= fresh[0] and fresh[1] <= keep[1]
        ranges.append(keep)
    changes = sum(a != b for a, b in zip(ranges, ranges[1:]))
    assert changes <= 10


def test_far_apart_windows_get_panels_of_their_own():
    """A `same` step 900 s apart: two 6-s windows, two panels (not one 900-s view)."""
    panels = zoom_panels([(897, 903), (0, 6)], pad=1, extent=(0, 1800))
    assert panels == [(0, 7), (896, 904)]
    # close windows share a panel
    assert zoom_panels([(10, 16), (20, 26)], pad=1, merge_gap=10) == [(9, 27)]
    assert zoom_panels([]) == []


def test_date_labels_say_month_and_year():
    from datetime import datetime, timezone

    def t(*args):
        return datetime(*args, tzinfo=timezone.utc).timestamp()

    days = [t(2023, 12, 7), t(2023, 12, 12), t(2023, 12, 17), t(2024, 1, 3)]
    assert date_labels(days, spacing=5 * 86400) == ["07 Dec 2023", "12 Dec", "17 Dec",
                                                    "03 Jan 2024"]
    months = [t(2023, m, 1) for m in (1, 4, 7)]
    assert date_labels(months) == ["Jan 2023", "Apr 2023", "Jul 2023"]
    assert date_labels([t(2020, 1, 1), t(2022, 1, 1)]) == ["2020", "2022"]
    hours = [t(2023, 1, 9, 22), t(2023, 1, 10, 2)]
    assert date_labels(hours) == ["09 Jan 2023 22:00", "10 Jan 2023 02:00"]
    assert date_labels([t(2023, 1, 9, 8), t(2023, 1, 9, 12)]) == ["09 Jan 2023 08:00", "12:00"]


def test_extents_and_ranges_for_fitting_axes():
    from llgui.core.display.layout import (
        diagonal_span, even_sample, finite_extent, nearest_index, pad_range, stems,
    )

    assert finite_extent([np.array([[1.0, np.nan], [4.0, -2.0]]), [7.5, np.inf]]) == (-2.0, 7.5)
    assert finite_extent([np.array([np.nan])]) is None and finite_extent([]) is None
    assert pad_range(10.0, 20.0, 0.1, 0.5) == (9.0, 25.0)
    assert pad_range(10.0, 10.0, 0.1, 0.5, least=2.0) == (9.8, 11.0)
    assert diagonal_span(np.array([3.0, -1.0]), np.array([2.0, 9.0])) == (-1.0, 9.0)
    assert even_sample(5, 10).tolist() == [0, 1, 2, 3, 4]
    sample = even_sample(1_000_001, 1000)
    assert sample.size == 1000 and sample[0] == 0 and sample[-1] == 1_000_000
    assert np.all(np.diff(sample) > 0)
    x, y = stems([1.0, 2.0], [0.5, 3.0])
    assert x.tolist() == [1.0, 1.0, 2.0, 2.0] and y.tolist() == [0.0, 0.5, 0.0, 3.0]
    assert nearest_index([0.0, 10.0, 20.0], 14.9) == 1
