"""Clipped n-gram match counts of every segment of a file at once (BLEU and chrF).

`llgui.core.mt.ngram_fast` counts one segment's n-grams in a few dozen small numpy calls
(2-5 us each): 500 segments pay them 500 times, which was most of a campaign cell. Here the
segments of a file are one concatenated id sequence (a 0 after each segment, so no n-gram
crosses a boundary) and each step is one numpy call over the whole file.

The references' distinct symbols are ids 1..V (0: a symbol no reference has). An n-gram of
order n has an id in its order: by default (`Plain`) the base-(V+1) number of its symbol ids,
computed with no lookup, and -1 where it holds an unknown symbol or a break. An n-gram of
segment s (rank k of its references, order slot j) is then the key k x SPAN + offset_j +
s x D_j + id (`KeySpace`: D_j the room of slot j's ids, offset_j the room of the slots
before, SPAN the room of one rank). With a large alphabet or vocabulary the plain ids of a
file would not fit in int64 (ranks x segments x sum of D_j >= 2^62), and the family with the
widest moves to *dense* ids built order by order (`Ladder`): an n-gram of order n is the pair
(dense id of its first n-1 symbols, id of its last), the sorted distinct pairs of the
references' n-grams of order n give its dense id, and a hypothesis n-gram whose pair is not
among them (no reference n-gram of any segment equals it) gets -1. Where even that does not
fit (about 2 x 10^9 reference symbols), the caller keeps its per-segment path (`index`).

Matching is a sort of the hypothesis keys and one merge pass with the sorted reference keys
(compiled by numba; without numba one `searchsorted`), a `minimum` of the hits with the
reference counts (sacrebleu's `min(hyp_count, ref_count)` per distinct n-gram) and one
weighted `bincount` into (rank, segment, order) cells (`Table.matches`).

Tokenisation, preprocessing and the metrics' rules stay sacrebleu's (`llgui.core.mt.batch_stats`
applies them); tests/core/mt/test_batch_stats.py holds the rows equal to sacrebleu's own.
"""
from __future__ import annotations

from itertools import repeat
from typing import Mapping, Sequence

import numpy as np

from llgui.core.mt.ngram_fast import code_points

_KEY_LIMIT = 1 << 62


def fits(value: int) -> bool:
    """Whether keys below `value` (a Python int) fit in int64 with room for the sign."""
    return value < _KEY_LIMIT


# -- symbol streams ------------------------------------------------------------------------------


class Stream:
    """Symbols of many segments as one sequence: `ids` (int64; 0 = unknown or the break after
    each segment), `seg` (the segment of each position) and `lens` (symbols per segment part,
    in the order given)."""

    __slots__ = ("ids", "seg", "lens")

    def __init__(self, ids: np.ndarray, seg: np.ndarray, lens: np.ndarray) -> None:
        self.ids, self.seg, self.lens = ids, seg, lens


def _segments_of(lens: np.ndarray, segments: Sequence[int] | None) -> np.ndarray:
    """Segment number of every position (each part and the break after it)."""
    owners = np.arange(lens.size) if segments is None else np.asarray(segments, np.int64)
    return np.repeat(owners.astype(np.int64, copy=False), lens + 1)


def word_stream(token_lists: Sequence[Sequence[str]], vocab: Mapping[str, int],
                segments: Sequence[int] | None = None) -> Stream:
    """Token lists as one id stream (`vocab` ids, 0 for unknown tokens); `segments` numbers
    the parts (default 0, 1, ...)."""
    flat: list = []
    for tokens in token_lists:
        flat.extend(tokens)
        flat.append(None)  # the break: no vocabulary holds None
    ids = np.fromiter(map(vocab.get, flat, repeat(0)), np.int64, len(flat))
    lens = np.fromiter(map(len, token_lists), np.int64, len(token_lists))
    return Stream(ids, _segments_of(lens, segments), lens)


def char_stream(texts: Sequence[str], alphabet: np.ndarray,
                segments: Sequence[int] | None = None) -> Stream:
    """Texts as one stream of character ids (alphabet[k] has id k + 1; 0 for characters not
    in `alphabet`), one id per Python character as `code_points` reads them."""
    lens = np.fromiter(map(len, texts), np.int64, len(texts))
    points = code_points("\n".join(texts) + "\n") if texts else np.zeros(0, "<u4")
    if alphabet.size:
        where = np.searchsorted(alphabet, points)
        where[where == alphabet.size] = 0
        ids = np.where(alphabet[where] == points, where + 1, 0).astype(np.int64)
    else:
        ids = np.zeros(points.size, dtype=np.int64)
    ids[np.cumsum(lens + 1) - 1] = 0  # the breaks, whatever character joined the texts
    return Stream(ids, _segments_of(lens, segments), lens)


def totals(lens: np.ndarray, order: int) -> np.ndarray:
    """n-grams of orders 1..order in sequences of `lens` symbols, shape lens.shape + (order,)."""
    lens = np.asarray(lens, dtype=np.int64)
    return np.maximum(lens[..., None] - np.arange(order), 0)


# -- dense n-gram ids ------------------------------------------------------------------------------


class Ladder:
    """The references' n-grams of orders 1..order as dense ids: order 1's id is the symbol id
    minus 1 (0..V-1); order n's are the indexes of `pairs[n-2]`, the sorted distinct
    (dense id of the first n-1 symbols) x V + (last symbol id - 1) of the references."""

    __slots__ = ("size", "pairs")

    def __init__(self, size: int, pairs: list[np.ndarray]) -> None:
        self.size, self.pairs = size, pairs

    @property
    def sizes(self) -> list[int]:
        """Distinct reference n-grams of each order (the room of its dense ids)."""
        return [self.size] + [p.size for p in self.pairs]

    @classmethod
    def of_references(cls, ids: np.ndarray, order: int, size: int
                      ) -> "tuple[Ladder, list[np.ndarray]] | None":
        """(ladder, dense ids of every order of `ids`) for a reference stream whose symbols
        are 1..`size`; None where a pair would not fit in int64."""
        dense = [ids - 1] if order else []
        pairs: list[np.ndarray] = []
        for n in range(2, order + 1):
            prev = dense[-1]
            if not fits(max(prev.max(initial=0) + 1, 1) * size):
                return None
            key, ok = _pairs(prev, ids, n, size)
            unique, inverse = np.unique(key[ok], return_inverse=True)
            out = np.full(key.size, -1, dtype=np.int64)
            out[ok] = inverse.reshape(-1)
            pairs.append(unique)
            dense.append(out)
        return cls(size, pairs), dense

    def dense(self, ids: np.ndarray, order: int) -> list[np.ndarray]:
        """Dense ids of every n-gram of orders 1..order of `ids`, -1 where the n-gram is
        no reference's (or holds an unknown symbol or a break)."""
        dense = [ids - 1] if order else []
        for n in range(2, order + 1):
            key, ok = _pairs(dense[-1], ids, n, self.size)
            known = self.pairs[n - 2]
            out = np.full(key.size, -1, dtype=np.int64)
            if known.size and ok.any():
                at = np.flatnonzero(ok)
                wanted = key[at]
                where = np.searchsorted(known, wanted)
                where[where == known.size] = 0
                hit = known[where] == wanted
                out[at[hit]] = where[hit]
            dense.append(out)
        return dense


class Plain:
    """n-grams as base-(V+1) numbers of their symbol ids (as `ngram_fast.keys`), with -1 for
    one holding an unknown symbol or a break: no lookup at all, where the key space of the
    file fits in int64 (a small alphabet, or few segments)."""

    __slots__ = ("size", "order")

    def __init__(self, size: int, order: int) -> None:
        self.size, self.order = size, order

    @property
    def sizes(self) -> list[int]:
        return [(self.size + 1) ** n for n in range(1, self.order + 1)]

    def dense(self, ids: np.ndarray, order: int) -> list[np.ndarray]:
        if not order:
            return []
        base = self.size + 1
        unknown = ids == 0
        key, bad = ids, unknown
        out = [np.where(bad, -1, key)]
        for n in range(2, order + 1):
            key = key[:-1] * base + ids[n - 1:]
            bad = bad[:-1] | unknown[n - 1:]
            out.append(np.where(bad, -1, key))
        return out


def index(families: Sequence[tuple[np.ndarray, int, int]], n_segments: int, ranks: int
          ) -> "tuple[list, list[list[np.ndarray]], KeySpace] | None":
    """Indexers (`Plain` or `Ladder`) of symbol families given as (reference ids, order,
    alphabet size), the dense ids of the references' n-grams of each, and the key space of
    all their slots; None where no choice fits in int64. Plain keys come first (no lookup);
    the family with the widest ones moves to a ladder until the space fits."""
    indexers: list = [Plain(size, order) for _, order, size in families]
    ladder_ids: dict[int, list[np.ndarray]] = {}
    while True:
        space = KeySpace([s for c in indexers for s in c.sizes], n_segments)
        if space.fits(ranks):
            break
        plain = [k for k, c in enumerate(indexers) if isinstance(c, Plain) and c.order]
        if not plain:
            return None
        widest = max(plain, key=lambda k: indexers[k].sizes[-1])
        ids, order, size = families[widest]
        built = Ladder.of_references(ids, order, size)
        if built is None:
            return None
        indexers[widest], ladder_ids[widest] = built
    dense = [ladder_ids[k] if k in ladder_ids else c.dense(families[k][0], families[k][1])
             for k, c in enumerate(indexers)]
    return indexers, dense, space


def _pairs(prev: np.ndarray, ids: np.ndarray, n: int, size: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Keys (dense id of the first n-1 symbols) x size + (last id - 1) of the n-grams starting
    at each position, and where both parts are known."""
    head, last = prev[:-1], ids[n - 1:]
    ok = (head >= 0) & (last > 0)
    return head * size + (last - 1), ok


# -- keys over segments and ranks ------------------------------------------------------------------


class KeySpace:
    """Keys of (rank, segment, order slot, dense id): k x span + offsets[j] + s x sizes[j] + d.

    Slots are the statistics' orders in their order (BLEU: word orders 1..N; chrF: character
    orders, then word orders); `sizes[j]` is the number of dense ids of slot j."""

    __slots__ = ("sizes", "n_segments", "offsets", "span")

    def __init__(self, sizes: Sequence[int], n_segments: int) -> None:
        self.sizes = [int(s) for s in sizes]
        self.n_segments = n_segments
        room = [n_segments * s for s in self.sizes]
        self.offsets = [sum(room[:j]) for j in range(len(room))]
        self.span = sum(room)

    @property
    def slots(self) -> int:
        return len(self.sizes)

    def fits(self, ranks: int) -> bool:
        return fits(max(ranks, 1) * max(self.span, 1))

    def keys(self, dense: Sequence[tuple[np.ndarray, np.ndarray]], rank: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """(keys, cells) of the known n-grams: `dense` holds each slot's (dense ids, segment of
        each position); `rank` (per position, references only) the reference's rank. A cell
        is (rank x segments + segment) x slots + slot."""
        keys, cells = [], []
        for j, (ids, seg) in enumerate(dense):
            at = np.flatnonzero(ids >= 0)
            s = seg[at]
            key = self.offsets[j] + s * self.sizes[j] + ids[at]
            cell = s * self.slots + j
            if rank is not None:
                r = rank[at]
                key += r * self.span
                cell += r * (self.n_segments * self.slots)
            keys.append(key)
            cells.append(cell)
        if not keys:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(keys), np.concatenate(cells)


class Table:
    """Sorted distinct reference keys, their counts and their (rank, segment, slot) cells."""

    __slots__ = ("keys", "counts", "cells")

    def __init__(self, keys: np.ndarray, counts: np.ndarray, cells: np.ndarray) -> None:
        self.keys, self.counts, self.cells = keys, counts, cells

    @classmethod
    def count(cls, keys: np.ndarray, cells: np.ndarray) -> "Table":
        unique, first, counts = np.unique(keys, return_index=True, return_counts=True)
        return cls(unique, counts.astype(np.int64), cells[first])

    def most_over_ranks(self, space: KeySpace) -> "Table":
        """Each (segment, n-gram) with its largest count over the ranks (BLEU's clipping
        against several references), keyed as rank 0."""
        keys = self.keys % max(space.span, 1)
        cells = self.cells % (space.n_segments * space.slots)
        order = np.lexsort((self.counts, keys))
        keys, counts, cells = keys[order], self.counts[order], cells[order]
        last = np.ones(keys.size, dtype=bool)
        last[:-1] = keys[1:] != keys[:-1]
        return Table(keys[last], counts[last], cells[last])

    def matches(self, hyp_keys: np.ndarray, n_cells: int) -> np.ndarray:
        """Per cell, the sum over distinct n-grams of min(count among `hyp_keys`, count
        here): shape (n_cells,), int64."""
        if self.keys.size == 0 or hyp_keys.size == 0:
            return np.zeros(n_cells, dtype=np.int64)
        merge = _merge_kernel()
        if merge is not None:
            found = np.zeros(self.keys.size, dtype=np.int64)
            merge(self.keys, np.sort(hyp_keys), found)
        else:
            where = np.searchsorted(self.keys, hyp_keys)
            where[where == self.keys.size] = 0
            found = np.bincount(where[self.keys[where] == hyp_keys], minlength=self.keys.size)
        clipped = np.minimum(found, self.counts)
        return np.bincount(self.cells, weights=clipped, minlength=n_cells).astype(np.int64)


def _count_sorted(table, keys, found):  # pragma: no cover - compiled by numba
    """found[t] += 1 for each key equal to table[t], both arrays sorted: one merge pass.
    A chrF cell's 180,000 keys: sorting them and this pass take half the time of numpy's
    `searchsorted` of the unsorted keys (a binary search per key, each step a cache miss or
    a mispredicted branch)."""
    t = 0
    n = table.shape[0]
    for i in range(keys.shape[0]):
        q = keys[i]
        while t < n and table[t] < q:
            t += 1
        if t == n:
            break
        if table[t] == q:
            found[t] += 1


_KERNEL: list = []


def _merge_kernel():
    """`_count_sorted` compiled by numba (cached on disk), or None without numba: the caller
    then searches the table with numpy (the same counts)."""
    if not _KERNEL:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a dependency
            _KERNEL.append(None)
        else:
            _KERNEL.append(numba.njit(cache=True, nogil=True)(_count_sorted))
    return _KERNEL[0]
