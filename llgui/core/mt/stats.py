"""MT metrics as additive per-segment statistics: the one adapter over sacrebleu's internals.

sacrebleu computes BLEU, chrF and TER from per-segment statistics that add up over a corpus, but
the methods that expose them are underscored (`_preprocess_segment`, `_extract_reference_info`,
`_compute_segment_statistics`, `_compute_score_from_stats`, ...). This module is the only place
in llgui that touches them; `tests/core/mt/test_stats.py` holds every wrapper equal to
`corpus_score` on randomised corpora, and the sacrebleu version range is checked here and pinned
in pyproject.toml. WER follows jiwer (its default transforms) with the same interface.
BLEU and chrF count n-grams with `llgui.core.mt.ngram_fast` around the library's own preprocessing,
length and f-score rules (rows held equal to `_extract_corpus_statistics` in
tests/core/mt/test_ngram_fast.py); TER's shift search runs compiled in `llgui.core.mt.ter_fast`.

Statistics vectors (float64; one row per segment, summed over segments for a corpus):

- BLEU: `[hyp_len, ref_len, correct_1..N, total_1..N]` (N = max_ngram_order, 4 by default),
  lengths in tokens of the metric's tokenizer, ref_len the closest reference length.
- chrF: `[hyp, ref, match]` per order, character orders 1..char_order then word orders
  1..word_order, for the reference with the best segment F-score.
- TER: `[edits, ref_len]`, ref_len the average reference length of the segment (tercom words).
- WER: `[edits, ref_words]`, edits = S + D + I against the FIRST reference only (jiwer has no
  multi-reference WER), words as jiwer's transforms split them.

Every score is a percentage, as the libraries print it; `score(stats)` is exactly what
`corpus_score` gives on the same segments (the library's own code computes it).
"""
from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from llgui.core.mt import batch_stats, ngram_fast

if TYPE_CHECKING:  # sacrebleu and jiwer load lazily: they are off the GUI's start-up path
    from sacrebleu.metrics.base import Metric as _SacrebleuMetric

METRIC_NAMES = ("bleu", "chrf", "ter", "wer")

SACREBLEU_RANGE = ((2, 4), (2, 7))
"""Tested sacrebleu versions: >= 2.4, < 2.7 (the underscored methods may change outside)."""

_SACREBLEU_CLASSES = {"bleu": "BLEU", "chrf": "CHRF", "ter": "TER"}


def make_metric(name: str, settings: Mapping[str, object] | None = None) -> "MTMetric":
    """Build the metric `name` ("bleu", "chrf", "ter", "wer") from `settings`.

    `settings` uses sacrebleu's argument names (tokenize, lowercase, trg_lang, smooth_method,
    char_order, word_order, eps_smoothing, case_sensitive, normalized, no_punct, ...); each
    metric takes the ones its sacrebleu class accepts and ignores the others, so one bundle
    `[settings]` table serves every metric. Missing settings keep sacrebleu's defaults. WER
    takes `lowercase` and `no_punct` (jiwer's ToLowerCase / RemovePunctuation transforms).
    Raises ValueError for an unknown metric or a setting the library rejects.
    """
    settings = dict(settings or {})
    key = name.strip().lower()
    if key == "wer":
        return WERMetric(settings)
    if key not in _SACREBLEU_CLASSES:
        raise ValueError(f"unknown MT metric {name!r} (known: {', '.join(METRIC_NAMES)})")
    _check_sacrebleu_version()
    _quiet_tokenizer_advice()
    import sacrebleu.metrics as sbm

    cls = getattr(sbm, _SACREBLEU_CLASSES[key])
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "references"}
    used = {k: v for k, v in settings.items() if k in accepted}
    try:
        library = cls(**used)
    except Exception as exc:  # sacrebleu asserts, KeyErrors on bad tokenizers, ImportErrors
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise ValueError(f"{key}: settings {used!r} rejected by sacrebleu ({detail})") from None
    if key == "bleu":   # 13a and zh: sacrebleu's last step, the same string in half the time
        from llgui.core.mt.fast_tokenize import speed_up

        speed_up(library.tokenizer)
    wrapper = {"bleu": BLEUMetric, "chrf": CHRFMetric, "ter": TERMetric}[key]
    return wrapper(library, used)


class _TokenizerAdvice(logging.Filter):
    """sacrebleu's "Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese." comes
    once per metric built (once per document and worker: 6-21 times a command); llgui says it
    once, in its own words, at the bundle's `trg_lang` line
    (`llgui.core.mt.script.bleu_tokenizer_note`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Consider using the '")


def _quiet_tokenizer_advice() -> None:
    log = logging.getLogger("sacrebleu")
    if not any(isinstance(f, _TokenizerAdvice) for f in log.filters):
        log.addFilter(_TokenizerAdvice())


def _check_sacrebleu_version() -> None:
    import sacrebleu

    parts = tuple(int(p) for p in sacrebleu.__version__.split(".")[:2] if p.isdigit())
    low, high = SACREBLEU_RANGE
    if not (low <= parts < high):
        raise RuntimeError(
            f"sacrebleu {sacrebleu.__version__} is outside the tested range "
            f">={low[0]}.{low[1]},<{high[0]}.{high[1]}: llgui reads its per-segment statistics "
            "through private methods that may have changed"
        )


class MTMetric:
    """An MT metric over additive per-segment statistics (satisfies `llgui.core.track.Metric`).

    Use `make_metric`. Objects are safe to share between threads for scoring (they hold only
    settings and the set of reference counts seen, for the signature).
    """

    name: str
    higher_is_better: bool
    n_stats: int
    settings: Mapping[str, object]

    def __init__(self) -> None:
        self._nrefs_seen: set[int] = set()

    # -- the signature ------------------------------------------------------------------------

    @property
    def signature(self) -> str:
        """The library's reproducibility string; `nrefs` is the number of references per
        segment seen so far ("var" if it varied, "?" before any references were seen)."""
        return self.signature_for(self._nrefs_value())

    def signature_for(self, nrefs: int | str) -> str:
        """The signature for `nrefs` references per segment (-1 means a variable number)."""
        raise NotImplementedError

    def note_references(self, refs_of_segment: Sequence[str | None]) -> None:
        """Count a segment's references for the signature, as `reference_info` does, for a
        segment whose statistics come from the cache (`llgui.core.mt.stats_cache`)."""
        n = sum(r is not None for r in refs_of_segment)
        if n:
            self._nrefs_seen.add(n)

    def _nrefs_value(self) -> int | str:
        seen = set(self._nrefs_seen)
        if not seen:
            return "?"
        return seen.pop() if len(seen) == 1 else -1

    # -- statistics ---------------------------------------------------------------------------

    def reference_info(self, refs_of_segment: Sequence[str | None]) -> object:
        """What the metric needs of one segment's references (n-grams, lengths); cacheable.
        `None` entries are dropped, as sacrebleu does for a variable number of references."""
        raise NotImplementedError

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        """Statistics of one hypothesis segment: float64, shape (n_stats,)."""
        raise NotImplementedError

    def corpus_stats(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
    ) -> np.ndarray:
        """Per-segment statistics, shape (n_segments, n_stats). `references` is sacrebleu's
        layout: one stream per reference, each with one string per segment. All segments
        at once (`batch_references` + `batch_stats`): the rows equal those of
        `reference_info` + `segment_stats` segment by segment (test_batch_stats.py)."""
        hypotheses = list(hypotheses)
        streams = [list(s) for s in references]
        if not streams:
            raise ValueError(f"{self.name}: no reference stream")
        for k, stream in enumerate(streams):
            if len(stream) != len(hypotheses):
                raise ValueError(
                    f"{self.name}: reference stream {k + 1} has {len(stream)} segments, "
                    f"the hypothesis {len(hypotheses)}"
                )
        return self.batch_stats(hypotheses, self.batch_references(streams))

    def batch_references(self, references: Sequence[Sequence[str | None]]) -> object:
        """A file's reference information for `batch_stats` (sacrebleu's layout, one stream
        per reference), cacheable like `reference_info`: a campaign worker keeps it per batch.
        Here the segments' `reference_info`s; the sacrebleu metrics prepare them all at once."""
        streams = [list(s) for s in references]
        n = len(streams[0]) if streams else 0
        return [self.reference_info([stream[i] for stream in streams]) for i in range(n)]

    def batch_stats(self, hypotheses: Sequence[str], batch_refs: object) -> np.ndarray:
        """The rows of `corpus_stats` for `hypotheses` against `batch_references`' result."""
        assert isinstance(batch_refs, list)
        _check_count(self.name, hypotheses, len(batch_refs))
        rows = np.zeros((len(hypotheses), self.n_stats), dtype=np.float64)
        for i, hyp in enumerate(hypotheses):
            rows[i] = self.segment_stats(hyp, batch_refs[i])
        return rows

    def score(self, stats: np.ndarray) -> float:
        """Percentage from a statistics vector (a segment's, or a sum over segments)."""
        raise NotImplementedError

    def errors(self, stats: np.ndarray) -> tuple[float, float] | None:
        """(word edits, reference words) for TER/WER; None for BLEU/chrF."""
        return None

    def impaired(self, stats: np.ndarray) -> np.ndarray:
        """Statistics of a strictly wrong version of the segment(s) in `stats` (shape
        (..., n_stats)): see DESIGN.md 1.2 and each metric's override."""
        raise NotImplementedError

    def components(self, stats: np.ndarray) -> dict[str, float]:
        """Named parts of the score for display (BLEU precisions, BP, lengths, ...)."""
        return {}

    def library_score(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
    ) -> float:
        """The library's own full computation (sacrebleu corpus_score / jiwer), for tests and
        benchmarks; never on the interactive path."""
        raise NotImplementedError

    def library_scorer(
        self, references: Sequence[Sequence[str | None]]
    ) -> Callable[[Sequence[str]], float]:
        """`library_score` against fixed references, as a function of the hypotheses (many
        hypotheses of one document: `llgui.core.verify`)."""
        return lambda hypotheses: self.library_score(hypotheses, references)

    @property
    def label(self) -> str:
        """Display name (BLEU, chrF2, chrF2++, TER, WER)."""
        return self.name.upper()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.signature}>"


def _check_count(name: str, hypotheses: Sequence[str], n_segments: int) -> None:
    if len(hypotheses) != n_segments:
        raise ValueError(f"{name}: {len(hypotheses)} hypothesis segments for references of "
                         f"{n_segments}")


class _FileReferences:
    """`batch_references` of a sacrebleu metric: the number of segments and what the
    metric's `llgui.core.mt.batch_stats` functions prepared."""

    __slots__ = ("n_segments", "data")

    def __init__(self, n_segments: int, data: object) -> None:
        self.n_segments, self.data = n_segments, data


def _as_row(stats: np.ndarray, n: int) -> list[float]:
    values = np.asarray(stats, dtype=np.float64)
    if values.shape != (n,):
        raise ValueError(f"expected a statistics vector of shape ({n},), got {values.shape}")
    return values.tolist()


class _SacrebleuBacked(MTMetric):
    """Common wrapper over a sacrebleu Metric object and its underscored methods."""

    def __init__(self, library: "_SacrebleuMetric", settings: Mapping[str, object]) -> None:
        super().__init__()
        self._library = library
        self.settings = dict(settings)

    def _fresh(self) -> "_SacrebleuMetric":
        """A new library object with the same settings (corpus_score keeps state on it)."""
        return type(self._library)(**self.settings)

    def signature_for(self, nrefs: int | str) -> str:
        args = dict(vars(self._library))
        args["num_refs"] = nrefs
        return type(self._library)._SIGNATURE_TYPE(args).format()

    def reference_info(self, refs_of_segment: Sequence[str | None]) -> object:
        # the same steps as sacrebleu's Metric._cache_references, for one segment
        return self._library._extract_reference_info(self._reference_lines(refs_of_segment)[1])

    def _reference_lines(self, refs_of_segment: Sequence[str | None]
                         ) -> tuple[list[str], list[str]]:
        """(the segment's references as given, preprocessed), None entries dropped."""
        lines = [x for x in refs_of_segment if x is not None]
        if not lines:
            raise ValueError(f"{self.name}: a segment has no reference")
        self._nrefs_seen.add(len(lines))
        return lines, [self._library._preprocess_segment(x) for x in lines]

    def batch_references(self, references: Sequence[Sequence[str | None]]) -> object:
        """All segments' references prepared at once (`llgui.core.mt.batch_stats`); the
        per-segment infos where the batch keys would not fit in int64."""
        streams = [list(s) for s in references]
        n = len(streams[0]) if streams else 0
        refs = batch_stats.ranked(self.name, streams, n)
        self._nrefs_seen.update(map(len, refs))
        data = self._prepare_batch(refs) if n else ()
        if data is None:
            return super().batch_references(streams)
        return _FileReferences(n, data)

    def batch_stats(self, hypotheses: Sequence[str], batch_refs: object) -> np.ndarray:
        if not isinstance(batch_refs, _FileReferences):
            return super().batch_stats(hypotheses, batch_refs)
        _check_count(self.name, hypotheses, batch_refs.n_segments)
        if not batch_refs.n_segments:
            return np.zeros((0, self.n_stats), dtype=np.float64)
        return self._batch_rows(list(hypotheses), batch_refs.data)

    def _prepare_batch(self, refs: list[list[str]]) -> object | None:
        """The metric's `batch_stats` references, or None for the per-segment path."""
        return None

    def _batch_rows(self, hypotheses: list[str], data: object) -> np.ndarray:
        raise NotImplementedError

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        # the same steps as sacrebleu's Metric._extract_corpus_statistics, for one segment
        hyp = self._library._preprocess_segment(hypothesis)
        row = self._library._compute_segment_statistics(hyp, ref_info)
        return np.asarray(row, dtype=np.float64)

    def _score_object(self, stats: np.ndarray) -> Any:
        # tolist(): the library mutates lists (BLEU add-k) and reads Python numbers; integer
        # counts held as float64 are exact, so the arithmetic is the library's, bit for bit
        return self._library._compute_score_from_stats(_as_row(stats, self.n_stats))

    def score(self, stats: np.ndarray) -> float:
        return float(self._score_object(stats).score)

    def library_score(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
    ) -> float:
        return float(self._fresh().corpus_score(list(hypotheses), [list(s) for s in references]).score)

    def library_scorer(
        self, references: Sequence[Sequence[str | None]]
    ) -> Callable[[Sequence[str]], float]:
        """sacrebleu's own reference cache (`Metric(references=...)`), then what its
        `corpus_score(hypotheses, None)` does, in its two halves: each segment's statistics by
        the library (`_preprocess_segment`, `_compute_segment_statistics` against the cached
        reference), summed and scored by the library (`_aggregate_and_compute`). The
        references are processed once, and a segment's statistics once per distinct text at
        that position: the hypotheses of one document differ in a segment or two, and
        corpus_score computed every segment again for each (sacrebleu's pure-Python TER made
        that most of a verification). The same numbers as `library_score`
        (tests/core/mt/test_stats.py holds them equal)."""
        library = type(self._library)(**self.settings,
                                      references=[list(s) for s in references])
        rows: dict[tuple[int, str], object] = {}

        def score(hypotheses: Sequence[str]) -> float:
            hypotheses = list(hypotheses)
            library._check_corpus_score_args(hypotheses, None)
            stats = []
            for i, (hypothesis, ref_kwargs) in enumerate(zip(hypotheses, library._ref_cache)):
                row = rows.get((i, hypothesis))
                if row is None:
                    row = rows[(i, hypothesis)] = library._compute_segment_statistics(
                        library._preprocess_segment(hypothesis), ref_kwargs)
                stats.append(row)
            return float(library._aggregate_and_compute(stats).score)

        return score


class BLEUMetric(_SacrebleuBacked):
    """BLEU (sacrebleu.metrics.BLEU). Stats: [hyp_len, ref_len, correct_1..N, total_1..N]."""

    name = "bleu"
    higher_is_better = True

    def __init__(self, library: "_SacrebleuMetric", settings: Mapping[str, object]) -> None:
        super().__init__(library, settings)
        self.order = int(library.max_ngram_order)
        self.n_stats = 2 + 2 * self.order

    def impaired(self, stats: np.ndarray) -> np.ndarray:
        """Same hypothesis length, no matching n-gram (clipped counts 0), totals and reference
        length unchanged (LREC 2020, appendix A)."""
        out = np.array(stats, dtype=np.float64, copy=True)
        out[..., 2:2 + self.order] = 0.0
        return out

    def reference_words(self, ref_info: object) -> int:
        """Length in BLEU tokens of the segment's first reference (used by llmt mode)."""
        assert isinstance(ref_info, ngram_fast.BLEURefs)
        return int(ref_info.lens[0])

    def reference_info(self, refs_of_segment: Sequence[str | None]) -> "ngram_fast.BLEURefs":
        raw, lines = self._reference_lines(refs_of_segment)
        tokens = [line.split() for line in lines]
        vocab = ngram_fast.word_vocabulary(tokens)
        base = len(vocab) + 1
        if not ngram_fast.fits(base, self.order):  # tens of thousands of distinct tokens
            return ngram_fast.BLEURefs(raw, [len(t) for t in tokens], vocab, None,
                             self._library._extract_reference_info(lines))
        tables = [ngram_fast.table(ngram_fast.word_ids(t, vocab), self.order, base)
                  for t in tokens]
        return ngram_fast.BLEURefs(raw, [len(t) for t in tokens], vocab,
                         ngram_fast.merged(tables, self.order, base), None)

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        """sacrebleu's `_compute_segment_statistics`, with the n-grams counted by
        `llgui.core.mt.ngram_fast` (held equal to the library in tests/core/mt/test_ngram_fast.py)."""
        assert isinstance(ref_info, ngram_fast.BLEURefs)
        if ref_info.library is not None:
            return super().segment_stats(hypothesis, ref_info.library)
        if hypothesis in ref_info.raw:
            # The text of reference j (a corrected segment, an adaptation that took it): every
            # n-gram's count is reference j's own, at most the largest over the references,
            # so each is matched in full (correct = total); the closest reference length is
            # j's own (distance 0; another at distance 0 has the same length).
            length = ref_info.lens[ref_info.raw.index(hypothesis)]
            counts = ngram_fast.totals(length, self.order)
            return np.array([length, length] + counts + counts, dtype=np.float64)
        tokens = self._library._preprocess_segment(hypothesis).split()
        length = len(tokens)
        ids = ngram_fast.word_ids(tokens, ref_info.vocab)
        correct = ngram_fast.matches(ngram_fast.keys(ids, self.order, len(ref_info.vocab) + 1),
                                     ref_info.table)
        row = [length, self._library._get_closest_ref_len(length, ref_info.lens)]
        return np.array(row + correct.tolist() + ngram_fast.totals(length, self.order),
                        dtype=np.float64)

    def _prepare_batch(self, refs: list[list[str]]) -> object | None:
        return batch_stats.bleu_references(self._library, self.order, refs)

    def _batch_rows(self, hypotheses: list[str], data: object) -> np.ndarray:
        return batch_stats.bleu_rows(self._library, self.order, hypotheses, data)

    def components(self, stats: np.ndarray) -> dict[str, float]:
        s = self._score_object(stats)
        parts = {f"p{n + 1}": float(p) for n, p in enumerate(s.precisions)}
        parts.update(bp=float(s.bp), ratio=float(s.ratio), hyp_len=float(s.sys_len),
                     ref_len=float(s.ref_len))
        return parts


class CHRFMetric(_SacrebleuBacked):
    """chrF / chrF++ (sacrebleu.metrics.CHRF). Stats: [hyp, ref, match] per n-gram order."""

    name = "chrf"
    higher_is_better = True

    def __init__(self, library: "_SacrebleuMetric", settings: Mapping[str, object]) -> None:
        super().__init__(library, settings)
        self.n_stats = 3 * int(library.order)

    def reference_info(self, refs_of_segment: Sequence[str | None]) -> "ngram_fast.CHRFRefs":
        lib = self._library
        raw, lines = self._reference_lines(refs_of_segment)
        chars = [line if lib.whitespace else "".join(line.split()) for line in lines]
        alphabet = ngram_fast.char_vocabulary(chars)
        words = [lib._remove_punctuation(line) for line in lines] if lib.word_order else []
        vocab = ngram_fast.word_vocabulary(words)
        if not (ngram_fast.fits(alphabet.size + 1, lib.char_order)
                and ngram_fast.fits(len(vocab) + 1, lib.word_order)):
            return ngram_fast.CHRFRefs(raw, alphabet, vocab, [], [], [],
                             lib._extract_reference_info(lines))
        char_tables = [ngram_fast.table(ngram_fast.char_ids(c, alphabet), lib.char_order,
                                        alphabet.size + 1) for c in chars]
        word_tables = [ngram_fast.table(ngram_fast.word_ids(w, vocab), lib.word_order,
                                        len(vocab) + 1) for w in words]
        ref_counts = [ngram_fast.totals(len(c), lib.char_order) + (
            ngram_fast.totals(len(words[k]), lib.word_order) if words else [])
            for k, c in enumerate(chars)]
        return ngram_fast.CHRFRefs(raw, alphabet, vocab, char_tables, word_tables, ref_counts,
                                   None)

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        """sacrebleu's `_compute_segment_statistics` (the best reference by the library's own
        f-score, the first on a tie), the n-grams counted by `llgui.core.mt.ngram_fast` (held
        equal to the library in tests/core/mt/test_ngram_fast.py)."""
        assert isinstance(ref_info, ngram_fast.CHRFRefs)
        lib = self._library
        if ref_info.library is not None:
            return super().segment_stats(hypothesis, ref_info.library)
        if hypothesis == ref_info.raw[0]:
            # The first reference's text: against it every order has hyp = ref = match, an
            # f-score no reference can beat (each order's term is 1, or the eps term of an
            # order without n-grams, and bounds the same term of any other reference), and
            # the library keeps the first reference on a tie.
            return np.repeat(np.asarray(ref_info.ref_counts[0], dtype=np.float64), 3)
        hyp = lib._preprocess_segment(hypothesis)
        chars = hyp if lib.whitespace else "".join(hyp.split())
        char_keys = ngram_fast.keys(ngram_fast.char_ids(chars, ref_info.alphabet),
                                    lib.char_order, ref_info.alphabet.size + 1)
        hyp_counts = ngram_fast.totals(len(chars), lib.char_order)
        if lib.word_order:
            words = lib._remove_punctuation(hyp)
            word_keys = ngram_fast.keys(ngram_fast.word_ids(words, ref_info.vocab),
                                        lib.word_order, len(ref_info.vocab) + 1)
            hyp_counts += ngram_fast.totals(len(words), lib.word_order)
        best: list[int] = []
        best_f = -1.0
        for k, ref_counts in enumerate(ref_info.ref_counts):
            found = ngram_fast.matches(char_keys, ref_info.char_tables[k]).tolist()
            if lib.word_order:
                found += ngram_fast.matches(word_keys, ref_info.word_tables[k]).tolist()
            stats: list[int] = []
            for h, r, m in zip(hyp_counts, ref_counts, found):
                # sacrebleu counts no hypothesis n-gram of an order the reference lacks
                stats += [h if r else 0, r, m]
            f_score = lib._compute_f_score(stats)
            if f_score > best_f:
                best_f, best = f_score, stats
        return np.asarray(best, dtype=np.float64)

    def _prepare_batch(self, refs: list[list[str]]) -> object | None:
        return batch_stats.chrf_references(self._library, refs)

    def _batch_rows(self, hypotheses: list[str], data: object) -> np.ndarray:
        return batch_stats.chrf_rows(self._library, hypotheses, data)

    def impaired(self, stats: np.ndarray) -> np.ndarray:
        """No n-gram matches; hypothesis and reference n-gram counts unchanged. With several
        references the counts stay those of the reference the current hypothesis was scored
        against (a real wrong sentence would be scored by sacrebleu against the first one)."""
        out = np.array(stats, dtype=np.float64, copy=True)
        out[..., 2::3] = 0.0
        return out

    @property
    def label(self) -> str:
        return f"chrF{self._library.beta}" + "+" * int(self._library.word_order)


class TERMetric(_SacrebleuBacked):
    """TER (sacrebleu.metrics.TER). Stats: [edits, average reference length]."""

    name = "ter"
    higher_is_better = False
    n_stats = 2

    def errors(self, stats: np.ndarray) -> tuple[float, float]:
        edits, ref_len = _as_row(stats, 2)
        return edits, ref_len

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        # A hypothesis equal, word for word after sacrebleu's preprocessing, to one of the
        # references needs no edit: the shift search (milliseconds a sentence) would find 0.
        # The usual case of a corrected segment. Held equal to the library in the tests.
        words = self._library._preprocess_segment(hypothesis).split()
        ref_words = ref_info["ref_words"]  # type: ignore[index]
        if any(words == ref for ref in ref_words):
            return np.array([0.0, sum(len(r) for r in ref_words) / len(ref_words)])
        # sacrebleu's own shift search and beam edit distance, compiled (llgui.core.mt.ter_fast;
        # sacrebleu computes it where numba is missing): the same counts, held equal in tests
        from llgui.core.mt.ter_fast import segment_statistics

        return np.asarray(segment_statistics(words, ref_words), dtype=np.float64)

    def _prepare_batch(self, refs: list[list[str]]) -> object | None:
        return batch_stats.ter_references(self._library, refs)

    def _batch_rows(self, hypotheses: list[str], data: object) -> np.ndarray:
        return batch_stats.ter_rows(self._library, hypotheses, data)

    def impaired(self, stats: np.ndarray) -> np.ndarray:
        """Edits = reference length (the bound of DESIGN.md 1.2: TER has no worst case)."""
        out = np.array(stats, dtype=np.float64, copy=True)
        out[..., 0] = out[..., 1]
        return out

    def components(self, stats: np.ndarray) -> dict[str, float]:
        edits, ref_len = _as_row(stats, 2)
        return {"edits": edits, "ref_len": ref_len}


# ------------------------------------------------------------------------------------------------
# WER (jiwer)


@dataclass(frozen=True)
class _WERRef:
    words: tuple[str, ...]
    """The first reference, split into words by the jiwer transform."""


class WERMetric(MTMetric):
    """Word error rate as jiwer computes it, per segment: stats [S + D + I, reference words].

    jiwer scores one reference per segment; with several, the first is used (said in the
    signature as `ref:first`). The pooled score equals `jiwer.wer(refs, hyps)` with the same
    transforms, including its convention for an all-empty reference (WER = insertions, as a
    count, so 100 * insertions here).
    """

    name = "wer"
    higher_is_better = False
    n_stats = 2

    def __init__(self, settings: Mapping[str, object]) -> None:
        super().__init__()
        import jiwer

        self.settings = {k: settings[k] for k in ("lowercase", "no_punct") if k in settings}
        for key, value in self.settings.items():
            if not isinstance(value, bool):
                raise ValueError(f"wer: {key} must be true or false, not {value!r}")
        steps: list = []
        if self.settings.get("lowercase"):
            steps.append(jiwer.ToLowerCase())
        if self.settings.get("no_punct"):
            steps.append(jiwer.RemovePunctuation())
        steps += [jiwer.RemoveMultipleSpaces(), jiwer.Strip(), jiwer.ReduceToListOfListOfWords()]
        self._transform = jiwer.Compose(steps)
        self._transform_names = "+".join(type(s).__name__ for s in steps)

    def signature_for(self, nrefs: int | str) -> str:
        from importlib.metadata import version

        shown = "var" if nrefs == -1 else nrefs
        parts = [f"nrefs:{shown}"]
        if nrefs != 1:
            parts.append("ref:first")
        parts += [
            f"case:{'lc' if self.settings.get('lowercase') else 'mixed'}",
            f"punct:{'no' if self.settings.get('no_punct') else 'yes'}",
            f"tf:{self._transform_names}",
            f"jiwer:{version('jiwer')}",
        ]
        return "|".join(parts)

    def _words(self, text: str) -> tuple[str, ...]:
        return tuple(self._transform([text])[0])

    def reference_info(self, refs_of_segment: Sequence[str | None]) -> _WERRef:
        lines = [x for x in refs_of_segment if x is not None]
        if not lines:
            raise ValueError("wer: a segment has no reference")
        self._nrefs_seen.add(len(lines))
        return _WERRef(self._words(lines[0]))

    def segment_stats(self, hypothesis: str, ref_info: object) -> np.ndarray:
        assert isinstance(ref_info, _WERRef)
        edits = word_edits(ref_info.words, self._words(hypothesis))
        return np.array([edits, len(ref_info.words)], dtype=np.float64)

    def score(self, stats: np.ndarray) -> float:
        edits, ref_words = _as_row(stats, 2)
        if ref_words == 0:
            # jiwer: with no reference word at all, WER is the number of insertions
            return 100.0 * edits
        return 100.0 * edits / ref_words

    def errors(self, stats: np.ndarray) -> tuple[float, float]:
        edits, ref_words = _as_row(stats, 2)
        return edits, ref_words

    def impaired(self, stats: np.ndarray) -> np.ndarray:
        """Edits = reference words (every word substituted), reference unchanged."""
        out = np.array(stats, dtype=np.float64, copy=True)
        out[..., 0] = out[..., 1]
        return out

    def components(self, stats: np.ndarray) -> dict[str, float]:
        edits, ref_words = _as_row(stats, 2)
        return {"edits": edits, "ref_words": ref_words}

    def library_score(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str | None]]
    ) -> float:
        import jiwer

        first = [r if r is not None else "" for r in references[0]]
        value = jiwer.wer(first, list(hypotheses), reference_transform=self._transform,
                          hypothesis_transform=self._transform)
        return 100.0 * float(value)


def word_edits(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Word-level Levenshtein distance (substitutions + deletions + insertions, unit costs)
    between two word sequences, by rapidfuzz (the engine jiwer itself runs on)."""
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(list(reference), list(hypothesis)))


# ------------------------------------------------------------------------------------------------
# llmt compatibility


def llmt_vector(reference_words: Iterable[int], order: int) -> np.ndarray:
    """The llmt credit vector of one document, shape (order,): for each answered `reference`
    request whose reference has n whitespace-separated words, [n, n-1, ..., n-order+1] (each
    floored at 0) is added (DESIGN.md 1.1, the WMT LLMT scorer's `mt_evaluation` block)."""
    vector = np.zeros(order, dtype=np.float64)
    for n in reference_words:
        if n < 0:
            raise ValueError(f"llmt: a negative word count {n}")
        vector += np.maximum(float(n) - np.arange(order), 0.0)
    return vector


def llmt_document_stats(stats: np.ndarray, vector: np.ndarray, metric: "BLEUMetric"
                        ) -> np.ndarray:
    """One document's BLEU statistics (n_stats,) under the llmt rule: `vector` subtracted from
    the document's clipped 1..N-gram match counts of its output, floored at 0 per document;
    lengths and n-gram totals unchanged. `stats` are the per-segment rows (n, n_stats) or the
    document's sum (n_stats,)."""
    rows = np.asarray(stats, dtype=np.float64)
    total = rows.sum(axis=0) if rows.ndim == 2 else rows.copy()
    if total.shape != (metric.n_stats,):
        raise ValueError(f"llmt: expected BLEU statistics with {metric.n_stats} columns, got "
                         f"{rows.shape}")
    order = metric.order
    total[2:2 + order] = np.maximum(total[2:2 + order] - vector, 0.0)
    return total


def llmt_bleu(stats: np.ndarray, vector: np.ndarray, metric: "BLEUMetric | None" = None
              ) -> float:
    """The llmt BLEU of one document (see `llmt_document_stats`); `metric` gives the BLEU
    settings (sacrebleu defaults when None). The stream's score pools the documents' llmt
    statistics into one BLEU (`llgui.core.penalty.pooled_scores`)."""
    if metric is None:
        metric = make_metric("bleu")  # type: ignore[assignment]
    assert isinstance(metric, BLEUMetric)
    return metric.score(llmt_document_stats(stats, vector, metric))
