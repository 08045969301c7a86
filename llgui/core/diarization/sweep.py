"""The sweep under DER and JER (`llgui.core.diarization.der`): a document's turns as numpy
arrays, every turn boundary sorted once, each label's active turns counted on every elementary
interval, and the intervals cut by the scored spans (the UEM minus collars and, with
skip_overlap, reference overlap, extruded as pyannote.metrics 4.2 does) into the pieces
pyannote scores; with pyannote's interval operations (support, gaps, intersections) on sorted
arrays. Results are cached by the identity of immutable turn tuples."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from llgui.utils.identity_cache import IdentityCache
from llgui.core.types import Turn

SEGMENT_PRECISION = 1e-6
"""pyannote.core's default precision (seconds): segments this short or shorter are empty."""

Span = tuple[float, float]


# --------------------------------------------------------------------------------------------
# Interval helpers (sorted numpy arrays of starts and ends)


def _support(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pyannote's Timeline.support() of non-empty segments sorted by start: merges segments
    that overlap or are separated by at most SEGMENT_PRECISION (ties in start always merge, so
    their order does not matter)."""
    if starts.size == 0:
        return starts, ends
    run_end = np.maximum.accumulate(ends)
    # Same float expression as pyannote's `Segment(min(ends), max(starts))` emptiness test.
    gap = starts[1:] - np.minimum(ends[1:], run_end[:-1])
    new = np.concatenate(([True], gap > SEGMENT_PRECISION))
    first = np.flatnonzero(new)
    last = np.concatenate((first[1:] - 1, [starts.size - 1]))
    return starts[first], run_end[last]


def _sorted_nonempty(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = (ends - starts) > SEGMENT_PRECISION
    starts, ends = starts[keep], ends[keep]
    order = np.lexsort((ends, starts))
    return starts[order], ends[order]


def _by_start_nonempty(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-empty segments sorted by start: enough for `_support` (equal starts always merge)."""
    keep = (ends - starts) > SEGMENT_PRECISION
    starts, ends = starts[keep], ends[keep]
    order = np.argsort(starts, kind="stable")
    return starts[order], ends[order]


def _intersect(a_s, a_e, b_s, b_e, with_index: bool = False,
               shortest: float = SEGMENT_PRECISION):
    """Pairwise intersections of two sorted lists of non-overlapping intervals, pieces of
    `shortest` or less dropped: (starts, ends), plus with `with_index` the index in `a` of each
    piece's interval."""
    empty = np.empty(0)
    if a_s.size == 0 or b_s.size == 0:
        return (empty, empty, np.empty(0, dtype=np.intp)) if with_index else (empty, empty)
    lo = np.searchsorted(b_e, a_s, side="right")   # first b ending after a starts
    hi = np.searchsorted(b_s, a_e, side="left")    # b's starting before a ends
    n = np.maximum(hi - lo, 0)
    ai = np.repeat(np.arange(a_s.size), n)
    offsets = np.arange(ai.size) - np.repeat(np.cumsum(n) - n, n)
    bi = np.repeat(lo, n) + offsets
    s = np.maximum(a_s[ai], b_s[bi])
    e = np.minimum(a_e[ai], b_e[bi])
    keep = (e - s) > shortest
    if with_index:
        return s[keep], e[keep], ai[keep]
    return s[keep], e[keep]


def _gaps_within(s_s, s_e, p_s, p_e) -> tuple[np.ndarray, np.ndarray]:
    """pyannote's `Timeline(p).gaps(support=Timeline(s))` for p inside s, both sorted and
    disjoint: what is left of s once p is removed, pieces of SEGMENT_PRECISION or less dropped."""
    starts = np.sort(np.concatenate((s_s, p_e)))
    ends = np.sort(np.concatenate((p_s, s_e)))
    keep = (ends - starts) > SEGMENT_PRECISION
    return starts[keep], ends[keep]


def _runs(bounds: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximal runs of consecutive elementary intervals (bounds[k], bounds[k+1]) where mask."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    return bounds[np.flatnonzero(edges == 1)], bounds[np.flatnonzero(edges == -1)]


# --------------------------------------------------------------------------------------------
# The sweep


@dataclass(frozen=True, eq=False)
class _Turns:
    starts: np.ndarray
    ends: np.ndarray
    labels: np.ndarray          # index into `names`
    names: tuple[str, ...]      # sorted as pyannote sorts labels (by str)


def _turns(turns: Sequence[Turn]) -> _Turns:
    """The arrays of a turn list; a tuple's are cached by its identity (a walkthrough sweeps
    the same immutable lists several times per step), read-only."""
    if not isinstance(turns, tuple):
        return _make_turns(turns)
    return _TURNS.get_or_make((turns,), (), lambda: _read_only(_make_turns(turns)))


_TURNS = IdentityCache(32)
_SWEEPS = IdentityCache(8)


def _read_only(made):
    """`made` (a dataclass of arrays) with its arrays made read-only: it is shared."""
    for value in vars(made).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return made


def _make_turns(turns: Sequence[Turn]) -> _Turns:
    if isinstance(turns, tuple):
        # a tuple's arrays as `edit` keeps them for its cuts and the timeline's lanes (made
        # once per turn list, not once here and once there)
        from llgui.core.diarization.edit import turn_arrays, turn_speakers

        starts, ends = turn_arrays(turns)
        if bool(((ends - starts) > SEGMENT_PRECISION).all()):
            try:
                names, codes = turn_speakers(turns)
            except TypeError:   # labels that do not sort together: sorted as str below
                names, codes = (), None
            if codes is not None and all(isinstance(name, str) for name in names):
                return _Turns(starts, ends, codes.astype(np.intp, copy=False), tuple(names))
    n = len(turns)
    starts = np.fromiter((t.start for t in turns), dtype=float, count=n)
    ends = np.fromiter((t.end for t in turns), dtype=float, count=n)
    speakers = [t.speaker for t in turns]
    # pyannote.core drops empty segments (duration <= SEGMENT_PRECISION) on insertion.
    keep = (ends - starts) > SEGMENT_PRECISION
    if not keep.all():
        starts, ends = starts[keep], ends[keep]
        speakers = [s for s, k in zip(speakers, keep) if k]
    names = tuple(sorted(set(speakers), key=str))
    index = {name: i for i, name in enumerate(names)}
    labels = np.fromiter((index[s] for s in speakers), dtype=np.intp, count=len(speakers))
    return _Turns(starts, ends, labels, names)


@dataclass(frozen=True, eq=False)
class _Sweep:
    """Who speaks when in one document, on the pieces pyannote scores.

    The turn boundaries cut time into n elementary intervals (`bounds`, n+1 sorted distinct
    times); `ref` (R, n) and `hyp` (H, n) count each label's active turns on each interval
    (label-major floats holding small integers). Cutting these intervals with the scored spans
    (the UEM minus collars and skipped overlap) gives the pieces of pyannote's common timeline:
    `piece_start`, `piece_end`, `piece_interval` (the interval each lies in), pieces of
    SEGMENT_PRECISION or less dropped. `w` (n,) sums the pieces' lengths per interval: the
    seconds each interval weighs in DER and in the co-occurrence. `w_all` (n,) is the same with
    the sub-microsecond slivers kept, for JER's durations (pyannote measures those on label
    timelines, slivers included). `ref_present` / `hyp_present`: labels with speech in some
    piece (pyannote's cropped annotations).
    """

    ref_turns: _Turns
    hyp_turns: _Turns
    bounds: np.ndarray
    w: np.ndarray
    w_all: np.ndarray
    ref: np.ndarray
    hyp: np.ndarray
    piece_start: np.ndarray
    piece_end: np.ndarray
    piece_interval: np.ndarray
    ref_present: np.ndarray
    hyp_present: np.ndarray
    uem_used: tuple[Span, ...]
    uem_given: bool
    scored_start: np.ndarray
    scored_end: np.ndarray

    @property
    def scored_spans(self) -> tuple[Span, ...]:
        return tuple(zip(self.scored_start.tolist(), self.scored_end.tolist()))


def _uem_used(ref: _Turns, hyp: _Turns, uem) -> tuple[np.ndarray, np.ndarray, bool]:
    if uem is None:
        # pyannote: Segment union of the two extents (an empty extent is ignored).
        lo, hi = [], []
        for t in (ref, hyp):
            if t.starts.size:
                lo.append(t.starts.min())
                hi.append(t.ends.max())
        if not lo:
            return np.empty(0), np.empty(0), False
        s, e = _sorted_nonempty(np.array([min(lo)]), np.array([max(hi)]))
        return s, e, False
    pairs = [(float(a), float(b)) for a, b in uem]
    s = np.array([p[0] for p in pairs], dtype=float)
    e = np.array([p[1] for p in pairs], dtype=float)
    s, e = _support(*_sorted_nonempty(s, e))
    return s, e, True


def _sweep(reference: Sequence[Turn], hypothesis: Sequence[Turn], uem, collar: float,
           skip_overlap: bool) -> _Sweep:
    """The sweep of a document; for tuples of turns (and a tuple UEM or none) the last few
    are cached by identity: a step's view asks for the mapping, the error regions and the
    per-speaker breakdown of the same pair (its arrays are read-only)."""
    if not (isinstance(reference, tuple) and isinstance(hypothesis, tuple)
            and (uem is None or isinstance(uem, tuple))):
        return _make_sweep(reference, hypothesis, uem, collar, skip_overlap)
    return _SWEEPS.get_or_make(
        (reference, hypothesis, uem), (float(collar), bool(skip_overlap)),
        lambda: _read_only(_make_sweep(reference, hypothesis, uem, collar, skip_overlap)))


def scored_spans(uem_s, uem_e, ref_starts, ref_ends, collar: float, bounds,
                 overlap) -> tuple[np.ndarray, np.ndarray]:
    """The spans pyannote scores: the UEM (`uem_s`, `uem_e`: its support) minus the collars
    around the reference's turn edges and, with skip_overlap, the reference's overlap
    (`overlap`: the elementary intervals between `bounds` where two reference turns or more
    are active; None without skip_overlap). Shared by the sweep and the small sweep of a
    step's region (`llgui.core.diarization.small_sweep`)."""
    if collar == 0.0 and overlap is None:
        return uem_s, uem_e
    # pyannote's extrusion: the support of collars and reference overlap, cut from the UEM.
    parts_s, parts_e = [], []
    if collar > 0.0:
        # Centred on every reference boundary (Annotation.itersegments), with pyannote's
        # float expression so that the edges coincide bit for bit. Sorted edges give
        # collars sorted by start.
        edges = np.sort(np.concatenate((ref_starts, ref_ends)))
        parts_s.append(edges - 0.5 * collar)
        parts_e.append(edges + 0.5 * collar)
    if overlap is not None:
        o_s, o_e = _runs(bounds, overlap)
        parts_s.append(o_s)
        parts_e.append(o_e)
    if len(parts_s) == 1:
        keep = (parts_e[0] - parts_s[0]) > SEGMENT_PRECISION
        ex_s, ex_e = _support(parts_s[0][keep], parts_e[0][keep])
    elif parts_s:
        ex_s, ex_e = _support(*_by_start_nonempty(np.concatenate(parts_s),
                                                  np.concatenate(parts_e)))
    else:
        ex_s = ex_e = np.empty(0)
    cut_s, cut_e = _intersect(ex_s, ex_e, uem_s, uem_e)
    return _gaps_within(uem_s, uem_e, cut_s, cut_e)


def _make_sweep(reference: Sequence[Turn], hypothesis: Sequence[Turn], uem, collar: float,
                skip_overlap: bool) -> _Sweep:
    if not collar >= 0:
        raise ValueError(f"collar must be >= 0 seconds, not {collar!r}")
    ref = _turns(reference)
    hyp = _turns(hypothesis)
    uem_s, uem_e, given = _uem_used(ref, hyp, uem)

    turn_times = np.concatenate((ref.starts, ref.ends, hyp.starts, hyp.ends))
    bounds, position = np.unique(turn_times, return_inverse=True)
    nb = bounds.size
    n_ref, n_hyp = len(ref.names), len(hyp.names)
    width = n_ref + n_hyp
    # One cumulative sum gives every label's number of active turns on every interval; the
    # layout is label-major so that the sum runs along contiguous memory.
    rows = np.concatenate((ref.labels, ref.labels, hyp.labels + n_ref, hyp.labels + n_ref))
    nr_t, nh_t = ref.starts.size, hyp.starts.size
    sign = np.concatenate((np.ones(nr_t), -np.ones(nr_t), np.ones(nh_t), -np.ones(nh_t)))
    flat = rows * nb + position
    # Small integers held exactly in floats: no conversion before the products below.
    counts = np.bincount(flat, weights=sign, minlength=width * nb).reshape(width, nb)
    np.cumsum(counts, axis=1, out=counts)
    ref_c, hyp_c = counts[:n_ref, :-1], counts[n_ref:, :-1]

    overlap = None
    if skip_overlap:
        overlap = ref_c.sum(axis=0) >= 2 if nb else np.zeros(0, dtype=bool)
    sc_s, sc_e = scored_spans(uem_s, uem_e, ref.starts, ref.ends, collar, bounds, overlap)
    piece_s, piece_e, piece_k = _intersect(bounds[:-1], bounds[1:], sc_s, sc_e,
                                           with_index=True, shortest=0.0)
    length = piece_e - piece_s
    n = max(nb - 1, 0)
    w_all = np.bincount(piece_k, weights=length, minlength=n)
    kept = length > SEGMENT_PRECISION
    piece_s, piece_e, piece_k = piece_s[kept], piece_e[kept], piece_k[kept]
    w = np.bincount(piece_k, weights=length[kept], minlength=n)
    return _Sweep(
        ref_turns=ref, hyp_turns=hyp, bounds=bounds, w=w, w_all=w_all, ref=ref_c, hyp=hyp_c,
        piece_start=piece_s, piece_end=piece_e, piece_interval=piece_k,
        ref_present=np.flatnonzero(ref_c @ w > 0),
        hyp_present=np.flatnonzero(hyp_c @ w > 0),
        uem_used=tuple(zip(uem_s.tolist(), uem_e.tolist())), uem_given=given,
        scored_start=sc_s, scored_end=sc_e,
    )
