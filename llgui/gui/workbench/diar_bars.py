"""The timeline's bars and labels, drawn only as far as a step changes them (issue 36).

`FlatBars`: bar items without an outline, whose bounds need no pixel measure; `runs_in`: the
runs of a lane's bars that may hold a turn label, over the bars in view only; `same_arrays`:
whether a bar item already holds the bars it is given; `settle_texts`: a view's new range
applied to its text items before the paint.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from llgui.core.display.lanes import label_runs


class FlatBars(pg.BarGraphItem):
    """Bars without an outline (no pen): their bounds are the bars' own. pyqtgraph pads a
    bar item by half a pixel for its pen, measuring the pixel at each of the ~150 times a
    step's paint asks the timeline's bar items for their bounds (3 ms a step)."""

    def pixelPadding(self) -> float:  # noqa: N802 - pyqtgraph's name
        return 0.0


def run_keys(arrays: dict, geometry: dict) -> np.ndarray:
    """Each bar's (label, stacking level) as one integer, what `label_runs` joins runs by;
    made once per lane's arrays (a Python string per turn, at every cull of every view, was
    7 ms a step on an hour's meeting)."""
    keys = arrays.get("run_keys")
    if keys is None:
        level = np.asarray(arrays["level"], dtype=np.int64).reshape(-1)
        levels = int(level.max()) + 1 if level.size else 1
        keys = arrays["run_keys"] = (np.asarray(geometry["inverse"], dtype=np.int64)
                                     * levels + level)
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


def settle_texts(box) -> None:
    """The view's new range applied now, and with it the transform of its text items (turn
    labels), as the paint would first do: a text item that finds a new transform there asks
    for a second paint of the plot (2-3 ms a step of a zoomed panel)."""
    box.updateMatrix()


def same_arrays(old, new) -> bool:
    """True when the arrays `old` (or None) hold what `new` holds."""
    return old is not None and all(a is b or (a.shape == b.shape and np.array_equal(a, b))
                                   for a, b in zip(old, new))
