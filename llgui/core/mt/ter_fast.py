"""Exact TER edit counts, compiled: sacrebleu's `lib_ter` algorithm in numba nopython mode.

sacrebleu's TER (`sacrebleu/metrics/lib_ter.py`, 2.4-2.6) is a greedy shift search around a
beam edit distance, in pure Python: about 0.2 s for a 40-word sentence and seconds for a
400-word one. This module runs the very same algorithm on integer token ids:

- the same constants: shifts of at most 10 words (`_MAX_SHIFT_SIZE`), at most 50 positions
  between the hypothesis and reference starts (`_MAX_SHIFT_DIST`), a beam of 25 cells around
  the pseudo-diagonal widened for very unequal lengths (`_BEAM_WIDTH`), unit costs, and the
  budget of 1000 shift candidates per segment (`_MAX_SHIFT_CANDIDATES`) after which the
  search stops *without* applying the best shift found in that round, as sacrebleu does;
- the same tie-breaking: within a cell, match/substitution before deletion before insertion
  (strict `>`), the trace read back from the end, flipped and turned into the alignment;
  among shifts, the largest gain, then the longest, then the earliest in the hypothesis, then
  the earliest target position (sacrebleu's candidate tuple);
- the same enumeration order of (hypothesis start, reference start, length) pairs and of target
  positions, the same filters (no shift of a span with no error, onto a span with no error, or
  within itself).

sacrebleu memoises edit-distance rows in a trie of hypothesis prefixes; here the rows of the
current hypothesis are kept in a matrix and a candidate recomputes only the rows after its
first differing word. Rows depend only on the hypothesis prefix (all candidates of a segment
have the same length, hence the same beam), so this changes the cost, never the result.

Tokenisation, normalisation and case stay sacrebleu's (`TercomTokenizer` through the metric's
`_preprocess_segment`); only the per-pair edit computation is compiled, on tokens mapped to
ids per sentence pair. `tests/core/mt/test_ter_fast.py` holds the counts equal to sacrebleu's on
random sequences with repeats and shifts for every option. Where numba is missing, or a
segment is too large for the matrix (`MAX_CELLS`), sacrebleu's own function computes it.
The compiled functions are cached on disk by numba (`cache=True`): the first call in a fresh
environment compiles them (seconds), later processes load them (well under a second).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

_COST = 1  # insertion, deletion, substitution and shift all cost 1 (sacrebleu, tercom)
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000
_INF = 10 ** 16  # sacrebleu's _INT_INFINITY: cells outside the beam

_NOP, _SUB, _INS, _DEL, _UNDEF = 0, 1, 2, 3, 4

MAX_CELLS = 20_000_000
"""Largest (hyp words + 1) x (ref words + 1) matrix computed here (about 180 MB); beyond it
sacrebleu computes the segment."""

try:  # numba is a dependency, but a platform without its wheels still gets exact TER
    import numba
except ImportError:  # pragma: no cover - exercised only where numba is absent
    numba = None


def _njit(fn):
    return numba.njit(cache=True, nogil=True)(fn) if numba is not None else fn


@_njit
def _fill_row(i, word, ref, prev, cur, n_h, n_r, ratio, beam):
    """Row i of the beam edit distance into `cur` (costs) from row i-1 in `prev`. Cells
    outside the beam must already be _INF in `cur`. Returns the written column range (lo, hi)
    and a lower bound of the final distance: min over the row of cost + |rows left - columns
    left| (every path crosses the row, costs only grow, and each unmatched length costs 1)."""
    diag = math.floor(i * ratio)
    lo = max(0, diag - beam)
    hi = min(n_r + 1, diag + beam)
    if i == n_h:
        hi = n_r + 1
    bound = _INF
    rows_left = n_h - i
    for j in range(lo, hi):
        if j == 0:
            best = prev[0] + _COST
        else:
            best = _INF
            c = prev[j - 1] + (0 if word == ref[j - 1] else _COST)
            if best > c:
                best = c
            c = prev[j] + _COST
            if best > c:
                best = c
            c = cur[j - 1] + _COST
            if best > c:
                best = c
        cur[j] = best
        c = best + abs(rows_left - (n_r - j))
        if c < bound:
            bound = c
    return lo, hi, bound


@_njit
def _fill_rows_with_ops(words, ref, cost, ops, start, n_h, n_r, ratio, beam):
    """Rows start+1..n_h of the matrix (cost, ops), rows up to `start` kept."""
    for i in range(start + 1, n_h + 1):
        for j in range(n_r + 1):
            cost[i, j] = _INF
            ops[i, j] = _UNDEF
        diag = math.floor(i * ratio)
        lo = max(0, diag - beam)
        hi = min(n_r + 1, diag + beam)
        if i == n_h:
            hi = n_r + 1
        word = words[i - 1]
        for j in range(lo, hi):
            if j == 0:
                cost[i, 0] = cost[i - 1, 0] + _COST
                ops[i, 0] = _DEL
                continue
            best = _INF
            op = _UNDEF
            if word == ref[j - 1]:
                c = cost[i - 1, j - 1]
                o = _NOP
            else:
                c = cost[i - 1, j - 1] + _COST
                o = _SUB
            if best > c:
                best = c
                op = o
            c = cost[i - 1, j] + _COST
            if best > c:
                best = c
                op = _DEL
            c = cost[i, j - 1] + _COST
            if best > c:
                best = c
                op = _INS
            cost[i, j] = best
            ops[i, j] = op


@_njit
def _alignment(ops, n_h, n_r, align, hyp_err, ref_err, trace):
    """sacrebleu's flipped trace -> (align, ref_err, hyp_err). False if the trace meets an
    undefined cell (sacrebleu raises there)."""
    i = n_h
    j = n_r
    k = 0
    while i > 0 or j > 0:
        op = ops[i, j]
        trace[k] = op
        k += 1
        if op == _SUB or op == _NOP:
            i -= 1
            j -= 1
        elif op == _INS:
            j -= 1
        elif op == _DEL:
            i -= 1
        else:
            return False
    pos_h = -1
    pos_r = -1
    for m in range(k - 1, -1, -1):
        op = trace[m]
        if op == _NOP or op == _SUB:
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            e = 1 if op == _SUB else 0
            hyp_err[pos_h] = e
            ref_err[pos_r] = e
        elif op == _DEL:  # flipped to an insertion: a hypothesis word with no reference word
            pos_h += 1
            hyp_err[pos_h] = 1
        else:  # _INS flipped to a deletion: a reference word with no hypothesis word
            pos_r += 1
            align[pos_r] = pos_h
            ref_err[pos_r] = 1
    return True


@_njit
def _perform_shift(words, start, length, target, out):
    """sacrebleu's _perform_shift with Python's slice clamping, into `out`."""
    n = words.shape[0]
    k = 0
    if target < start:
        for m in range(0, target):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start, start + length):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(target, start):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start + length, n):
            out[k] = words[m]; k += 1  # noqa: E702
    elif target > start + length:
        for m in range(0, start):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start + length, target):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start, start + length):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(target, n):
            out[k] = words[m]; k += 1  # noqa: E702
    else:
        cut = min(n, length + target)
        for m in range(0, start):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start + length, cut):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(start, start + length):
            out[k] = words[m]; k += 1  # noqa: E702
        for m in range(cut, n):
            out[k] = words[m]; k += 1  # noqa: E702
    return k


@_njit
def _candidate_cost(shifted, base, ref, cost, bufs, n_h, n_r, ratio, beam, limit):
    """Edit distance of `shifted`, reusing the rows of `base` up to their common prefix; -1
    as soon as a lower bound shows it exceeds `limit` (the candidate cannot be chosen).
    `bufs` (2, n_r + 1) holds two scratch rows, all _INF on entry and on return."""
    p = 0
    while p < n_h and shifted[p] == base[p]:
        p += 1
    if p == n_h:
        return cost[n_h, n_r]
    prev = cost[p]
    lo0 = hi0 = lo1 = hi1 = 0  # the written range of each scratch row
    w = 0
    result = _INF
    for i in range(p + 1, n_h + 1):
        cur = bufs[w]
        if w == 0:  # `cur` must be _INF outside the range about to be written
            cur[lo0:hi0] = _INF
            lo0, hi0, bound = _fill_row(i, shifted[i - 1], ref, prev, cur, n_h, n_r, ratio, beam)
        else:
            cur[lo1:hi1] = _INF
            lo1, hi1, bound = _fill_row(i, shifted[i - 1], ref, prev, cur, n_h, n_r, ratio, beam)
        if bound > limit:
            result = -1
            break
        if i == n_h:
            result = cur[n_r]
        prev = cur
        w = 1 - w
    bufs[0, lo0:hi0] = _INF
    bufs[1, lo1:hi1] = _INF
    return result


@_njit
def _ter_edits(hyp, ref):
    """Number of TER edits (shifts + edit distance) of `hyp` against `ref` (int64 token ids,
    both non-empty), exactly as sacrebleu's `translation_edit_rate`; -1 where sacrebleu would
    raise (the trace leaves the beam)."""
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    ratio = n_r / n_h
    beam = _BEAM_WIDTH
    if _BEAM_WIDTH < ratio / 2:
        beam = math.ceil(ratio / 2 + _BEAM_WIDTH)

    base = hyp.copy()
    shifted = np.empty(n_h, dtype=np.int64)
    cost = np.full((n_h + 1, n_r + 1), _INF, dtype=np.int64)
    ops = np.full((n_h + 1, n_r + 1), _UNDEF, dtype=np.int8)
    for j in range(n_r + 1):
        cost[0, j] = j * _COST
        ops[0, j] = _INS
    _fill_rows_with_ops(base, ref, cost, ops, 0, n_h, n_r, ratio, beam)
    bufs = np.full((2, n_r + 1), _INF, dtype=np.int64)
    align = np.zeros(n_r, dtype=np.int64)
    hyp_err = np.zeros(n_h, dtype=np.int64)
    ref_err = np.zeros(n_r, dtype=np.int64)
    trace = np.empty(n_h + n_r, dtype=np.int8)

    shifts = 0
    checked = 0
    while True:
        pre_score = cost[n_h, n_r]
        if not _alignment(ops, n_h, n_r, align, hyp_err, ref_err, trace):
            return -1
        found = False
        b_gain = 0
        b_len = 0
        b_start = 0
        b_idx = 0
        stop = False
        for start_h in range(n_h):
            if stop:
                break
            for start_r in range(n_r):
                if stop:
                    break
                if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                    continue
                length = 0
                while base[start_h + length] == ref[start_r + length] and length < _MAX_SHIFT_SIZE:
                    length += 1
                    # the pair (start_h, start_r, length), as _find_shifted_pairs yields it
                    usable = False
                    for m in range(start_h, start_h + length):
                        if hyp_err[m] != 0:
                            usable = True
                    if usable:
                        usable = False
                        for m in range(start_r, start_r + length):
                            if ref_err[m] != 0:
                                usable = True
                    if usable and start_h <= align[start_r] < start_h + length:
                        usable = False
                    if usable:
                        prev_idx = -1
                        for offset in range(-1, length):
                            if start_r + offset == -1:
                                idx = 0
                            else:
                                idx = align[start_r + offset] + 1
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            _perform_shift(base, start_h, length, idx, shifted)
                            # Only a candidate that gains at least 1 and at least the best
                            # gain so far can change the outcome (a best gain <= 0 means no
                            # shift, whichever candidate it is): the others are counted, as
                            # sacrebleu counts them, but need not be computed to the end.
                            need = b_gain if found and b_gain > 1 else 1
                            c = _candidate_cost(shifted, base, ref, cost, bufs, n_h, n_r,
                                                ratio, beam, pre_score - need)
                            checked += 1
                            if c < 0:
                                continue
                            gain = pre_score - c
                            # (gain, length, -start_h, -idx) > best, lexicographically
                            better = not found
                            if not better:
                                if gain != b_gain:
                                    better = gain > b_gain
                                elif length != b_len:
                                    better = length > b_len
                                elif start_h != b_start:
                                    better = start_h < b_start
                                else:
                                    better = idx < b_idx
                            if better:
                                found = True
                                b_gain = gain
                                b_len = length
                                b_start = start_h
                                b_idx = idx
                        if checked >= _MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    if n_h == start_h + length or n_r == start_r + length:
                        break
        if checked >= _MAX_SHIFT_CANDIDATES:
            break  # sacrebleu stops here without applying the round's best shift
        if not found or b_gain <= 0:
            break
        shifts += 1
        _perform_shift(base, b_start, b_len, b_idx, shifted)
        p = 0
        while p < n_h and shifted[p] == base[p]:
            p += 1
        base[:] = shifted
        _fill_rows_with_ops(base, ref, cost, ops, p, n_h, n_r, ratio, beam)
    return shifts + cost[n_h, n_r]


@_njit
def _edits_of_pairs(hyp, hyp_starts, ref, ref_starts, pair_h, pair_r, max_cells, out):
    """`_ter_edits` of each pair (hypothesis segment, reference) of a file, -1 where a side
    is empty or the matrix would pass `max_cells` (the caller computes those)."""
    for p in range(pair_h.shape[0]):
        a = hyp_starts[pair_h[p]]
        b = hyp_starts[pair_h[p] + 1]
        c = ref_starts[pair_r[p]]
        d = ref_starts[pair_r[p] + 1]
        if a == b or c == d or (b - a + 1) * (d - c + 1) > max_cells:
            out[p] = -1
        else:
            out[p] = _ter_edits(hyp[a:b], ref[c:d])


def edits_of_pairs(hyp: np.ndarray, hyp_starts: np.ndarray, ref: np.ndarray,
                   ref_starts: np.ndarray, pair_h: np.ndarray, pair_r: np.ndarray) -> np.ndarray:
    """TER edits of many pairs in one compiled call: a file's segments cost one call, not one
    per pair (the call and the id mapping were most of the time of a short sentence).

    `hyp` and `ref` are token ids of one vocabulary (only their equality matters to the
    algorithm), segment h's tokens hyp[hyp_starts[h]:hyp_starts[h + 1]], reference r's
    likewise; pair p is (pair_h[p], pair_r[p]). -1 where this engine cannot give the count
    (an empty side, a matrix past MAX_CELLS, a trace that leaves the beam, no numba): the
    caller then calls `translation_edit_rate`, which has the library's answer for each."""
    out = np.full(pair_h.size, -1, dtype=np.int64)
    if numba is not None and pair_h.size:
        _edits_of_pairs(hyp, hyp_starts, ref, ref_starts, pair_h, pair_r, MAX_CELLS, out)
    return out


def available() -> bool:
    """True where the compiled engine runs (numba importable)."""
    return numba is not None


def _ids(words_hyp: Sequence[str], words_ref: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    table: dict[str, int] = {}
    hyp = np.fromiter((table.setdefault(w, len(table)) for w in words_hyp), np.int64,
                      len(words_hyp))
    ref = np.fromiter((table.setdefault(w, len(table)) for w in words_ref), np.int64,
                      len(words_ref))
    return hyp, ref


def translation_edit_rate(words_hyp: Sequence[str], words_ref: Sequence[str]) -> tuple[int, int]:
    """(edits, reference length) of one tokenised pair: sacrebleu's `translation_edit_rate`,
    compiled where possible, with the same result."""
    n_h, n_r = len(words_hyp), len(words_ref)
    if n_r == 0:
        return n_h, 0
    if n_h == 0:
        return n_r, n_r  # no row to compute: every reference word is inserted
    if numba is not None and (n_h + 1) * (n_r + 1) <= MAX_CELLS:
        edits = int(_ter_edits(*_ids(words_hyp, words_ref)))
        if edits >= 0:
            return edits, n_r
    from sacrebleu.metrics.lib_ter import translation_edit_rate as library

    return library(list(words_hyp), list(words_ref))


def segment_statistics(words_hyp: Sequence[str], refs_words: Sequence[Sequence[str]]) -> list[float]:
    """[best edits, average reference length] over several tokenised references: sacrebleu's
    `TER._compute_segment_statistics` on already split words."""
    best = int(1e16)
    total = 0
    for words_ref in refs_words:
        edits, n_ref = translation_edit_rate(words_hyp, words_ref)
        total += n_ref
        if edits < best:
            best = edits
    return [best, total / len(refs_words)]
