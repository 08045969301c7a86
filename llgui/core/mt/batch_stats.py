"""Per-segment BLEU, chrF and TER statistics of a whole file in one pass (`MTMetric.batch_stats`).

A campaign cell scores 500 segments against references it has seen before; per segment, the
metrics' fast paths (`llgui.core.mt.ngram_fast`, `llgui.core.mt.ter_fast`) spent most of their
time in small numpy calls and Python glue. Here the references of a file are prepared once
(`*_references`, cached by the campaign's workers like the per-segment reference info) and a
hypothesis file is one pass: sacrebleu's own preprocessing per segment, then the n-grams of
all segments matched at once (`llgui.core.mt.ngram_batch`) or every TER pair in one compiled
call (`ter_fast.edits_of_pairs`).

The rules are sacrebleu's, as in the per-segment path: BLEU clips against each n-gram's
largest count over a segment's references and takes the closest reference length (the shorter
on a tie); chrF counts no hypothesis n-gram of an order its reference lacks and keeps the
reference with the best f-score by the library's own `_compute_f_score` (the first on a tie);
TER keeps the fewest edits and the average reference length. A segment's references are its
non-None ones in stream order ("ranks"). Where the batch keys would not fit in int64 the
references object is None and the metric keeps its per-segment path.
tests/core/mt/test_batch_stats.py holds the rows equal to sacrebleu's `_extract_corpus_statistics`
and to the per-segment path.
"""
from __future__ import annotations

from itertools import repeat
from typing import Sequence

import numpy as np

from llgui.core.mt import ngram_batch as nb
from llgui.core.mt import ngram_fast


def ranked(name: str, streams: Sequence[Sequence[str | None]], n_segments: int
           ) -> list[list[str]]:
    """Each segment's references, None entries dropped (sacrebleu's variable number of
    references); ValueError for a segment with none, as `reference_info` raises."""
    out = []
    for i in range(n_segments):
        refs = [s[i] for s in streams if s[i] is not None]
        if not refs:
            raise ValueError(f"{name}: a segment has no reference")
        out.append(refs)
    return out


def _by_rank(refs: list[list]) -> list[tuple[list[int], list]]:
    """(segment numbers, their k-th reference) for each rank k."""
    ranks = []
    for k in range(max(map(len, refs), default=0)):
        segments = [i for i, r in enumerate(refs) if len(r) > k]
        ranks.append((segments, [refs[i][k] for i in segments]))
    return ranks


def _concat(streams: list[nb.Stream]) -> tuple[nb.Stream, np.ndarray]:
    """One stream of the ranks' streams, and the rank of each position."""
    ids = np.concatenate([s.ids for s in streams])
    seg = np.concatenate([s.seg for s in streams])
    rank = np.repeat(np.arange(len(streams)), [s.ids.size for s in streams])
    return nb.Stream(ids, seg, np.zeros(0, np.int64)), rank


def _lengths(refs: list[list[Sequence]], n_segments: int, ranks: int) -> np.ndarray:
    """(ranks, segments) lengths of each reference's symbols, -1 where a segment has fewer."""
    out = np.full((ranks, n_segments), -1, dtype=np.int64)
    for i, segment in enumerate(refs):
        for k, symbols in enumerate(segment):
            out[k, i] = len(symbols)
    return out


# -- BLEU ----------------------------------------------------------------------------------------


class BLEUBatch:
    """A file's references for BLEU: lengths (ranks, segments), the token vocabulary and its
    indexer, the key space and the table of each (segment, n-gram)'s largest count."""

    __slots__ = ("lens", "vocab", "indexer", "space", "table")

    def __init__(self, lens, vocab, indexer, space, table) -> None:
        self.lens, self.vocab, self.indexer = lens, vocab, indexer
        self.space, self.table = space, table


def bleu_references(library, order: int, refs: list[list[str]]) -> BLEUBatch | None:
    """`refs` (per segment, as given) prepared for `bleu_rows`; None where keys do not fit."""
    tokens = [[library._preprocess_segment(r).split() for r in segment] for segment in refs]
    vocab = ngram_fast.word_vocabulary([t for segment in tokens for t in segment])
    ranks = _by_rank(tokens)
    stream, rank = _concat([nb.word_stream(t, vocab, s) for s, t in ranks])
    built = nb.index([(stream.ids, order, len(vocab))], len(refs), len(ranks))
    if built is None:
        return None
    (indexer,), (dense,), space = built
    keys, cells = space.keys([(d, stream.seg) for d in dense], rank)
    table = nb.Table.count(keys, cells).most_over_ranks(space)
    return BLEUBatch(_lengths(tokens, len(refs), len(ranks)), vocab, indexer, space, table)


def _closest(hyp_lens: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    """sacrebleu's `_get_closest_ref_len` per segment: the reference length nearest the
    hypothesis', the shorter on a tie (`ref_lens` (ranks, segments), -1 for none)."""
    far = int(max(hyp_lens.max(initial=0), ref_lens.max(initial=0))) + 1
    diff = np.where(ref_lens >= 0, np.abs(hyp_lens - ref_lens), far + 1)
    best = np.argmin(diff * (far + 1) + np.where(ref_lens >= 0, ref_lens, 0), axis=0)
    return ref_lens[best, np.arange(hyp_lens.size)]


def bleu_rows(library, order: int, hypotheses: Sequence[str], refs: BLEUBatch) -> np.ndarray:
    """[hyp_len, ref_len, correct_1..N, total_1..N] of every segment."""
    tokens = [library._preprocess_segment(h).split() for h in hypotheses]
    stream = nb.word_stream(tokens, refs.vocab)
    dense = refs.indexer.dense(stream.ids, order)
    keys, _ = refs.space.keys([(d, stream.seg) for d in dense])
    n = len(tokens)
    correct = refs.table.matches(keys, n * order).reshape(n, order)
    rows = np.empty((n, 2 + 2 * order), dtype=np.float64)
    rows[:, 0] = stream.lens
    rows[:, 1] = _closest(stream.lens, refs.lens)
    rows[:, 2:2 + order] = correct
    rows[:, 2 + order:] = nb.totals(stream.lens, order)
    return rows


# -- chrF ----------------------------------------------------------------------------------------


class CHRFBatch:
    """A file's references for chrF: the character alphabet and word vocabulary with their
    indexers, the key space, the table of (rank, segment, n-gram) counts, the references'
    n-gram counts (ranks, segments, slots) and the number of references of each segment."""

    __slots__ = ("alphabet", "vocab", "chars", "words", "space", "table", "ref_counts",
                 "n_refs")

    def __init__(self, alphabet, vocab, chars, words, space, table, ref_counts, n_refs):
        self.alphabet, self.vocab, self.chars, self.words = alphabet, vocab, chars, words
        self.space, self.table, self.ref_counts, self.n_refs = space, table, ref_counts, n_refs


def _chrf_text(library, text: str) -> tuple[str, list[str]]:
    """(characters, words) of a preprocessed text, as sacrebleu's chrF reads them."""
    chars = text if library.whitespace else "".join(text.split())
    return chars, (library._remove_punctuation(text) if library.word_order else [])


def chrf_references(library, refs: list[list[str]]) -> CHRFBatch | None:
    """`refs` (per segment, as given) prepared for `chrf_rows`; None where keys do not fit."""
    texts = [[_chrf_text(library, library._preprocess_segment(r)) for r in segment]
             for segment in refs]
    chars = [[c for c, _ in segment] for segment in texts]
    words = [[w for _, w in segment] for segment in texts]
    alphabet = ngram_fast.char_vocabulary([c for segment in chars for c in segment])
    vocab = ngram_fast.word_vocabulary([w for segment in words for w in segment])
    c_order, w_order = int(library.char_order), int(library.word_order)
    c_stream, c_rank = _concat([nb.char_stream(t, alphabet, s) for s, t in _by_rank(chars)])
    w_stream, w_rank = _concat([nb.word_stream(t, vocab, s) for s, t in _by_rank(words)])
    n_ranks = max(map(len, refs))
    built = nb.index([(c_stream.ids, c_order, alphabet.size),
                      (w_stream.ids, w_order, len(vocab))], len(refs), n_ranks)
    if built is None:
        return None
    (c_index, w_index), (c_dense, w_dense), space = built
    c_keys, c_cells = space.keys([(d, c_stream.seg) for d in c_dense], c_rank)
    # the word slots follow the character slots: key them with the character slots empty
    w_keys, w_cells = space.keys([(np.zeros(0, np.int64), w_stream.seg)] * c_order
                                 + [(d, w_stream.seg) for d in w_dense], w_rank)
    table = nb.Table.count(np.concatenate([c_keys, w_keys]), np.concatenate([c_cells, w_cells]))
    ref_counts = nb.totals(_lengths(chars, len(refs), n_ranks).clip(0), c_order)
    if w_order:
        w_counts = nb.totals(_lengths(words, len(refs), n_ranks).clip(0), w_order)
        ref_counts = np.concatenate([ref_counts, w_counts], axis=2)
    n_refs = np.fromiter(map(len, refs), np.int64, len(refs))
    return CHRFBatch(alphabet, vocab, c_index, w_index, space, table, ref_counts, n_refs)


def chrf_rows(library, hypotheses: Sequence[str], refs: CHRFBatch) -> np.ndarray:
    """[hyp, ref, match] per order of every segment, against its best reference."""
    c_order, w_order = int(library.char_order), int(library.word_order)
    texts = [_chrf_text(library, library._preprocess_segment(h)) for h in hypotheses]
    c_stream = nb.char_stream([c for c, _ in texts], refs.alphabet)
    dense = [(d, c_stream.seg) for d in refs.chars.dense(c_stream.ids, c_order)]
    hyp_counts = nb.totals(c_stream.lens, c_order)
    if w_order:
        w_stream = nb.word_stream([w for _, w in texts], refs.vocab)
        dense += [(d, w_stream.seg) for d in refs.words.dense(w_stream.ids, w_order)]
        hyp_counts = np.concatenate([hyp_counts, nb.totals(w_stream.lens, w_order)], axis=1)
    keys, _ = refs.space.keys(dense)
    n, slots = len(texts), refs.space.slots
    n_ranks = refs.ref_counts.shape[0]
    shifted = np.concatenate([keys + k * refs.space.span for k in range(n_ranks)])
    found = refs.table.matches(shifted, n_ranks * n * slots).reshape(n_ranks, n, slots)
    stats = np.empty((n_ranks, n, 3 * slots), dtype=np.int64)
    stats[:, :, 0::3] = np.where(refs.ref_counts > 0, hyp_counts, 0)
    stats[:, :, 1::3] = refs.ref_counts
    stats[:, :, 2::3] = found
    rows = stats[0].astype(np.float64)
    for i in np.flatnonzero(refs.n_refs > 1):
        rows[i] = _best_reference(library, stats[:refs.n_refs[i], i])
    return rows


def _best_reference(library, candidates: np.ndarray) -> list[int]:
    """The statistics with the best f-score by sacrebleu's own function, the first on a tie."""
    best: list[int] = []
    best_f = -1.0
    for stats in candidates.tolist():
        f_score = library._compute_f_score(stats)
        if f_score > best_f:
            best_f, best = f_score, stats
    return best


# -- TER -----------------------------------------------------------------------------------------


class TERBatch:
    """A file's references for TER: each segment's tokenised references, their token ids (one
    vocabulary for the file; reference r's ids[starts[r]:starts[r + 1]], segment i's
    references r = first[i]..first[i + 1] - 1) and each segment's average reference length."""

    __slots__ = ("words", "vocab", "ids", "starts", "first", "average")

    def __init__(self, words, vocab, ids, starts, first, average) -> None:
        self.words, self.vocab, self.ids, self.starts = words, vocab, ids, starts
        self.first, self.average = first, average


def ter_references(library, refs: list[list[str]]) -> TERBatch:
    """`refs` (per segment, as given) tokenised as sacrebleu's TER does, with ids."""
    # the library's own steps (`_cache_references`): each reference preprocessed, then
    # `_extract_reference_info`, which preprocesses TER's again (not idempotent for every
    # option: normalized + asian_support can split a token further the second time)
    words = [library._extract_reference_info([library._preprocess_segment(r) for r in segment]
                                             )["ref_words"] for segment in refs]
    flat = [w for segment in words for ref in segment for w in ref]
    vocab: dict[str, int] = {}
    ids = np.fromiter((vocab.setdefault(w, len(vocab)) for w in flat), np.int64, len(flat))
    lens = [len(ref) for segment in words for ref in segment]
    starts = np.concatenate(([0], np.cumsum(lens, dtype=np.int64)))
    first = [0]
    for segment in words:
        first.append(first[-1] + len(segment))
    # sacrebleu: the sum of the reference lengths over their number, a Python float
    average = [sum(len(r) for r in segment) / len(segment) for segment in words]
    return TERBatch(words, vocab, ids, starts, first, np.array(average, dtype=np.float64))


def _token_ids(flat: list[str], vocab: dict[str, int]) -> np.ndarray:
    """Ids of `flat` in `vocab`; each word not in it gets an id of its own past len(vocab)
    (the shift search compares hypothesis words with each other too)."""
    ids = np.fromiter(map(vocab.get, flat, repeat(-1)), np.int64, len(flat))
    unknown = np.flatnonzero(ids < 0).tolist()
    if unknown:
        extra: dict[str, int] = {}
        ids[unknown] = [extra.setdefault(flat[i], len(vocab) + len(extra)) for i in unknown]
    return ids


def ter_rows(library, hypotheses: Sequence[str], refs: TERBatch) -> np.ndarray:
    """[fewest edits, average reference length] of every segment."""
    from llgui.core.mt import ter_fast

    words = [library._preprocess_segment(h).split() for h in hypotheses]
    ids = _token_ids([w for segment in words for w in segment], refs.vocab)
    starts = np.concatenate(([0], np.cumsum([len(s) for s in words], dtype=np.int64)))
    pairs_h, pairs_r = [], []
    edits = np.full(len(words), 10 ** 16, dtype=np.int64)
    for i, segment in enumerate(words):
        if any(segment == ref for ref in refs.words[i]):
            edits[i] = 0  # a reference's words: no edit (the shift search would find 0)
            continue
        for r in range(refs.first[i], refs.first[i + 1]):
            pairs_h.append(i)
            pairs_r.append(r)
    pair_h, pair_r = np.array(pairs_h, np.int64), np.array(pairs_r, np.int64)
    counts = ter_fast.edits_of_pairs(ids, starts, refs.ids, refs.starts, pair_h, pair_r)
    for p in np.flatnonzero(counts < 0):  # empty sides, huge pairs: the per-pair function
        i, r = int(pair_h[p]), int(pair_r[p])
        counts[p] = ter_fast.translation_edit_rate(words[i], refs.words[i][r - refs.first[i]])[0]
    np.minimum.at(edits, pair_h, counts)
    return np.column_stack([edits.astype(np.float64), refs.average])
