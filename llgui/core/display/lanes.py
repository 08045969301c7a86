"""The diarization timeline's geometry, Qt-free: where each lane's bars go and in which
colour, the error regions' bars, the collar's no-score zones, and the time range that puts
the listened windows in view. The view (`llgui.gui.workbench.diar_view`) only hands the
arrays to its bar items.

`lane_geometry` and `error_geometry` are cached by the identity of the turn tuple (the
walkthrough shares turn lists between steps): the workbench's step-view job computes them on
a worker, and the view reads them at once.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from llgui.core.display.layout import LANE_TOLERANCE, pack_sorted
from llgui.core.display.palette import ERROR_COLOURS, IMPAIRED, UNMAPPED
from llgui.utils.identity_cache import IdentityCache

BAR_FILL = 0.92
"""Share of a stacked row's height its bars fill (a hairline between stacked rows)."""

_GEOMETRY = IdentityCache(32)


def lane_geometry(turns) -> dict:
    """Where a lane's bars go, whatever their colours: starts and ends sorted by (start, end),
    the sorted speaker labels and each bar's index into them, the stacking level of each bar
    (overlapping turns stack) and the number of levels. Pure numpy; cached by the turn
    list's identity (the walkthrough shares turn lists between steps)."""
    return _GEOMETRY.get_or_make((turns,), ("lanes",), lambda: _lane_geometry(turns))


def _lane_geometry(turns) -> dict:
    from llgui.core.diarization.edit import turn_arrays, turn_speakers

    n = len(turns)
    starts, ends = turn_arrays(turns)
    order = np.lexsort((ends, starts))
    starts, ends = starts[order], ends[order]
    # the sorted labels and each bar's index into them (the turn list's, cached: a string
    # array of 10,000 labels sorted at every step was most of a long show's lane)
    labels, codes = turn_speakers(turns)
    inverse = codes[order]
    reach = np.maximum.accumulate(ends) if n else ends
    # abutting turns (onset + duration misses the next onset by float error) are not overlap:
    # with no tolerance a single-speaker VBx output was drawn on two rows
    if n > 1 and np.any(starts[1:] < reach[:-1] - LANE_TOLERANCE):   # overlaps: stack them
        level = pack_sorted(starts, ends).astype(float)
    else:
        level = np.zeros(n)
    return {"starts": starts, "ends": ends, "labels": list(labels), "inverse": inverse,
            "level": level, "depth": int(level.max()) + 1 if n else 1}


def error_geometry(regions) -> dict:
    """kind -> (x0, width) arrays of error regions (start, end, kind); cached by the tuple's
    identity."""
    return _GEOMETRY.get_or_make((regions,), ("errors",), lambda: _error_geometry(regions))


def _error_geometry(regions) -> dict:
    """(in bulk: a 10-hour show has ~10,000 regions a step; from the arrays they were made
    of when they carry them, `der.RegionList`)"""
    n = len(regions)
    if not n:
        return {}
    arrays = getattr(regions, "arrays", None)
    if arrays is not None and arrays[0].size == n:
        from llgui.core.diarization.der import ERROR_KINDS

        starts, ends, rank = arrays
        present, first = np.unique(rank, return_index=True)
        kinds = [int(present[i]) for i in np.argsort(first)]   # in the order they come
        if len(kinds) == 1:
            return {ERROR_KINDS[kinds[0]]: (starts, ends - starts)}
        return {ERROR_KINDS[k]: (starts[rank == k], ends[rank == k] - starts[rank == k])
                for k in kinds}
    starts = np.fromiter((r[0] for r in regions), dtype=float, count=n)
    ends = np.fromiter((r[1] for r in regions), dtype=float, count=n)
    kinds = [r[2] for r in regions]
    names = list(dict.fromkeys(kinds))   # in the order they come
    if len(names) == 1:
        return {names[0]: (starts, ends - starts)}
    index = {k: i for i, k in enumerate(names)}
    codes = np.fromiter((index[k] for k in kinds), dtype=np.int64, count=n)
    return {k: (starts[codes == i], ends[codes == i] - starts[codes == i])
            for i, k in enumerate(names)}


def lane_bars(turns, colour_of: Callable[[str], str], rank: Callable[[str], object] | None = None
              ) -> dict:
    """A lane's bars grouped by colour: the pieces of its turns (`stack_pieces` with `rank`:
    a turn is cut where an overlap begins and ends), each with its x0, width, stacking
    level and depth, the turn it is of (`turn`, an index in `lane_geometry`'s order) and that
    turn's label (`label`, an index into `colours`), and colour -> indices of its pieces;
    `colour_of(label)` gives a speaker label's colour."""
    geometry = lane_geometry(turns)
    palette = [colour_of(label) for label in geometry["labels"]]
    # each piece's colour as an index, then one comparison per colour (np.isin per colour
    # sorted the turns each time: milliseconds a lane of a 10-hour show)
    distinct = list(dict.fromkeys(palette))
    number = {colour: i for i, colour in enumerate(distinct)}
    of_label = np.array([number[c] for c in palette], dtype=np.intp)
    pieces = stack_pieces(turns, rank)
    label = (np.asarray(geometry["inverse"], dtype=np.intp)[pieces["turn"]]
             if pieces["turn"].size else np.zeros(0, dtype=np.intp))
    of_piece = of_label[label] if len(palette) else of_label
    return {
        "colours": palette,     # per label (geometry["labels"] order)
        "x0": pieces["x0"],
        "width": pieces["x1"] - pieces["x0"],
        "level": pieces["level"],
        "depth": pieces["depth"],
        "turn": pieces["turn"],
        "label": label,
        "groups": {c: np.flatnonzero(of_piece == i) for i, c in enumerate(distinct)},
    }


def mapped_rank(mapping: Mapping[str, str] | None) -> Callable[[str], str]:
    """The stacking rank of a lane's labels: the reference speaker each is drawn as (the
    mapping's), unmapped labels after them. One function for the view and the worker that
    prepares its geometry, so both hit the same cache entry."""
    names = mapping or {}
    return lambda label: names.get(label, "\uffff" + label)


def stack_pieces(turns, rank: Callable[[str], object] | None = None) -> dict:
    """How a lane's turns are drawn, overlap by overlap: each turn cut into pieces at the
    edges of the overlapped stretches it takes part in (where two or more turns speak at
    once, `overlap_spans`). A piece outside any overlap fills the lane's height (level 0,
    depth 1); the pieces of one overlapped stretch share it in as many rows as it needs
    (depth), one row (level) each. A long turn overlapped for two seconds at its end was
    drawn thin along its whole length, which reads as overlapped speech throughout.

    Within a stretch the rows go by `rank` of the speaker label (then time), so the same
    two speakers overlap in the same order in every lane when `rank` says the reference
    speaker a label is drawn as (default: the label). Returns arrays x0, x1, turn (the
    piece's turn, an index in `lane_geometry`'s order), level and depth, sorted by (x0, x1);
    a lane without overlap has one piece per turn, its own. Cached by the turn list's
    identity and the ranks."""
    geometry = lane_geometry(turns)
    labels = geometry["labels"]
    key = tuple(rank(label) if rank is not None else label for label in labels)
    return _GEOMETRY.get_or_make((turns,), ("stack", key),
                                 lambda: _stack_pieces(geometry, key))


def overlap_spans(starts: np.ndarray, ends: np.ndarray,
                  tolerance: float = LANE_TOLERANCE) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) arrays of the stretches where two or more of the spans [starts, ends]
    lie (pyannote's `get_overlap`), in time order: stretches no longer than `tolerance` are
    none (RTTM onset + duration leaves abutting turns overlapping by float error), and
    stretches that touch (one pair of turns handing over to the next at one instant) are
    one."""
    n = starts.size
    none = np.zeros(0), np.zeros(0)
    if n < 2:
        return none
    times = np.concatenate([starts, ends])
    delta = np.concatenate([np.ones(n, dtype=np.int64), -np.ones(n, dtype=np.int64)])
    order = np.lexsort((delta, times))   # at one instant the ends first: abutting is not overlap
    times, count = times[order], np.cumsum(delta[order])
    on = np.concatenate([[0], (count >= 2).astype(np.int8), [0]])
    edge = np.diff(on)
    lo, hi = times[np.flatnonzero(edge == 1)], times[np.flatnonzero(edge == -1)]
    if lo.size == 0:
        return none
    joined = np.concatenate([[True], lo[1:] - hi[:-1] > tolerance])   # touching: one
    first = np.flatnonzero(joined)
    lo, hi = lo[first], hi[np.append(first[1:], lo.size) - 1]
    keep = hi - lo > tolerance
    return lo[keep], hi[keep]


def _stack_pieces(geometry, key) -> dict:
    starts, ends, inverse = geometry["starts"], geometry["ends"], geometry["inverse"]
    n = starts.size
    tol = LANE_TOLERANCE
    lo, hi = overlap_spans(starts, ends)
    if lo.size == 0:   # nothing overlaps: a piece a turn, the lane's height each
        return {"x0": starts, "x1": ends, "turn": np.arange(n), "level": np.zeros(n),
                "depth": np.ones(n)}
    order_of = {k: i for i, k in enumerate(sorted(set(key), key=lambda k: (str(type(k)), k)))}
    rank = np.array([order_of[key[i]] for i in inverse.tolist()], dtype=np.int64)
    reach = np.maximum.accumulate(ends)
    # the turns of each stretch: from the first whose running end passes its start to the
    # last starting before its end, those that share more than `tol` with it
    first = np.searchsorted(reach, lo + tol, side="right")
    last = np.searchsorted(starts, hi - tol, side="left")
    count = np.maximum(last - first, 0)
    span = np.repeat(np.arange(lo.size), count)
    turn = np.arange(span.size) - np.repeat(np.cumsum(count) - count, count) + first[span]
    member = np.minimum(ends[turn], hi[span]) - np.maximum(starts[turn], lo[span]) > tol
    turn, span = turn[member], span[member]
    # each stretch's turns by rank, then time: the order they take rows in
    by = np.lexsort((ends[turn], starts[turn], rank[turn], span))
    turn, span = turn[by], span[by]
    size = np.bincount(span, minlength=lo.size)
    head = np.cumsum(size) - size
    level = (np.arange(turn.size) - head[span]).astype(float)
    depth = size[span].astype(float)
    # two turns in a stretch overlap each other: a row each (most stretches); three or
    # more may leave room, each takes the first row it fits in
    for j in np.flatnonzero(size > 2).tolist():
        s, e = float(lo[j]), float(hi[j])
        rows: list[list[tuple[float, float]]] = []
        for k in range(int(head[j]), int(head[j] + size[j])):
            i = int(turn[k])
            x0, x1 = max(float(starts[i]), s), min(float(ends[i]), e)
            for r, spans in enumerate(rows):
                if all(x1 <= u + tol or x0 >= v - tol for u, v in spans):
                    spans.append((x0, x1))
                    break
            else:
                r = len(rows)
                rows.append([(x0, x1)])
            level[k] = r
        depth[head[j]:head[j] + size[j]] = len(rows)
    inside_x0 = np.maximum(starts[turn], lo[span])
    inside_x1 = np.minimum(ends[turn], hi[span])
    # the rest of each turn: before its first stretch, between two, after its last
    by = np.lexsort((span, turn))
    t, x0, x1 = turn[by], inside_x0[by], inside_x1[by]
    head = np.ones(t.size, dtype=bool)
    head[1:] = t[1:] != t[:-1]
    tail = np.ones(t.size, dtype=bool)
    tail[:-1] = head[1:]
    before = np.where(head, starts[t], np.roll(x1, 1))
    gap = x0 - before > tol
    after = ends[t] - x1 > tol
    alone = np.ones(n, dtype=bool)
    alone[t] = False
    alone = np.flatnonzero(alone)
    out_turn = np.concatenate([turn, t[gap], t[tail & after], alone])
    out_x0 = np.concatenate([inside_x0, before[gap], x1[tail & after], starts[alone]])
    out_x1 = np.concatenate([inside_x1, x0[gap], ends[t[tail & after]], ends[alone]])
    rest = out_turn.size - turn.size
    out_level = np.concatenate([level, np.zeros(rest)])
    out_depth = np.concatenate([depth, np.ones(rest)])
    order = np.lexsort((out_level, out_x1, out_x0))
    return {"x0": out_x0[order], "x1": out_x1[order], "turn": out_turn[order],
            "level": out_level[order], "depth": out_depth[order]}


def lane_parts(bars: dict, y: float, lane_height: float) -> list[tuple[str, tuple]]:
    """(colour, (x0, width, y0, height)) per colour of a lane centred at `y` whose bars
    (`lane_bars`' pieces) stack in rows sharing `lane_height` (each piece its depth)."""
    height = lane_height / np.asarray(bars["depth"], dtype=float)
    height = np.broadcast_to(height, np.shape(bars["x0"]))
    y0 = y - lane_height / 2 + bars["level"] * height
    return [(colour, (bars["x0"][members], bars["width"][members], y0[members],
                      height[members] * BAR_FILL))
            for colour, members in bars["groups"].items()]


def error_parts(regions, y: float, lane_height: float) -> list[tuple[str, tuple]]:
    """(colour, (x0, width, y0, height)) per error kind (miss, false alarm, confusion) of the
    error lane centred at `y`."""
    geometry = error_geometry(regions)
    parts = []
    for kind, colour in ERROR_COLOURS.items():
        x0, width = geometry.get(kind, (None, None))
        if x0 is None:
            continue
        parts.append((colour, (x0, width, np.full(len(x0), y - lane_height / 2),
                               np.full(len(x0), lane_height))))
    return parts


def merge_parts(parts: Sequence[tuple]) -> tuple[np.ndarray, ...]:
    """The (x0, width, y0, height) tuples of one colour, concatenated into one of each."""
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def visible_bars(x0: np.ndarray, width: np.ndarray, lo: float, hi: float,
                 margin: float = 0.5) -> np.ndarray:
    """Mask of the bars that reach into [lo, hi] widened by `margin` of its span each side."""
    pad = margin * (hi - lo)
    return (x0 <= hi + pad) & (x0 + width >= lo - pad)


def collar_zones(reference, collar: float, max_zones: int | None = None):
    """(x0, width) of the collar's no-score zones: `collar` seconds (total width, as
    pyannote's) around every reference boundary; None when there is no collar or no
    reference, or more than `max_zones` boundaries (drawn, they would be grey paint)."""
    if collar <= 0 or not reference:
        return None
    edges = np.unique(np.concatenate([[t.start, t.end] for t in reference]))
    if max_zones is not None and edges.size > max_zones:
        return None
    half = collar / 2
    return edges - half, 2 * half


def focus_range(windows: Iterable[Sequence[float]], extent: Sequence[float],
                least: float = 60.0, widen: float = 3.0) -> tuple[float, float]:
    """The time range showing the listened `windows` in context: `widen` times their span
    (at least `least` seconds) around their middle, within `extent`."""
    windows = list(windows)
    lo = min(w[0] for w in windows)
    hi = max(w[1] for w in windows)
    span = max(least, (hi - lo) * widen)
    centre = (lo + hi) / 2
    return max(extent[0], centre - span / 2), min(extent[1], centre + span / 2)


def label_colour(label: str, mapping: Mapping[str, str] | None, colours: Mapping[str, str],
                 unmappable: str | None = None,
                 unmapped: Mapping[str, str] | None = None) -> str:
    """The colour a hypothesis (or reference) speaker label is drawn in: the impaired
    hypothesis' never-mapped speaker dark grey; with a `mapping` (hypothesis -> reference
    label), the colour of the reference speaker it maps to, else its tone in `unmapped`
    (`palette.unmapped_colours`: unmapped clusters told apart), grey without one; with no
    mapping (the reference itself), its own colour."""
    if unmappable is not None and label == unmappable:
        return IMPAIRED
    if mapping and label in mapping:
        return colours.get(mapping[label], UNMAPPED)
    if mapping is not None:
        return (unmapped or {}).get(label, UNMAPPED)
    return colours.get(label, UNMAPPED)


def extend_colours(colours: dict[str, str], labels: Iterable[str],
                   palette: Sequence[str]) -> dict[str, str]:
    """`colours` with a colour for each label it lacks, the palette's next ones in turn
    (updated in place, and returned)."""
    for label in labels:
        if label not in colours:
            colours[label] = palette[len(colours) % len(palette)]
    return colours


def label_runs(x0, width, keys, gap: float):
    """Runs of adjacent bars of one lane that read as one bar on screen: consecutive (by
    start) bars with the same key (label and level) whose gap is under `gap` (a pixel in
    seconds). Returns (start, end, first) arrays: each run's extent and the index of its
    first bar. A speaker's turns a few tenths of a second apart drew one long bar at an
    overview zoom, but no turn alone was long enough to hold its label."""
    x0 = np.asarray(x0, dtype=float)
    end = x0 + np.asarray(width, dtype=float)
    n = x0.size
    if n == 0:
        return x0, end, np.zeros(0, dtype=np.int64)
    order = np.argsort(x0, kind="stable")
    keys = np.asarray(keys)   # (integer keys stay integers: as objects, 10,000 compared
    keys = (keys if keys.dtype.kind in "iub" else keys.astype(object))[order]   # slowly)
    xs, ends = x0[order], end[order]
    reach = np.maximum.accumulate(ends)
    new = np.ones(n, dtype=bool)
    new[1:] = (keys[1:] != keys[:-1]) | (xs[1:] - reach[:-1] > gap)
    starts = np.flatnonzero(new)
    run_end = np.maximum.reduceat(ends, starts)
    return xs[starts], run_end, order[starts]




def dominant_spans(parts, lo: float, hi: float, pixel: float, steps: int = 4) -> list[tuple]:
    """Level of detail for one lane drawn `pixel` seconds to a pixel column over [lo, hi]:
    each column takes the colour that covers most of it among `parts` ((colour, (x0,
    width, ...)) per colour), none where nothing does, at a height telling how much of the
    column they cover (rounded up to a `steps`-th, so that a turn or an error never
    vanishes), and runs of columns of one colour and height are joined into spans. Returns
    (colour, x0, width, height as a share of the lane's) per colour that takes a column,
    each span a whole number of columns. A 10-hour show on 1,000 pixels drew 10,000 bars
    of a few hundredths of a pixel each, a barcode in whichever colour Qt filled last;
    this is who speaks (which error is made) most in each column, and how much."""
    columns = max(int(np.ceil((hi - lo) / pixel - 1e-9)), 1)
    colours = list(dict.fromkeys(colour for colour, _ in parts))
    if not colours:
        return []
    x0 = np.concatenate([np.asarray(part[0], dtype=float) for _, part in parts])
    end = x0 + np.concatenate([np.asarray(part[1], dtype=float) for _, part in parts])
    which = np.concatenate([np.full(np.size(part[0]), colours.index(colour), dtype=np.int64)
                            for colour, part in parts])
    # each bar's start and end in columns, within the range
    s = np.clip((x0 - lo) / pixel, 0.0, columns)
    e = np.clip((end - lo) / pixel, 0.0, columns)
    a = np.minimum(s.astype(np.int64), columns - 1)
    b = np.minimum(e.astype(np.int64), columns - 1)
    row = which * columns
    size = len(colours) * columns
    # the part of a bar in its first and in its last column, and a whole column for each
    # between (a difference array: +1 after the first, -1 at the last)
    one = a == b
    cover = (np.bincount(row + a, np.where(one, e - s, a + 1 - s), size)
             + np.bincount(row + b, np.where(one, 0.0, e - b), size))
    long = np.flatnonzero(b > a + 1)
    if long.size:
        marks = (np.bincount(row[long] + a[long] + 1, minlength=size)
                 - np.bincount(row[long] + b[long], minlength=size))
        cover += np.cumsum(marks.reshape(len(colours), columns), axis=1).reshape(-1)
    cover = cover.reshape(len(colours), columns)
    share = np.minimum(cover.sum(axis=0), 1.0)   # (overlapping speech: a whole column)
    level = np.ceil(share * steps - 1e-9).astype(np.int64)
    best = np.where(level > 0, cover.argmax(axis=0), -1)
    code = (best + 1) * (steps + 1) + level
    change = np.flatnonzero(code[1:] != code[:-1]) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [columns]])
    out = []
    for k, colour in enumerate(colours):
        mine = best[starts] == k
        if mine.any():
            out.append((colour, lo + starts[mine] * pixel, (ends[mine] - starts[mine]) * pixel,
                        level[starts[mine]] / steps))
    return out
