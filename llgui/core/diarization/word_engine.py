"""cpWER and tcpWER distances that follow a hypothesis changing in places.

meeteval's cpWER (tcpWER) is the minimum over one-to-one assignments of reference to
hypothesis speakers of the summed Levenshtein distances (time-constrained distances) between
each reference speaker's words, concatenated in time order, and its hypothesis speaker's; the
unassigned speakers count their words as deletions or insertions (distance to an empty
stream). A penalised step relabels the words inside a few windows, so only the streams of the
labels concerned change, and each only over a run of consecutive positions.

`PairDistance` keeps, for one (reference speaker, hypothesis speaker) pair, the rows of the
dynamic programme every `STRIDE` hypothesis words (further apart for very long streams), both forwards (d(A[:k], B[:j])) and
backwards (d(A[k:], B[j:])). The distance of B with positions [i, j) replaced by M is then

    min_k  H[k] + G[k],  H = the forward rows from the checkpoint at or before i run over
                          B[checkpoint:i] + M + B[j:next checkpoint], G = the backward row
                          at the next checkpoint at or after j,

an exact identity of the edit distance (any alignment splits the reference at one point where
the prefix meets the suffix), at a cost of about (2 STRIDE + len(M)) x len(A) cells instead of
len(A) x len(B). The cells are meeteval's own recurrence (`levenshtein.h`): a substitution or
match of reference word k and hypothesis word j is allowed when their intervals overlap
strictly (`a.start < b.end and a.end > b.start`) in the time-constrained case, always
otherwise; insertions and deletions cost 1. The assignment is scipy's `linear_sum_assignment`
on the same padded matrix as meeteval's, so the summed distance (the errors) is the same.
Tests hold every distance and score equal to meeteval on random meetings.
"""
from __future__ import annotations

import numpy as np

try:  # numba is a dependency; the loops also run (slowly) as plain Python without it
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

STRIDE = 32
"""Hypothesis words between two stored rows (memory: 2 len(A) len(B) / STRIDE int32)."""
MAX_STORED = 1 << 22
"""Cells of stored rows per direction and pair (16 MiB): longer streams store rows further
apart (a 10-hour show keeps its memory, and a step costs a few more rows)."""


@njit(cache=True, nogil=True)
def _forward(row, a_tok, a_start, a_end, b_tok, b_start, b_end, timed, keep_every, kept):
    """Run the forward rows of `row` (d(A[:k], prefix)) over the words of B; every
    `keep_every` words (0: never) store the row in `kept` (from its row 1). Returns the last
    row (a new array)."""
    n = a_tok.shape[0]
    cur = row.copy()
    new = np.empty(n + 1, np.int32)
    m = b_tok.shape[0]
    stored = 1
    for j in range(m):
        new[0] = cur[0] + 1
        bt, bs, be = b_tok[j], b_start[j], b_end[j]
        for k in range(1, n + 1):
            v = cur[k] + 1
            w = new[k - 1] + 1
            if w < v:
                v = w
            if (not timed) or (a_start[k - 1] < be and a_end[k - 1] > bs):
                c = cur[k - 1] + (0 if a_tok[k - 1] == bt else 1)
                if c < v:
                    v = c
            new[k] = v
        cur, new = new, cur
        if keep_every > 0 and (j + 1) % keep_every == 0:
            kept[stored, :] = cur
            stored += 1
    return cur


@njit(cache=True, nogil=True)
def _backward(a_tok, a_start, a_end, b_tok, b_start, b_end, timed, keep_every, kept):
    """Backward rows G_j[k] = d(A[k:], B[j:]) from j = len(B) down to 0; stores G_j in
    `kept[j // keep_every]` for j a multiple of `keep_every`, and G_len(B) in kept[-1]."""
    n = a_tok.shape[0]
    m = b_tok.shape[0]
    cur = np.empty(n + 1, np.int32)
    for k in range(n + 1):
        cur[k] = n - k
    new = np.empty(n + 1, np.int32)
    kept[kept.shape[0] - 1, :] = cur
    if m % keep_every == 0:
        kept[m // keep_every, :] = cur
    for j in range(m - 1, -1, -1):
        new[n] = cur[n] + 1
        bt, bs, be = b_tok[j], b_start[j], b_end[j]
        for k in range(n - 1, -1, -1):
            v = cur[k] + 1
            w = new[k + 1] + 1
            if w < v:
                v = w
            if (not timed) or (a_start[k] < be and a_end[k] > bs):
                c = cur[k + 1] + (0 if a_tok[k] == bt else 1)
                if c < v:
                    v = c
            new[k] = v
        cur, new = new, cur
        if j % keep_every == 0:
            kept[j // keep_every, :] = cur
    return cur


@njit(cache=True, nogil=True)
def _min_sum(h, g):
    best = h[0] + g[0]
    for k in range(1, h.shape[0]):
        v = h[k] + g[k]
        if v < best:
            best = v
    return best


class Stream:
    """One speaker's words in concatenation order: token ids, intervals (the hypothesis'
    already widened by the collar) and each word's key (its index in the document's list)."""

    __slots__ = ("tokens", "starts", "ends", "keys")

    def __init__(self, tokens, starts, ends, keys):
        self.tokens = np.ascontiguousarray(tokens, dtype=np.int64)
        self.starts = np.ascontiguousarray(starts, dtype=np.float64)
        self.ends = np.ascontiguousarray(ends, dtype=np.float64)
        self.keys = np.ascontiguousarray(keys, dtype=np.int64)

    def __len__(self) -> int:
        return int(self.tokens.shape[0])

    def take(self, index) -> "Stream":
        return Stream(self.tokens[index], self.starts[index], self.ends[index], self.keys[index])


def concat(*streams: Stream) -> Stream:
    return Stream(np.concatenate([s.tokens for s in streams]),
                  np.concatenate([s.starts for s in streams]),
                  np.concatenate([s.ends for s in streams]),
                  np.concatenate([s.keys for s in streams]))


class PairDistance:
    """The distance of one reference stream A to one hypothesis stream B, with the stored rows
    that give the distance of B changed over a run of positions (see the module)."""

    __slots__ = ("a", "b", "timed", "forward", "backward", "distance", "stride")

    def __init__(self, a: Stream, b: Stream, timed: bool):
        self.a, self.b, self.timed = a, b, timed
        n, m = len(a), len(b)
        self.stride = stride = max(STRIDE, -(-((n + 1) * m) // MAX_STORED))
        n_kept = m // stride + 1
        self.forward = np.empty((n_kept, n + 1), np.int32)
        self.forward[0, :] = np.arange(n + 1, dtype=np.int32)
        last = _forward(self.forward[0], a.tokens, a.starts, a.ends, b.tokens, b.starts,
                        b.ends, timed, stride, self.forward)
        self.backward = np.empty((n_kept + 1, n + 1), np.int32)
        _backward(a.tokens, a.starts, a.ends, b.tokens, b.starts, b.ends, timed, stride,
                  self.backward)
        self.distance = int(last[n])

    def replaced(self, i: int, j: int, middle: Stream) -> int:
        """The distance of A to B[:i] + middle + B[j:]."""
        a, b, stride = self.a, self.b, self.stride
        m = len(b)
        lo = i // stride
        hi_pos = min(-(-j // stride) * stride, m)
        hi = len(self.backward) - 1 if hi_pos == m else hi_pos // stride
        run = concat(b.take(slice(lo * stride, i)), middle, b.take(slice(j, hi_pos)))
        row = _forward(self.forward[lo], a.tokens, a.starts, a.ends, run.tokens, run.starts,
                       run.ends, self.timed, 0, self.forward)
        return int(_min_sum(row, self.backward[hi]))


def distance(a: Stream, b: Stream, timed: bool) -> int:
    """The (time-constrained) Levenshtein distance of two streams, without stored rows."""
    row = np.arange(len(a) + 1, dtype=np.int32)
    last = _forward(row, a.tokens, a.starts, a.ends, b.tokens, b.starts, b.ends, timed, 0,
                    np.empty((1, 1), np.int32))
    return int(last[len(a)])
