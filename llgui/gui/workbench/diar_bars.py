"""The timeline's bars and labels, drawn only as far as a step changes them (issue 36).

`FlatBars`: bar items without an outline, whose bounds need no pixel measure; `runs_in`: the
runs of a lane's bars that may hold a turn label, over the bars in view only; `same_arrays`:
whether a bar item already holds the bars it is given; `settle_texts`: a view's new range
applied to its text items before the paint.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from llgui.core.display.lanes import dominant_spans, label_runs, visible_bars


class FlatBars(pg.BarGraphItem):
    """Bars without an outline (no pen): their bounds are the bars' own. pyqtgraph pads a
    bar item by half a pixel for its pen, measuring the pixel at each of the ~150 times a
    step's paint asks the timeline's bar items for their bounds (3 ms a step)."""

    def pixelPadding(self) -> float:  # noqa: N802 - pyqtgraph's name
        return 0.0


def run_keys(arrays: dict, geometry: dict) -> np.ndarray:
    """Each bar's (label, stacking level, depth) as one integer, what `label_runs` joins
    runs by; made once per lane's arrays (a Python string per turn, at every cull of every
    view, was 7 ms a step on an hour's meeting). A bar's label is `arrays["label"]` (a
    turn's pieces, `lane_bars`), else `geometry["inverse"]` (a bar a turn); a turn's full
    height piece and its stacked piece are two runs, each labelled in its own row."""
    keys = arrays.get("run_keys")
    if keys is None:
        level = np.asarray(arrays["level"], dtype=np.int64).reshape(-1)
        depth = np.asarray(arrays.get("depth", np.ones(level.size)), dtype=np.int64)
        depth = np.broadcast_to(depth, level.shape)
        levels = int(level.max()) + 1 if level.size else 1
        depths = int(depth.max()) + 1 if depth.size else 1
        label = arrays.get("label")
        label = geometry["inverse"] if label is None else label
        keys = arrays["run_keys"] = ((np.asarray(label, dtype=np.int64) * levels + level)
                                     * depths + depth)
    return keys


def runs_in(arrays: dict, geometry: dict, lo: float, hi: float, gap: float):
    """`label_runs` of a lane (bars sorted by start) for the runs that reach into [lo, hi]:
    the same runs, first bars and extents within [lo, hi] as over the whole lane, computed
    over the bars from the first whose running end passes `lo` to the last starting by
    `hi` (a zoomed panel of a 10-hour show went over its 10,000 turns at every cull), the
    run cut at the left end followed back to its first bar, the one cut at the right end
    taking the next bar. A few results are kept per lane (the
    overview of a whole show asks the same at every step)."""
    x0 = arrays["x0"]
    keys = run_keys(arrays, geometry)
    reach = arrays.get("reach")
    if reach is None:
        ends = x0 + arrays["width"]
        reach = arrays["reach"] = np.maximum.accumulate(ends) if ends.size else ends
    a = int(np.searchsorted(reach, lo, side="right"))   # the first bar ending after lo
    b = int(np.searchsorted(x0, hi, side="right"))      # the bars starting by hi
    if 0 < b < x0.size and keys[b] == keys[b - 1] and not x0[b] - reach[b - 1] > gap:
        b += 1   # the last run goes on past hi: one bar more says so (its end past hi)
    key = (a, b, gap)
    kept = arrays.setdefault("runs", {})   # the overview's and the panels' (shared arrays)
    if key in kept:
        return kept[key]
    if a >= b:
        runs = (x0[:0], x0[:0], np.zeros(0, dtype=np.int64))
    else:
        starts, run_end, first = label_runs(x0[a:b], arrays["width"][a:b], keys[a:b], gap)
        first = first + a
        if a > 0 and first[0] == a:
            # does the first run go on to the left (the same key, a gap under `gap`, as
            # `label_runs` joins them)? then from the first bar of the whole run
            goes_on = ((keys[1:a + 1] == keys[:a])
                       & ~(x0[1:a + 1] - reach[:a] > gap))
            if goes_on[-1]:
                breaks = np.flatnonzero(~goes_on)
                f = int(breaks[-1]) + 1 if breaks.size else 0
                starts, run_end, first = starts.copy(), run_end.copy(), first.copy()
                starts[0], first[0] = x0[f], f
                run_end[0] = max(run_end[0], float(np.max((x0 + arrays["width"])[f:a])))
        runs = (starts, run_end, first)
    if len(kept) >= 8:
        kept.pop(next(iter(kept)))
    kept[key] = runs
    return runs


LOD_BARS_PER_PIXEL = 0.5
"""Bars in view per pixel column from which a lane is drawn at its level of detail."""


def in_view(part, lo: float, hi: float, kept: dict | None = None) -> tuple:
    """The bars of `part` (x0, width, y0, height; sorted by start) that reach into [lo, hi]
    widened by half its span each side (`visible_bars`' margin): a slice from the first bar
    whose running end passes the left edge to the last starting by the right (a zoomed
    panel of a long show looked at each of a lane's 10,000 bars at every step). `kept`:
    where the running ends are kept, by the part."""
    x0, width, y0, height = part
    pad = 0.5 * (hi - lo)
    if x0.size == 0:
        return part
    key = id(x0)
    reach = kept.get(key) if kept is not None else None
    if reach is None or reach[0] is not x0:
        ends = x0 + width
        if x0.size > 1 and np.any(x0[1:] < x0[:-1]):   # not sorted: the mask
            visible = visible_bars(x0, width, lo, hi)
            if visible.all():
                return part
            at = np.flatnonzero(visible)
            return (x0[at], width[at], y0[at], height[at])
        reach = (x0, np.maximum.accumulate(ends))
        if kept is not None:
            kept[key] = reach
    a = int(np.searchsorted(reach[1], lo - pad))
    b = int(np.searchsorted(x0, hi + pad, side="right"))
    if a == 0 and b == x0.size:   # a whole meeting in view: the arrays themselves
        return part
    return (x0[a:b], width[a:b], y0[a:b], height[a:b])


def lane_in_view(parts, lo: float, hi: float, pixel: float, y0: float, height: float,
                 source: dict | None = None):
    """What one lane ((colour, (x0, width, y0, height)) per colour)
    draws of [lo, hi] at `pixel` seconds a pixel column: its bars in view, or where they
    outnumber half the columns (an overview of a long show), the colour covering most of
    each column (`dominant_spans`) in one row from `y0`, up to `height` as they cover the
    column; those spans kept in
    `source` (the lane's arrays: the same lane at another row, as the seen lane is the last
    step's adapted one, finds them there)."""
    pad = 0.5 * (hi - lo)
    order = source.setdefault("part_sorted", {}) if source is not None else {}
    count = 0
    for _, part in parts:   # the bars starting in the range (a binary search where sorted)
        x0 = part[0]
        known = order.get(id(x0))
        if known is None or known[0] is not x0:
            known = order[id(x0)] = (x0, bool(x0.size < 2 or np.all(x0[1:] >= x0[:-1])))
        count += (int(np.searchsorted(x0, hi + pad, side="right")
                      - np.searchsorted(x0, lo - pad)) if known[1]
                  else int(np.count_nonzero((x0 >= lo - pad) & (x0 <= hi + pad))))
    if not (pixel > 0 and count > LOD_BARS_PER_PIXEL * (hi - lo) / pixel):
        reach = source.setdefault("part_reach", {}) if source is not None else None
        return [(colour, in_view(part, lo, hi, reach)) for colour, part in parts]
    kept = source.setdefault("lod", {}) if source is not None else {}
    spans = kept.get((lo, hi, pixel))
    if spans is None:
        if len(kept) >= 4:
            kept.pop(next(iter(kept)))
        spans = kept[(lo, hi, pixel)] = dominant_spans(parts, lo, hi, pixel)
    return [(colour, (x, width, np.full(x.size, float(y0)), share * height))
            for colour, x, width, share in spans]


def bars_by_colour(rows, lo: float, hi: float, pixel: float, views_kept=(), given_kept=()):
    """What each colour's bar item draws of [lo, hi] at `pixel` seconds a pixel column:
    `rows` are the lanes as (parts, y0, height, source) (`lane_in_view` each), their
    pieces joined per colour. `views_kept` and `given_kept`: dicts of earlier results (a
    step's own, made ahead) by the lane's parts, range and size and by colour, whose
    entries are taken where they still hold. Returns (lane -> pieces, colour -> (piece
    ids, arrays (x0, width, y0, height), pieces)): a colour whose pieces are the ones it
    had keeps its very arrays."""
    views: dict = {}
    by_colour: dict = {}
    for parts, y0, height, source in rows:
        key = (id(parts), lo, hi, pixel)
        old = views.get(key)
        for kept in views_kept:
            if old is not None and old[0] is parts:
                break
            old = kept.get(key)
        if old is None or old[0] is not parts:
            old = (parts, lane_in_view(parts, lo, hi, pixel, y0, height, source))
        views[key] = old
        for colour, piece in old[1]:
            by_colour.setdefault(colour, []).append(piece)
    given: dict = {}
    for colour, pieces in by_colour.items():
        ids = tuple(id(piece[0]) for piece in pieces)
        old = next((kept[colour] for kept in given_kept
                    if colour in kept and kept[colour][0] == ids), None)
        if old is None:   # (its pieces are kept with it: their ids stay theirs)
            old = (ids, pieces[0] if len(pieces) == 1 else tuple(
                np.concatenate([piece[k] for piece in pieces]) for k in range(4)), pieces)
        given[colour] = old
    return views, given


def settle_texts(box) -> None:
    """The view's new range applied now, and with it the transform of its items, as the
    paint would first do: a view whose items find a new transform there asks for a second
    paint of the plot (2-3 ms a step of a zoomed panel). The scene's whole preparation, as
    its paint starts it (`GraphicsScene.prepareForPaint`): a text item placed in pixels (an
    overview brush's name) moved there too, and asked for a second pass of the overview."""
    scene = box.scene()
    if scene is not None and hasattr(scene, "prepareForPaint"):
        scene.prepareForPaint()   # (the view box's `updateMatrix` among the rest)
    else:
        box.updateMatrix()
    # A line's bounds follow the view (`pg.InfiniteLine`): made again when the scene next
    # asks for them, and changed there, they set off a second pass of the scene's changes,
    # and the panel was painted in a second paint of the window (2-3 ms more a step)
    for item in box.addedItems:
        if isinstance(item, pg.InfiniteLine) and item.isVisible():
            item.boundingRect()
        elif isinstance(item, pg.LinearRegionItem) and item.isVisible():
            for line in item.lines:
                line.boundingRect()


def same_arrays(old, new) -> bool:
    """True when the arrays `old` (or None) hold what `new` holds."""
    return old is not None and all(a is b or (a.shape == b.shape and np.array_equal(a, b))
                                   for a, b in zip(old, new))
