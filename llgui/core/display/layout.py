"""Geometry the views draw with, kept out of Qt so it can be tested as plain functions.

- `pack_lanes`: rows for a timeline's turns, abutting turns (up to float error) on one row;
- `format_time` / `time_labels`: seconds as mm:ss, or h:mm:ss past an hour;
- `time_ticks`: ticks of a time axis on round seconds, minutes or hours;
- `place_labels`: positions for labels along one axis that never overlap, each as near to
  where it wants to be as the others allow (least squares);
- `bar_range`: a value axis for bars whose differences would vanish if the bars started at 0;
- `zoom_panels`: the spans of a split timeline, one zoomed panel per listened window;
- `date_labels`: date-axis tick labels that say the month and year, not day numbers alone.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

LANE_TOLERANCE = 1e-6
"""Seconds: a turn starting this little before the previous one ends does not overlap it.
pyannote.core's SEGMENT_PRECISION: RTTM onset + duration leaves ~1e-13 of float error
(54.95 + 2.04 != 56.99), far below it, and no real overlap is that short."""


def _span(item) -> tuple[float, float]:
    if hasattr(item, "start"):
        return float(item.start), float(item.end)
    start, end = item[0], item[1]
    return float(start), float(end)


def pack_lanes(turns: Iterable, tolerance: float = LANE_TOLERANCE) -> np.ndarray:
    """The row (0, 1, ...) of each turn, in input order, so that turns on a row do not overlap.

    `turns`: `Turn`s or (start, end) pairs, seconds, any order. A turn goes to the lowest row
    whose last turn ends no later than its start + `tolerance`; so a single speaker's abutting
    turns (VBx writes onset and duration, and onset + duration misses the next onset by float
    error) stay on one row, and only real overlap opens a second row. Shape (n,), int.
    """
    spans = [_span(t) for t in turns]
    n = len(spans)
    starts = np.fromiter((a for a, _ in spans), dtype=float, count=n)
    ends = np.fromiter((b for _, b in spans), dtype=float, count=n)
    order = np.lexsort((ends, starts))
    rows = np.zeros(n, dtype=np.int64)
    rows[order] = pack_sorted(starts[order], ends[order], tolerance)
    return rows


def pack_sorted(starts: np.ndarray, ends: np.ndarray, tolerance: float = LANE_TOLERANCE
                ) -> np.ndarray:
    """`pack_lanes` of turns already sorted by (start, end), as arrays. A turn that starts
    after every earlier turn has ended (up to `tolerance`) frees every row: it goes to row 0,
    and the greedy packing starts afresh from it. So only clusters of overlapping turns are
    packed turn by turn (a 10-hour show has ~10,000 turns and a few hundred such clusters)."""
    n = starts.size
    rows = np.zeros(n, dtype=np.int64)
    if n < 2:
        return rows
    reach = np.maximum.accumulate(ends)
    fresh = np.ones(n, dtype=bool)
    fresh[1:] = reach[:-1] <= starts[1:] + tolerance
    heads = np.flatnonzero(fresh)
    tails = np.append(heads[1:], n)
    for head, tail in zip(heads[tails - heads > 1].tolist(), tails[tails - heads > 1].tolist()):
        row_ends: list[float] = []   # the end of the last turn on each row
        for i, (start, end) in enumerate(zip(starts[head:tail].tolist(),
                                             ends[head:tail].tolist())):
            for row, last in enumerate(row_ends):
                if last <= start + tolerance:
                    break
            else:
                row = len(row_ends)
                row_ends.append(-math.inf)
            rows[head + i] = row
            row_ends[row] = max(row_ends[row], end)
    return rows


def format_time(seconds: float, decimals: int = 0, hours: bool | None = None) -> str:
    """Seconds as m:ss (mm:ss from ten minutes), or h:mm:ss when `hours` (default: from one
    hour on), with `decimals` digits of the second. 75 -> "1:15", 3725.5 -> "1:02:06",
    format_time(75.25, 1) -> "1:15.2"; negative times get a minus sign."""
    if not math.isfinite(seconds):
        return ""
    sign = "-" if seconds < 0 else ""
    scale = 10 ** decimals
    ticks = round(abs(seconds) * scale)   # rounded once, so 59.96 -> "1:00", never "0:60"
    whole, fraction = divmod(ticks, scale)
    minutes, secs = divmod(whole, 60)
    if hours is None:
        hours = minutes >= 60
    tail = f".{fraction:0{decimals}d}" if decimals > 0 else ""
    if hours:
        h, m = divmod(minutes, 60)
        return f"{sign}{h}:{m:02d}:{secs:02d}{tail}"
    return f"{sign}{minutes}:{secs:02d}{tail}"


TIME_STEPS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
              10800, 21600)
"""Tick spacings of a time axis, seconds: round seconds, then round minutes, then hours."""


def time_ticks(lo: float, hi: float, most: int = 8,
               margin: float = 0.0) -> tuple[float, list[float]]:
    """(spacing, tick values) for a time axis over [lo, hi] with at most `most` ticks: the
    smallest spacing of TIME_STEPS that keeps to it, ticks on its multiples (so on round
    minutes from a minute up, never at 500 s or 33:20). A spacing whose multiples leave one
    tick whose label shows (`margin`: the share of the span at each end where a label does
    not fit, and is not drawn) gives way to the next smaller one, up to twice `most` ticks: a
    7-s zoom panel read "21:15" alone (21:20 lay 13 px from its edge) while its neighbour
    had four labels (outsider helper-40), where the finer labels do not run into each other
    (helper-41)."""
    span = max(float(hi) - float(lo), 1e-9)
    most = max(int(most), 2)
    k = next((i for i, s in enumerate(TIME_STEPS) if span / s <= most), None)
    if k is None:
        return _ticks(lo, hi, 3600.0 * math.ceil(span / most / 3600.0))
    step, values = _ticks(lo, hi, float(TIME_STEPS[k]))
    edge = margin * span
    shown = [v for v in values if lo + edge <= v <= hi - edge]
    if len(shown) < 2 and k > 0:
        finer = _ticks(lo, hi, float(TIME_STEPS[k - 1]))
        # (and only where the labels stay apart: a label is 2 x margin of the span, and
        # needs a third of its width more between two; 0:27:18 0:27:20 ran together)
        if len(finer[1]) <= 2 * most and finer[0] / span >= 2.6 * margin:
            return finer
    return step, values


def _ticks(lo: float, hi: float, step: float) -> tuple[float, list[float]]:
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return step, [round(k * step, 6) for k in range(first, last + 1)]


def time_labels(values: Sequence[float], spacing: float | None = None) -> list[str]:
    """Labels for ticks at `values` seconds, `spacing` apart (default: their smallest gap):
    decimals only when the spacing is below a second, and h:mm:ss for all of them when any
    reaches an hour, so an axis reads one way."""
    values = [float(v) for v in values]
    if not values:
        return []
    if spacing is None:
        gaps = np.diff(sorted(set(values)))
        spacing = float(gaps.min()) if gaps.size else 1.0
    decimals = 0
    if spacing > 0:
        while decimals < 3 and spacing * 10 ** decimals < 1 - 1e-9:
            decimals += 1
    hours = max(abs(v) for v in values if math.isfinite(v)) >= 3600 if any(
        math.isfinite(v) for v in values) else False
    return [format_time(v, decimals, hours) for v in values]


def place_labels(wanted: Sequence[float], sizes: Sequence[float] | float, gap: float = 0.0,
                 lo: float | None = None, hi: float | None = None) -> np.ndarray:
    """Centres for labels along one axis such that no two overlap, each as close to its
    `wanted` centre as possible (least squares; the order of `wanted` is kept).

    `sizes`: each label's extent along the axis (or one for all), in the axis's units; `gap`
    the space left between neighbours; `lo`, `hi` optional limits the labels stay inside
    (ignored when they cannot all fit). Returns an array in the order of `wanted`. Method:
    with o_i the cumulative separations, q_i = p_i - o_i must not decrease; the best such q is
    the isotonic regression of wanted - o (pool-adjacent-violators), clipped to the limits.
    """
    wanted = np.asarray(wanted, dtype=float)
    n = wanted.size
    if n == 0:
        return wanted.copy()
    size = np.broadcast_to(np.asarray(sizes, dtype=float), (n,))
    order = np.argsort(wanted, kind="stable")
    w, s = wanted[order], size[order]
    separation = np.concatenate(([0.0], (s[:-1] + s[1:]) / 2 + gap))
    offset = np.cumsum(separation)
    q = _isotonic(w - offset)
    low = None if lo is None else lo + s[0] / 2
    high = None if hi is None else hi - s[-1] / 2 - offset[-1]
    if low is not None and high is not None and low > high:
        low = high = None   # they cannot all fit: keep them apart, let them run over
    if low is not None:
        q = np.maximum(q, low)
    if high is not None:
        q = np.minimum(q, high)
    out = np.empty(n)
    out[order] = q + offset
    return out


def _isotonic(y: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence nearest to `y` in least squares (pool adjacent violators)."""
    means: list[float] = []
    counts: list[int] = []
    for value in y.tolist():
        means.append(value)
        counts.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            c = counts[-2] + counts[-1]
            m = (means[-2] * counts[-2] + means[-1] * counts[-1]) / c
            means[-2:] = [m]
            counts[-2:] = [c]
    return np.repeat(means, counts)


def bar_range(values: Iterable[float], zero_share: float = 0.5, pad: float = 0.15,
              keep: tuple[float, float] | None = None) -> tuple[float, float]:
    """The value-axis range for bars of `values`: from 0 when the differences between the
    bars are a fair share of their size (the spread exceeds `zero_share` of the largest
    magnitude; the far end `pad` past the largest, rounded out to 1, 1.2, 1.5, 2, 2.5, 3, 4,
    5, 6 or 8 times a power of ten), otherwise around the values, padded by `pad` of their
    spread (at least one unit each side, rounded out to whole units), so that 1-3 point
    differences between scores of 30 read as differences. Non-finite values are ignored;
    (0, 1) when none is left.

    `keep`: the range shown so far (the last step's), kept while it holds this range and is
    less than half as large again, and of the same kind (from 0 or cut): the bars of
    consecutive steps then read against one axis, which is not drawn anew at every step. A
    cut range that no longer holds the values grows past them by a quarter of its size on
    the side they left (an accumulated penalty grows at every step: an axis only just wide
    enough was replaced at four steps in five)."""
    fresh = _bar_range(values, zero_share, pad)
    if keep is None:
        return fresh
    lo, hi = float(keep[0]), float(keep[1])
    same_kind = (lo == 0.0) == (fresh[0] == 0.0) and (hi == 0.0) == (fresh[1] == 0.0)
    if not same_kind:
        return fresh
    if lo <= fresh[0] and fresh[1] <= hi and hi - lo <= 1.5 * (fresh[1] - fresh[0]):
        return lo, hi
    low, high = fresh
    if low == 0.0 or high == 0.0:   # from 0: its round far end leaves room already
        return fresh
    size = high - low
    if high > hi:
        high = float(math.ceil(high + 0.25 * size))
    if low < lo:
        low = float(math.floor(low - 0.25 * size))
        if fresh[0] >= 0:
            low = max(low, 0.0)
    return low, high


_NICE = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def _nice_up(x: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten >= `x` > 0
    (`x` itself past the floats' range: a score near 1e308 times the pad overflows)."""
    if not math.isfinite(x) or x * 10 > 1e308:
        return x
    power = 10.0 ** math.floor(math.log10(x))
    return next(n * power for n in _NICE if n * power >= x * (1 - 1e-12))


def _bar_range(values, zero_share: float, pad: float) -> tuple[float, float]:
    v = np.array([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if v.size == 0:
        return 0.0, 1.0
    low, high = float(v.min()), float(v.max())
    top = max(abs(low), abs(high))
    if top == 0:
        return 0.0, 1.0
    spread = high - low
    if low >= 0 and spread > zero_share * top:
        return 0.0, _nice_up(high * (1 + pad))
    if high <= 0 and spread > zero_share * top:
        return -_nice_up(-low * (1 + pad)), 0.0
    margin = max(spread * pad, 1.0)
    lower, upper = math.floor(low - margin), math.ceil(high + margin)
    if low >= 0:
        lower = max(lower, 0)
    return float(lower), float(upper)


def zoom_panels(windows: Iterable[Sequence[float]], pad: float = 1.0, merge_gap: float = 10.0,
                extent: Sequence[float] | None = None) -> list[tuple[float, float]]:
    """The time spans of a split view: one zoomed panel per listened window, so that a `same`
    step with points 900 s apart shows two readable 6-s windows instead of one hairline each.

    `windows`: (start, end) seconds, any order. Each window is widened by `pad` seconds on each
    side (clipped to `extent` = (start, end) when given); windows whose padded spans come
    within `merge_gap` seconds of each other share a panel. Returns sorted (start, end) spans.
    """
    spans = sorted((float(a) - pad, float(b) + pad) for a, b in windows)
    if extent is not None:
        lo, hi = float(extent[0]), float(extent[1])
        spans = [(max(a, lo), min(b, hi)) for a, b in spans]
        spans = [(a, b) for a, b in spans if b > a]
    panels: list[list[float]] = []
    for a, b in spans:
        if panels and a - panels[-1][1] <= merge_gap:
            panels[-1][1] = max(panels[-1][1], b)
        else:
            panels.append([a, b])
    return [(a, b) for a, b in panels]


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAY = 86400.0


def date_labels(values: Sequence[float], spacing: float | None = None,
                with_time: bool | None = None) -> list[str]:
    """Labels for ticks at POSIX seconds (UTC) `values`, `spacing` seconds apart (default:
    their smallest gap), that say which month and year they are in, not day numbers alone:

    - a year or more apart: "2023"; a month or more: "Jan 2023";
    - days: "07 Jan 2023" on the first tick and where the year changes, "07 Jan" otherwise;
    - below a day (or `with_time`): "07 Jan 2023 14:00" on the first tick and where the day
      changes, "14:00" otherwise.
    """
    from datetime import datetime, timezone

    values = [float(v) for v in values]
    if not values:
        return []
    if spacing is None:
        gaps = np.diff(sorted(set(values)))
        spacing = float(gaps.min()) if gaps.size else _DAY
    when = [datetime.fromtimestamp(v, tz=timezone.utc) for v in values]
    if with_time is None:
        with_time = spacing < _DAY
    labels: list[str] = []
    previous = None
    for d in when:
        if spacing >= 365 * _DAY:
            text = f"{d.year}"
        elif spacing >= 28 * _DAY:
            text = f"{_MONTHS[d.month - 1]} {d.year}"
        elif not with_time:
            new_year = previous is None or previous.year != d.year
            text = f"{d.day:02d} {_MONTHS[d.month - 1]}" + (f" {d.year}" if new_year else "")
        else:
            new_day = previous is None or previous.date() != d.date()
            clock = f"{d.hour:02d}:{d.minute:02d}"
            text = (f"{d.day:02d} {_MONTHS[d.month - 1]} {d.year} {clock}" if new_day
                    else clock)
        labels.append(text)
        previous = d
    return labels


def finite_extent(arrays: Iterable) -> tuple[float, float] | None:
    """(min, max) of the finite values of some arrays (any shapes), or None when none is
    finite: the data range a plot's axis is fitted to."""
    parts = [np.ravel(np.asarray(a, dtype=float)) for a in arrays]
    values = np.concatenate(parts) if parts else np.empty(0)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return None
    return float(values.min()), float(values.max())


def pad_range(lo: float, hi: float, below: float, above: float,
              least: float = 0.0) -> tuple[float, float]:
    """[lo, hi] widened by `below` and `above` times its span (at least `least`): room under
    the data and above it (for a legend or labels)."""
    span = max(hi - lo, least)
    return lo - below * span, hi + above * span


def diagonal_span(*arrays) -> tuple[float, float]:
    """(lo, hi) of the equality line drawn under a scatter or Q-Q plot of these arrays: the
    smallest and largest value of any of them."""
    return (float(min(np.min(a) for a in arrays)), float(max(np.max(a) for a in arrays)))


def even_sample(n: int, most: int) -> np.ndarray:
    """Indices of at most `most` of `n` items, evenly spaced (all of them when n <= most):
    the points a plot of a million can afford to draw."""
    if n <= most:
        return np.arange(n)
    return np.linspace(0, n - 1, most).astype(np.int64)


def stems(xs, heights) -> tuple[np.ndarray, np.ndarray]:
    """Vertical stems from 0 to each height at each x, as line pairs (pyqtgraph's
    connect="pairs"): x twice, then (0, height) per stem."""
    xs = np.asarray(xs, dtype=float)
    heights = np.asarray(heights, dtype=float)
    return np.repeat(xs, 2), np.column_stack((np.zeros_like(heights), heights)).ravel()


def nearest_index(values, x: float) -> int:
    """Position of the value nearest `x` (the first of ties): the point a click picks."""
    return int(np.argmin(np.abs(np.asarray(values, dtype=float) - x)))
