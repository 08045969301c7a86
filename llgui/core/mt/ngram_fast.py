"""Exact n-gram match counts for BLEU and chrF with numpy: n-grams as integer keys.

sacrebleu counts a hypothesis' n-grams in Python Counters of tuples or substrings (about a
millisecond for a 400-word segment, per metric). Here each segment's references fix a small
vocabulary (their tokens or characters, ids 1..V); an n-gram of order n becomes the base-(V+1)
number of its ids, so every reference n-gram of order n has a key in [B^(n-1), B^n) and all
orders share one sorted key array. A hypothesis symbol absent from the references gets id 0
and every n-gram containing it the key -1: it can match nothing, which is all sacrebleu's
`min(hyp_count, ref_count)` needs of it. Match counts are then a `searchsorted`, a `bincount`
and a `minimum` (tens of microseconds).

The callers (`llgui.core.mt.stats`) use the library's own preprocessing and whitespace rules and
compute only the clipped match counts here; `tests/core/mt/test_ngram_fast.py` holds the rows equal
to sacrebleu's `_extract_corpus_statistics`. Where the keys would not fit in int64 (B^order >=
2^62: tens of thousands of distinct tokens in one segment), `fits` says so and the caller keeps
sacrebleu's own computation.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

_KEY_LIMIT = 1 << 62


class Table:
    """One reference's n-grams (or several merged): sorted unique keys (k,), their counts (k,)
    and `bounds` (order + 1,): order n's keys are keys[bounds[n-1]:bounds[n]]."""

    __slots__ = ("keys", "counts", "bounds")

    def __init__(self, keys: np.ndarray, counts: np.ndarray, base: int, order: int) -> None:
        self.keys = keys
        self.counts = counts
        self.bounds = np.searchsorted(keys, np.array([base ** n for n in range(order + 1)],
                                                     dtype=np.int64))


def fits(base: int, order: int) -> bool:
    """Whether keys of `order` symbols in `base` fit in int64 (with room for the sign)."""
    return base ** order < _KEY_LIMIT


def keys(ids: np.ndarray, order: int, base: int) -> np.ndarray:
    """Keys of every n-gram of orders 1..order of the id sequence `ids` (int64, 0 = unknown),
    concatenated; an n-gram containing an unknown symbol has key -1."""
    k = ids.astype(np.int64, copy=False)
    unknown = ids == 0
    bad = unknown
    parts, bads = [k], [bad]
    for n in range(2, order + 1):
        if k.size <= 1:
            break
        k = k[:-1] * base + ids[n - 1:]
        bad = bad[:-1] | unknown[n - 1:]
        parts.append(k)
        bads.append(bad)
    out = np.concatenate(parts)
    out[np.concatenate(bads)] = -1
    return out


def table(ids: np.ndarray, order: int, base: int) -> Table:
    """The n-gram table of one reference (every id known, i.e. >= 1)."""
    unique, counts = np.unique(keys(ids, order, base), return_counts=True)
    return Table(unique, counts.astype(np.int64), base, order)


def merged(tables: Sequence[Table], order: int, base: int) -> Table:
    """Several references' tables as one, each n-gram with its largest count (BLEU's
    multi-reference clipping)."""
    if len(tables) == 1:
        return tables[0]
    every = np.concatenate([t.keys for t in tables])
    counts = np.concatenate([t.counts for t in tables])
    unique, inverse = np.unique(every, return_inverse=True)
    best = np.zeros(unique.size, dtype=np.int64)
    np.maximum.at(best, inverse, counts)
    return Table(unique, best, base, order)


def matches(hyp_keys: np.ndarray, ref: Table) -> np.ndarray:
    """Clipped matches per order, shape (order,): sum over the hypothesis' distinct n-grams g
    of min(count in hypothesis, count in `ref`), as sacrebleu counts them."""
    order = ref.bounds.size - 1
    if ref.keys.size == 0 or hyp_keys.size == 0:
        return np.zeros(order, dtype=np.int64)
    where = np.searchsorted(ref.keys, hyp_keys)
    where[where == ref.keys.size] = 0
    hit = ref.keys[where] == hyp_keys
    found = np.bincount(where[hit], minlength=ref.keys.size)
    clipped = np.concatenate(([0], np.cumsum(np.minimum(found, ref.counts))))
    return clipped[ref.bounds[1:]] - clipped[ref.bounds[:-1]]


def totals(length: int, order: int) -> list[int]:
    """n-grams of orders 1..order in a sequence of `length` symbols."""
    return [max(0, length - n + 1) for n in range(1, order + 1)]


class BLEURefs:
    """A segment's references for BLEU: texts as given (`raw`), lengths in tokens, the token
    ids and the merged n-gram `Table`; `library` holds sacrebleu's own reference info instead
    where the keys would not fit in int64."""

    __slots__ = ("raw", "lens", "vocab", "table", "library")

    def __init__(self, raw, lens, vocab, table, library) -> None:
        self.raw, self.lens, self.vocab, self.table, self.library = raw, lens, vocab, table, library


class CHRFRefs:
    """A segment's references for chrF: texts as given, the character alphabet and word ids,
    one character and one word n-gram `Table` per reference and its n-gram counts per order;
    `library` holds sacrebleu's own reference info instead where the keys would not fit in
    int64."""

    __slots__ = ("raw", "alphabet", "vocab", "char_tables", "word_tables", "ref_counts",
                 "library")

    def __init__(self, raw, alphabet, vocab, char_tables, word_tables, ref_counts,
                 library) -> None:
        self.raw, self.alphabet, self.vocab = raw, alphabet, vocab
        self.char_tables, self.word_tables = char_tables, word_tables
        self.ref_counts, self.library = ref_counts, library


# -- symbols to ids -------------------------------------------------------------------------------


def word_vocabulary(token_lists: Sequence[Sequence[str]]) -> dict[str, int]:
    """token -> id (1..V) over the references' tokens."""
    vocab: dict[str, int] = {}
    for tokens in token_lists:
        for token in tokens:
            if token not in vocab:
                vocab[token] = len(vocab) + 1
    return vocab


def word_ids(tokens: Sequence[str], vocab: Mapping[str, int]) -> np.ndarray:
    get = vocab.get
    return np.fromiter((get(t, 0) for t in tokens), dtype=np.int64, count=len(tokens))


def code_points(text: str) -> np.ndarray:
    """The code points of `text`, one per Python character (lone surrogates kept)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def char_vocabulary(texts: Sequence[str]) -> np.ndarray:
    """Sorted distinct code points of the references (id of alphabet[k] is k + 1)."""
    if not texts:
        return np.zeros(0, dtype="<u4")
    return np.unique(np.concatenate([code_points(t) for t in texts]))


def char_ids(text: str, alphabet: np.ndarray) -> np.ndarray:
    points = code_points(text)
    if alphabet.size == 0:
        return np.zeros(points.size, dtype=np.int64)
    where = np.searchsorted(alphabet, points)
    where[where == alphabet.size] = 0
    return np.where(alphabet[where] == points, where + 1, 0).astype(np.int64)
