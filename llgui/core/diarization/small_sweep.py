"""The sums of a step's region, swept in plain Python (`small_sums`).

A step rescores a few seconds around its windows: a handful of turns per side
(`llgui.core.diarization.incremental`). The numpy sweep (`llgui.core.diarization.sweep`) costs
a few hundred microseconds there whatever the size, in the overheads of its fifty-odd array
calls; the same sweep written over Python lists costs a fraction of that on a dozen turns. It
follows the numpy sweep step by step, with the same float expressions (pieces, their lengths,
which are kept), so only the order in which the additive sums add their terms differs (a few
units in the last place, far below the 1e-9 s the incremental scorer cleans residues at).
Tests hold it equal to the numpy sweep's sums on random regions, with collars, skipped
overlap and several UEM spans.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Sequence

import numpy as np

from llgui.core.diarization.sweep import SEGMENT_PRECISION, scored_spans
from llgui.core.types import Turn

SMALL = 40
"""Turns (both sides) up to which a region is swept here rather than by numpy: the cost here
grows with the turns and the pieces they cut, numpy's hardly (at a show's density, one turn
per side every 1.8 s: 0.6 of numpy's time at 28 turns, 0.9 at 40, even at 48)."""


def _support(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The sweep's `_support(*_sorted_nonempty(...))` of a UEM given as spans."""
    out: list[list[float]] = []
    run = 0.0
    for s, e in sorted((s, e) for s, e in spans if e - s > SEGMENT_PRECISION):
        if out and s - min(e, run) <= SEGMENT_PRECISION:
            run = max(run, e)
            out[-1][1] = run
        else:
            run = e
            out.append([s, e])
    return [(s, e) for s, e in out]


def _counts(turns, at: dict, n: int) -> list[dict]:
    """Per elementary interval (between consecutive times, `at`: time -> index), how many
    turns of each label are active."""
    counts: list[dict] = [{} for _ in range(n)]
    for start, end, label in turns:
        for k in range(at[start], at[end]):
            c = counts[k]
            c[label] = c.get(label, 0) + 1
    return counts


def _weights(times: list[float], spans: list[tuple[float, float]]) -> tuple[list, list]:
    """Per elementary interval, the seconds it weighs in DER (pieces longer than
    SEGMENT_PRECISION) and in JER (every piece): the sweep's pieces, summed in its order."""
    if len(spans) == 1:     # a step's region: one span
        (lo, hi), = spans
        every = [min(b, hi) - max(a, lo) for a, b in zip(times, times[1:])]
        every = [x if x > 0.0 else 0.0 for x in every]
        return [x if x > SEGMENT_PRECISION else 0.0 for x in every], every
    span_s = [s for s, _ in spans]
    span_e = [e for _, e in spans]
    w, w_all = [], []
    for k in range(len(times) - 1):
        a, b = times[k], times[k + 1]
        kept = every = 0.0
        for j in range(bisect_right(span_e, a), bisect_left(span_s, b)):
            length = min(b, span_e[j]) - max(a, span_s[j])
            if length > 0.0:
                every += length
                if length > SEGMENT_PRECISION:
                    kept += length
        w.append(kept)
        w_all.append(every)
    return w, w_all


def _spans(ref, times, ref_counts, uem, collar: float, skip_overlap: bool):
    """The scored spans as a list, by the sweep's own extrusion when there is any."""
    spans = _support(uem)
    if collar == 0.0 and not skip_overlap:
        return spans
    overlap = None
    if skip_overlap:
        overlap = np.array([sum(c.values()) >= 2 for c in ref_counts], dtype=bool)
    uem_s = np.array([s for s, _ in spans], dtype=float)
    uem_e = np.array([e for _, e in spans], dtype=float)
    sc_s, sc_e = scored_spans(uem_s, uem_e, np.array([t[0] for t in ref], dtype=float),
                              np.array([t[1] for t in ref], dtype=float), collar,
                              np.array(times, dtype=float), overlap)
    return list(zip(sc_s.tolist(), sc_e.tolist()))


def small_sums(sums, reference: Sequence[Turn], hypothesis: Sequence[Turn],
               uem: Sequence[tuple[float, float]], collar: float, skip_overlap: bool):
    """Fill `sums` (an empty `incremental._Sums`) as `_Sums.of` would for the same arguments
    (a given UEM) and return it."""
    keep = SEGMENT_PRECISION
    ref = [(t.start, t.end, t.speaker) for t in reference if t.end - t.start > keep]
    hyp = [(t.start, t.end, t.speaker) for t in hypothesis if t.end - t.start > keep]
    times = sorted({x for s, e, _ in ref + hyp for x in (s, e)})
    if not times:
        return sums
    at = {x: k for k, x in enumerate(times)}
    n = len(times) - 1
    ref_c, hyp_c = _counts(ref, at, n), _counts(hyp, at, n)
    w, w_all = _weights(times, _spans(ref, times, ref_c, uem, collar, skip_overlap))
    sums.hyp_time = dict.fromkeys((t[2] for t in hyp), 0.0)
    sums.ref_time = dict.fromkeys((t[2] for t in ref), 0.0)
    sums.hyp_on, sums.ref_on = dict(sums.hyp_time), dict(sums.ref_time)
    _add(sums, ref_c, hyp_c, w, w_all)
    return sums


def _add(sums, ref_c: list, hyp_c: list, w: list, w_all: list) -> None:
    """The elementary intervals' shares (`w`: their DER weights, `w_all`: their JER ones),
    in one loop over local names (this loop is the small sweep's cost)."""
    miss = fa = both = total = 0.0
    co, matched, inter = sums.co, sums.matched, sums.inter
    ref_time, ref_on, hyp_time, hyp_on = sums.ref_time, sums.ref_on, sums.hyp_time, sums.hyp_on
    co_get, matched_get, inter_get = co.get, matched.get, inter.get
    for rc, hc, d, wa in zip(ref_c, hyp_c, w, w_all):
        if wa <= 0.0:
            continue
        rcs, hcs = rc.items(), hc.items()
        for r, rn in rcs:
            ref_time[r] += rn * d
            ref_on[r] += wa
        for h, hn in hcs:
            hyp_time[h] += hn * d
            hyp_on[h] += wa
            for r, rn in rcs:
                key = (h, r)
                inter[key] = inter_get(key, 0.0) + wa
                if d > 0.0:
                    co[key] = co_get(key, 0.0) + hn * (rn * d)
                    matched[key] = matched_get(key, 0.0) + (hn if hn < rn else rn) * d
        if d > 0.0:
            nr, nh = float(sum(rc.values())), float(sum(hc.values()))
            miss += d * (nr - nh if nr > nh else 0.0)
            fa += d * (nh - nr if nh > nr else 0.0)
            both += d * (nr if nr < nh else nh)
            total += d * nr
    sums.miss, sums.fa, sums.both, sums.total = miss, fa, both, total
