"""Meeting word metrics: cpWER, tcpWER (meeteval's) and WDER (Shafey et al., Interspeech 2019).

Words come from the reference transcript (`DiarDocument.words`: text, speaker, start, end)
and from the hypothesis: its own words when the bundle gives them, else the reference words
with the hypothesis' speaker labels (`attribute`: speaker attribution only, the words
themselves are right by construction). Every hypothesis h_n after an adapted step takes its
labels from its turns the same way.

- cpWER: meeteval's concatenated minimum-permutation WER (`meeteval.wer.cpwer`);
- tcpWER: meeteval's time-constrained one (`meeteval.wer.tcpwer`) with the bundle's
  `word_collar` (required, as meeteval requires it; seconds added on each side of every
  hypothesis word, which meeteval reduces to the point at its centre);
- WDER: words whose speaker is wrong over the words the speaker-agnostic alignment pairs
  (correct or substituted): (S_IS + C_IS) / (S + C). The alignment is meeteval's `align`
  (time-constrained with `word_collar` when the bundle sets one, else plain), the speaker
  mapping the one-to-one mapping (Hungarian) that maximises the paired words whose speakers
  agree. meeteval has no WDER; this is its definition on meeteval's alignment.

cpWER and tcpWER come from `llgui.core.diarization.word_engine` (meeteval's recurrence,
kept per speaker pair so a step rescored costs a few windows, not the meeting); tests hold
them equal to meeteval. Statistics: [errors, reference words] (WDER: [speaker errors,
paired words]), summed over documents for pooled scores.

The penalised versions (docs/metrics.md) relabel the hypothesis words whose midpoint lies in
a step's windows: corrected, each takes the reference speaker the reference gives it, under
the hypothesis label the metric's own assignment of h_{n-1} maps to that speaker (a new label
if none); impaired, each goes to a speaker that is never mapped (its words are all errors).
"""
from __future__ import annotations

import logging
from bisect import bisect_left, bisect_right
from contextlib import contextmanager
from typing import Collection, Mapping, Sequence

import numpy as np

from llgui.core.diarization import word_engine as engine
from llgui.core.types import Turn, Word

WORD_METRICS = ("cpwer", "tcpwer", "wder")
DISPLAY = {"cpwer": "cpWER", "tcpwer": "tcpWER", "wder": "WDER"}
UNMAPPABLE = object()
"""A new label for `Scorer.errors_with`: the word goes to a speaker never mapped."""


@contextmanager
def quiet_meeteval():
    """meeteval logs advice (collar length, word order, self-overlap) on every call through
    its `preprocess` and `error_rate` loggers; llgui states its settings in the signature."""
    loggers = [logging.getLogger(name) for name in ("preprocess", "error_rate")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def meeteval_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("meeteval")
    except PackageNotFoundError:   # pragma: no cover
        return "missing"


# --------------------------------------------------------------------------------------------
# Speaker attribution


def attribute(words: Sequence[Word], turns: Sequence[Turn]) -> tuple[Word, ...]:
    """`words` with the speakers of `turns`: each word takes the label of the turn that
    contains its midpoint (start <= midpoint < end); among several, or when none does, the
    label whose turns overlap the word longest (ties: the smallest label); a word no turn
    touches gets no speaker (None: the hypothesis does not contain it)."""
    labels = attribute_labels(words, turns)
    return tuple(Word(w.start, w.end, w.word, s, w.order) for w, s in zip(words, labels))


def attribute_labels(words: Sequence[Word], turns: Sequence[Turn]) -> list[str | None]:
    ordered = sorted(turns, key=lambda t: t.start)
    starts = [t.start for t in ordered]
    reach = max((t.end - t.start for t in ordered), default=0.0)
    out: list[str | None] = []
    for w in words:
        mid = w.midpoint
        lo = bisect_left(starts, min(w.start, mid) - reach)
        hi = bisect_right(starts, max(w.end, mid))
        at_mid: set[str] = set()
        overlap: dict[str, float] = {}
        for t in ordered[lo:hi]:
            if t.start <= mid < t.end:
                at_mid.add(t.speaker)
            seconds = min(t.end, w.end) - max(t.start, w.start)
            if seconds > 0:
                overlap[t.speaker] = overlap.get(t.speaker, 0.0) + seconds
        candidates = at_mid or set(overlap)
        if not candidates:
            out.append(None)
        elif len(candidates) == 1:
            out.append(next(iter(candidates)))
        else:
            out.append(min(candidates, key=lambda s: (-overlap.get(s, 0.0), s)))
    return out


def in_windows(words: Sequence[Word], windows: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the words whose midpoint lies in one of `windows` (start <= mid <= end),
    in increasing order."""
    return MidpointIndex(words).inside(windows)


class MidpointIndex:
    """The words' midpoints sorted once, for the words inside a step's windows without a
    pass over the meeting."""

    def __init__(self, words: Sequence[Word]):
        mids = np.fromiter((0.5 * (w.start + w.end) for w in words), float, len(words))
        self.order = np.argsort(mids, kind="stable")
        self.sorted = mids[self.order]

    def inside(self, windows: Sequence[tuple[float, float]]) -> list[int]:
        found: set[int] = set()
        for start, end in windows:
            lo = int(np.searchsorted(self.sorted, start, "left"))
            hi = int(np.searchsorted(self.sorted, end, "right"))
            found.update(self.order[lo:hi].tolist())
        return sorted(found)


# --------------------------------------------------------------------------------------------
# Metrics


class WordMetric:
    """cpWER, tcpWER or WDER as a `Metric`: stats are [errors, reference words] (WDER:
    [speaker errors, paired words]); the score is a percentage."""

    higher_is_better = False

    def __init__(self, name: str, collar: float | None = None):
        if name not in WORD_METRICS:
            raise ValueError(f"unknown word metric {name!r} (known: {', '.join(WORD_METRICS)})")
        if name == "tcpwer" and collar is None:
            raise ValueError("tcpwer needs a collar (the [settings] key word_collar, seconds): "
                             "meeteval has no default")
        if collar is not None and not (collar >= 0.0 and np.isfinite(collar)):
            raise ValueError(f"word_collar must be a finite number >= 0, not {collar!r}")
        self.name = name
        self.collar = None if collar is None else float(collar)
        self.timed = name == "tcpwer"

    @property
    def signature(self) -> str:
        parts = [self.name]
        if self.name == "tcpwer":
            parts.append(f"collar:{self.collar:g}")
        if self.name == "wder":
            parts.append("align:" + ("plain" if self.collar is None else f"tc{self.collar:g}"))
        parts.append(f"meeteval:{meeteval_version()}")
        return "|".join(parts)

    @property
    def description(self) -> str:
        return f"{DISPLAY[self.name]} on meeteval {meeteval_version()}"

    def score(self, stats: np.ndarray) -> float:
        errors, total = float(stats[0]), float(stats[1])
        if total <= 0:
            return float("nan")
        return 100.0 * errors / total

    def errors(self, stats: np.ndarray) -> tuple[float, float]:
        return (float(stats[0]), float(stats[1]))

    def scored(self, stats: np.ndarray) -> bool:
        return float(stats[1]) > 0.0

    def components(self, stats: np.ndarray) -> dict[str, float]:
        if self.name == "wder":
            return {"speaker_errors": float(stats[0]), "paired_words": float(stats[1])}
        return {"errors": float(stats[0]), "reference_words": float(stats[1])}

    def stats(self, reference: Sequence[Word], hypothesis: Sequence[Word],
              unmappable: Collection[str] = ()) -> np.ndarray:
        """Statistics of `hypothesis` (words with speaker None are not in it; those with a
        speaker in `unmappable` are never mapped)."""
        if self.name == "wder":
            return wder_stats(reference, hypothesis, self.collar, unmappable)
        scorer = Scorer(reference, hypothesis, [w.speaker for w in hypothesis],
                        self.collar if self.timed else None, unmappable)
        return scorer.stats()

    def __repr__(self) -> str:
        return f"WordMetric({self.name!r}, collar={self.collar!r})"


def _ordered(words: Sequence[Word]) -> list[int]:
    return sorted(range(len(words)), key=lambda i: (words[i].order, i))


class Scorer:
    """cpWER / tcpWER errors of one document's hypothesis words under labels that change.

    `hypothesis` are the candidate words (text and times); `labels[i]` is the speaker of
    word i, None when the hypothesis does not contain it. `collar` None: cpWER (untimed),
    else tcpWER with that collar."""

    def __init__(self, reference: Sequence[Word], hypothesis: Sequence[Word],
                 labels: Sequence[str | None], collar: float | None,
                 unmappable: Collection[str] = ()):
        self.timed = collar is not None
        vocab: dict[str, int] = {}
        ref_order = _ordered(reference)
        self.n_reference = len(reference)
        by_ref: dict[str, list[int]] = {}
        for i in ref_order:
            by_ref.setdefault(str(reference[i].speaker), []).append(i)
        self.ref_labels = list(by_ref)   # meeteval's order: first appearance in time
        self.ref_streams = []
        for label in self.ref_labels:
            idx = by_ref[label]
            self.ref_streams.append(engine.Stream(
                [vocab.setdefault(reference[i].word, len(vocab)) for i in idx],
                [reference[i].start for i in idx], [reference[i].end for i in idx], idx))
        order = _ordered(hypothesis)
        self.order = order                      # global position -> hypothesis index
        self.position = np.empty(len(order), np.int64)
        self.position[order] = np.arange(len(order))
        c = collar or 0.0
        mids = [hypothesis[i].midpoint for i in order]
        self.all = engine.Stream([vocab.setdefault(hypothesis[i].word, len(vocab)) for i in order],
                                 [m - c for m in mids], [m + c for m in mids],
                                 np.arange(len(order)))
        self.labels: list[str | None] = list(labels)
        self.unmappable = frozenset(unmappable)
        self._build()

    def _group(self) -> None:
        """The hypothesis labels in first-appearance order (meeteval's groupby order), each
        with the positions of its words; words of unmappable labels counted apart."""
        by_label: dict[str, list[int]] = {}
        self.n_unmappable = 0
        for g, i in enumerate(self.order):
            label = self.labels[i]
            if label is None:
                continue
            if label in self.unmappable:
                self.n_unmappable += 1
                continue
            by_label.setdefault(label, []).append(g)
        self.hyp_labels = list(by_label)
        self.positions = {h: np.array(by_label[h], np.int64) for h in self.hyp_labels}

    def _build(self) -> None:
        self._group()
        self.pairs = {(r, h): engine.PairDistance(a, self.all.take(self.positions[h]),
                                                  self.timed)
                      for r, a in zip(self.ref_labels, self.ref_streams)
                      for h in self.hyp_labels}
        self._assigned = None

    # -- the assignment -----------------------------------------------------------------

    def _assign(self, hyp_labels, distance, hyp_sizes):
        """(total distance, {hypothesis label: reference label}) of the minimum assignment
        on meeteval's padded matrix (an unassigned stream costs its length)."""
        from scipy.optimize import linear_sum_assignment

        n_ref, n_hyp = len(self.ref_labels), len(hyp_labels)
        size = max(n_ref, n_hyp)
        if size == 0:
            return 0, {}
        matrix = np.zeros((size, size), np.int64)
        for r, a in enumerate(self.ref_streams):
            matrix[r, :] = len(a)
        for h, label in enumerate(hyp_labels):
            matrix[n_ref:, h] = hyp_sizes[label]
            for r, ref_label in enumerate(self.ref_labels):
                matrix[r, h] = distance(ref_label, label)
        rows, cols = linear_sum_assignment(matrix)
        mapping = {hyp_labels[c]: self.ref_labels[r] for r, c in zip(rows, cols)
                   if r < n_ref and c < n_hyp}
        return int(matrix[rows, cols].sum()), mapping

    def current(self) -> tuple[int, dict[str, str]]:
        if self._assigned is None:
            self._assigned = self._assign(
                self.hyp_labels, lambda r, h: self.pairs[(r, h)].distance,
                {h: len(p) for h, p in self.positions.items()})
        return self._assigned

    def stats(self) -> np.ndarray:
        return np.array([self.current()[0] + self.n_unmappable, self.n_reference], float)

    def mapping(self) -> dict[str, str]:
        """Hypothesis label -> reference label of the current assignment."""
        return dict(self.current()[1])

    # -- a change of labels ---------------------------------------------------------------

    def errors_with(self, changes: Mapping[int, object]) -> int:
        """Errors of the hypothesis with word i (hypothesis index) relabelled to
        `changes[i]`: a label, None (not in the hypothesis) or `UNMAPPABLE`."""
        if not changes:
            return self.current()[0] + self.n_unmappable
        moved = sorted((int(self.position[i]), new) for i, new in changes.items())
        g_lo, g_hi = moved[0][0], moved[-1][0]
        new_of = dict(moved)
        extra_unmappable = 0
        touched: set[str] = set()
        for g, new in moved:
            old = self.labels[self.order[g]]
            if old is not None and old not in self.unmappable:
                touched.add(old)
            elif old in self.unmappable:
                extra_unmappable -= 1
            if new is UNMAPPABLE or new in self.unmappable:
                extra_unmappable += 1
            elif new is not None:
                touched.add(new)   # type: ignore[arg-type]
        middles: dict[str, tuple[int, int, engine.Stream]] = {}
        sizes = {h: len(p) for h, p in self.positions.items()}
        first = {h: int(p[0]) for h, p in self.positions.items()}
        for label in touched:
            old_pos = self.positions.get(label, np.empty(0, np.int64))
            i = int(np.searchsorted(old_pos, g_lo, "left"))
            j = int(np.searchsorted(old_pos, g_hi, "right"))
            kept = [g for g in old_pos[i:j].tolist() if g not in new_of]
            gained = [g for g, new in moved if new == label and new is not UNMAPPABLE]
            middle = sorted(kept + gained)
            middles[label] = (i, j, self.all.take(np.array(middle, np.int64)))
            sizes[label] = len(old_pos) - (j - i) + len(middle)
            heads = ([int(old_pos[0])] if i > 0 else []) + middle[:1] + (
                [int(old_pos[j])] if j < len(old_pos) else [])
            if heads:
                first[label] = min(heads)
        # meeteval's matrix order: speakers by their first word, so that ties in the
        # assignment resolve as meeteval's do
        labels = sorted((l for l in set(self.hyp_labels) | touched if sizes.get(l, 0) > 0),
                        key=lambda l: first[l])
        cache: dict[tuple[str, str], int] = {}

        def distance(r: str, h: str) -> int:
            if h not in middles:
                return self.pairs[(r, h)].distance
            key = (r, h)
            if key not in cache:
                i, j, middle = middles[h]
                pair = self.pairs.get((r, h))
                if pair is None:
                    cache[key] = engine.distance(
                        self.ref_streams[self.ref_labels.index(r)], middle, self.timed)
                else:
                    cache[key] = pair.replaced(i, j, middle)
            return cache[key]

        total, _ = self._assign(labels, distance, sizes)
        return total + self.n_unmappable + extra_unmappable

    def relabel(self, labels: Sequence[str | None]) -> None:
        """Take `labels` as current (rebuilds the pairs of the labels whose words changed)."""
        old_positions = self.positions
        self.labels = list(labels)
        old_pairs = self.pairs
        self._group()
        self.pairs = {}
        for h in self.hyp_labels:
            same = h in old_positions and np.array_equal(old_positions[h], self.positions[h])
            for r, a in zip(self.ref_labels, self.ref_streams):
                self.pairs[(r, h)] = old_pairs[(r, h)] if same else engine.PairDistance(
                    a, self.all.take(self.positions[h]), self.timed)
        self._assigned = None


# --------------------------------------------------------------------------------------------
# WDER


def wder_stats(reference: Sequence[Word], hypothesis: Sequence[Word],
               collar: float | None, unmappable: Collection[str] = ()) -> np.ndarray:
    """[speaker errors, paired words] of WDER (module docstring)."""
    return WderScorer(reference, hypothesis, collar).stats([w.speaker for w in hypothesis],
                                                            unmappable)


def wder_mapping(reference: Sequence[Word], hypothesis: Sequence[Word],
                 collar: float | None) -> dict[str, str]:
    """Hypothesis label -> reference label of WDER's mapping."""
    return WderScorer(reference, hypothesis, collar).mapping([w.speaker for w in hypothesis])


class WderScorer:
    """WDER of one document's hypothesis words under labels that change.

    The alignment is speaker-agnostic: it depends on which words the hypothesis contains
    (those with a label), not on their labels, so it is computed once per such set (meeteval's
    `align`, the last few kept) and a relabelling costs a count and a Hungarian mapping."""

    KEEP = 4

    def __init__(self, reference: Sequence[Word], hypothesis: Sequence[Word],
                 collar: float | None):
        self.collar = collar
        ref_order = _ordered(reference)
        self.ref_labels = sorted({str(reference[i].speaker) for i in ref_order})
        index = {s: k for k, s in enumerate(self.ref_labels)}
        self.ref_speaker = np.array([index[str(reference[i].speaker)] for i in ref_order],
                                    np.int64)
        self.ref_seg = [dict(session_id="x", speaker="x", words=reference[i].word,
                             start_time=reference[i].start, end_time=reference[i].end)
                        for i in ref_order]
        self.hyp_order = _ordered(hypothesis)
        self.hyp_seg = [dict(session_id="x", speaker="x", words=hypothesis[i].word,
                             start_time=hypothesis[i].start, end_time=hypothesis[i].end)
                        for i in self.hyp_order]
        self._alignments: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def _pairs(self, labels: Sequence[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """(reference word, hypothesis word index) of the pairs the alignment makes."""
        from meeteval.wer.wer.time_constrained import align

        included = [i for i in self.hyp_order if labels[i] is not None]
        mask = np.zeros(len(labels), bool)
        mask[included] = True
        key = np.packbits(mask).tobytes()
        hit = self._alignments.get(key)
        if hit is None:
            position = {i: k for k, i in enumerate(self.hyp_order)}
            segments = [self.hyp_seg[position[i]] for i in included]
            if not self.ref_seg or not segments:
                pairs = []
            else:
                with quiet_meeteval():
                    pairs = align(self.ref_seg, segments, style="index",
                                  collar=float("inf") if self.collar is None else self.collar)
            both = [(a, included[b]) for a, b in pairs if a is not None and b is not None]
            hit = (np.array([a for a, _ in both], np.int64),
                   np.array([b for _, b in both], np.int64))
            if len(self._alignments) >= self.KEEP:
                self._alignments.pop(next(iter(self._alignments)))
            self._alignments[key] = hit
        return hit

    def _counts(self, labels, unmappable):
        from scipy.optimize import linear_sum_assignment

        ref, hyp = self._pairs(labels)
        hyp_labels = sorted({labels[i] for i in hyp.tolist()} - set(unmappable) - {None})
        column = {s: k for k, s in enumerate(hyp_labels)}
        cols = np.array([column.get(labels[i], -1) for i in hyp.tolist()], np.int64)
        keep = cols >= 0
        counts = np.zeros((len(self.ref_labels), max(1, len(hyp_labels))), np.int64)
        np.add.at(counts, (self.ref_speaker[ref[keep]], cols[keep]), 1)
        rows, chosen = linear_sum_assignment(counts, maximize=True)
        return len(ref), counts, rows, chosen, hyp_labels

    def stats(self, labels: Sequence[str | None], unmappable: Collection[str] = ()
              ) -> np.ndarray:
        paired, counts, rows, chosen, hyp_labels = self._counts(labels, unmappable)
        agree = int(counts[rows, chosen].sum()) if hyp_labels else 0
        return np.array([float(paired - agree), float(paired)])

    def mapping(self, labels: Sequence[str | None]) -> dict[str, str]:
        _, _, rows, chosen, hyp_labels = self._counts(labels, ())
        return {hyp_labels[c]: self.ref_labels[r] for r, c in zip(rows, chosen)
                if c < len(hyp_labels)}
