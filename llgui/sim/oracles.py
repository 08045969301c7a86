"""The simulated human: oracles that answer a system's requests or volunteer corrections.

Every oracle reads the reference and the hypothesis the human currently sees through a
`View`: the core's cached statistics of the document (MT: a TER `MTTrack`, whose per-sentence
edits say where the errors are; diarization: a DER `DiarTrack`, whose error regions and
optimal mapping say where and who). Nothing is rescored to choose a step: the view is the one
the session advances after every step.

- `allies`: answers the system's requests from the reference (active mode, the ALLIES user
  simulation); when a document is interactive it volunteers as `worst-first`.
- `worst-first`: the largest error first. MT: the sentence with the most TER edits, as a
  `post_edit` whose text is its first reference. Diarization: the longest missed or false
  alarm region as a `segment`, the longest confusion as a `name` (the system's own label the
  optimal mapping gives the reference speaker there).
- `in-order`: the same corrections from the start of the document, as a post-editor reads it.
- `random`: the same corrections in a random order (seeded).
- `prefix`, `prefix-char`: interactive-predictive MT (protocol 1.2, `llgui.sim.prefix`): in
  order, one sentence at a time, the longest common prefix with the reference, then the next
  reference word (character), until the sentence starts with the whole reference: accepted.
- `noisy:P[:BASE]`: BASE (default `allies`) giving a wrong answer with probability P: a `same`
  flipped, a boundary shifted by one window, a name swapped for another label, a segment left
  unannotated, a post-edit (or a requested reference) left unedited. The cost is what the
  right answer would have cost: the human spent the time.

An oracle never corrects the same sentence (or a point inside a window it already corrected)
twice in a document, and a candidate whose cost does not fit the budget left is skipped (at
most `LOOKAHEAD` candidates are tried; then the document ends). Randomness comes from
`numpy.random.default_rng((seed, document index, stream))`: deterministic per seed.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import Callable, Iterator

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.mt.ipmt import CHARACTER, WORD, next_prefix
from llgui.core.numbers import parse_number
from llgui.core.types import (
    DiarDocument, MTDocument, PointTarget, SameTarget, SentenceTarget, SpanTarget, Step, Target,
)

ORACLES = ("allies", "worst-first", "in-order", "random", "noisy:P", "prefix", "prefix-char")
LOOKAHEAD = 50
ERROR_KINDS = ("miss", "false_alarm", "confusion")
_DER_KINDS = ("correct", "confusion", "miss", "false_alarm")   # der.error_regions' kind order


@dataclass(frozen=True)
class Move:
    """One thing the human says: the kind and target of the step, the answer sent to the system
    (`answer`) and the answer the log records (`log_answer`; `log_kind` when it differs, e.g. a
    requested reference answered with an unedited post-edit by a noisy human)."""

    kind: str
    target: Target
    answer: object
    log_answer: object = None
    log_kind: str | None = None

    @property
    def logged_kind(self) -> str:
        return self.log_kind or self.kind


class View:
    """What the oracle sees of one document: the document (with its references), the current
    hypothesis through `track` (a TER `MTTrack` or a DER `DiarTrack`, advanced by the session),
    the cost model, and what was already corrected."""

    def __init__(self, document, track, cost_model: CostModel, index: int, seed: int):
        self.document = document
        self.track = track
        self.cost_model = cost_model
        self.index = index
        self.seed = seed
        self.corrected_sentences: set[int] = set()      # 0-based
        self.accepted_sentences: set[int] = set()       # 0-based, by a prefix oracle
        self.corrected_windows: list[tuple[float, float]] = []
        self.is_mt = isinstance(document, MTDocument)
        self.others: dict[str, "RefIndex"] = {}
        if not self.is_mt:
            self.ref = RefIndex(document.reference, cost_model.window)

    def rng(self, stream: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, self.index, stream])

    # -- MT ---------------------------------------------------------------------------------
    def sentence_edits(self) -> np.ndarray:
        """TER edits of every sentence of the current hypothesis, shape (n_segments,)."""
        return self.track.stats[:, 0]

    def reference(self, index: int) -> str:
        return self.document.references[0][index]

    # -- diarization ------------------------------------------------------------------------
    def speakers_at(self, t: float) -> list[str]:
        return self.ref.speakers_at(t)

    def turn_around(self, t: float) -> tuple[float, float]:
        return self.ref.turn_around(t)

    def error_regions(self) -> list[tuple[float, float, str]]:
        return [r for r in self.track.error_regions() if r[2] in ERROR_KINDS]

    def error_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`error_regions()` as arrays: starts, ends (seconds), kinds (index into
        ERROR_KINDS), in the same order (by start, then kind), from the track's cached
        regions (updated per step, not recomputed over the show)."""
        by_kind = self.track.error_region_arrays()
        cached = getattr(self, "_arrays", None)
        if cached is not None and cached[0] is by_kind:   # the hypothesis did not change
            return cached[1]
        order_of = {k: i for i, k in enumerate(_DER_KINDS)}
        kinds = [k for k in ERROR_KINDS if k in by_kind]
        starts = np.concatenate([by_kind[k][0] for k in kinds] + [np.empty(0)])
        ends = np.concatenate([by_kind[k][1] for k in kinds] + [np.empty(0)])
        codes = np.concatenate([np.full(by_kind[k][0].size, ERROR_KINDS.index(k))
                                for k in kinds] + [np.empty(0, dtype=int)]).astype(int)
        rank = np.array([order_of[k] for k in ERROR_KINDS])[codes]
        order = np.lexsort((rank, starts))
        result = starts[order], ends[order], codes[order]
        self._arrays = (by_kind, result)
        return result

    def was_corrected(self, t: float) -> bool:
        return any(s <= t <= e for s, e in self.corrected_windows)

    def were_corrected(self, times: np.ndarray) -> np.ndarray:
        """`was_corrected` of every time in `times` (bool array), in O((n + w) log w)."""
        if not self.corrected_windows or times.size == 0:
            return np.zeros(times.shape, dtype=bool)
        windows = np.array(sorted(self.corrected_windows), dtype=float)
        reach = np.maximum.accumulate(windows[:, 1])
        k = np.searchsorted(windows[:, 0], times, side="right") - 1
        return (k >= 0) & (reach[np.maximum(k, 0)] >= times)

    def hyp_label_of(self, ref_speaker: str) -> str:
        """The hypothesis label the optimal mapping gives `ref_speaker` (itself if none)."""
        for hyp, ref in self.track.mapping().items():
            if ref == ref_speaker:
                return hyp
        return ref_speaker


class RefIndex:
    """Reference turns of one recording, for point look-ups in O(log n + overlap)."""

    def __init__(self, turns, window: float = 3.0):
        self.turns = sorted(turns, key=attrgetter("start", "end", "speaker"))
        self._starts = [t.start for t in self.turns]
        self._longest = max((t.duration for t in self.turns), default=0.0)
        self.window = window

    def _around(self, t: float):
        j = bisect_right(self._starts, t) - 1
        while j >= 0 and self.turns[j].start >= t - self._longest:
            turn = self.turns[j]
            if turn.start <= t <= turn.end:
                yield turn
            j -= 1

    def overlapping(self, start: float, end: float) -> list:
        """Turns with end > start and start < end, in `turns` order."""
        lo = bisect_left(self._starts, start - self._longest)
        hi = bisect_left(self._starts, end)
        return [r for r in self.turns[lo:hi] if r.end > start and r.start < end]

    def speakers_at(self, t: float) -> list[str]:
        """Reference speakers active at t (sorted)."""
        return sorted({turn.speaker for turn in self._around(t) if t < turn.end})

    def turn_around(self, t: float) -> tuple[float, float]:
        """The reference turn containing t (union if several; the nearest if none)."""
        around = list(self._around(t))
        if around:
            return (min(r.start for r in around), max(r.end for r in around))
        if not self.turns:
            return (max(0.0, t - self.window / 2), t + self.window / 2)
        j = bisect_right(self._starts, t)
        near = [self.turns[k] for k in (j - 1, j) if 0 <= k < len(self.turns)]
        best = min(near, key=lambda r: min(abs(r.start - t), abs(r.end - t)))
        return (best.start, best.end)


Fits = Callable[[Move], bool]


class Oracle:
    """Base: answers requests from the reference; `candidates` orders the volunteered ones."""

    name = "oracle"
    default_mode = "interactive"

    def answer(self, kind: str, target: Target, view: View) -> Move:
        """The right answer to a request (from the reference)."""
        if view.is_mt:
            return Move("reference", target, view.reference(target.sentence - 1), None)
        if kind == "same":
            doc2 = target.doc2
            if doc2 is not None and doc2 != view.document.id:
                other = view.others.get(doc2)
                second = other.speakers_at(target.t2) if other is not None else []
            else:
                second = view.speakers_at(target.t2)
            first = view.speakers_at(target.t1)
            same = bool(set(first) & set(second))
            return Move("same", target, same, same)
        if kind == "boundary":
            span = view.turn_around(target.t)
            return Move("boundary", target, list(span), span)
        if kind == "name":
            speakers = view.speakers_at(target.t)
            label = view.hyp_label_of(speakers[0]) if speakers else "non-speech"
            return Move("name", target, label, label)
        raise ValueError(f"no answer for a {kind!r} request")

    def candidates(self, view: View) -> Iterator[Move]:
        return iter(())

    def volunteer(self, view: View, fits: Fits) -> Move | None:
        for tried, move in enumerate(self.candidates(view)):
            if tried >= LOOKAHEAD:
                return None
            if fits(move):
                return move
        return None

    def distort(self, move: Move, view: View) -> Move:
        return move


def _mt_move(view: View, index: int) -> Move:
    text = view.reference(index)
    return Move("post_edit", SentenceTarget(index + 1), text, text)


def _diar_move(view: View, region: tuple[float, float, str]) -> Move:
    start, end, kind = region
    if kind == "confusion":
        t = 0.5 * (start + end)
        speakers = view.speakers_at(t)
        label = view.hyp_label_of(speakers[0]) if speakers else "non-speech"
        return Move("name", PointTarget(t), label, label)
    turns = tuple((max(r.start, start), min(r.end, end), r.speaker)
                  for r in view.ref.overlapping(start, end))
    return Move("segment", SpanTarget(start, end), list(turns), turns)


class _Ordered(Oracle):
    """Volunteers corrections in an order of its own (worst-first, in-order, random)."""

    def order(self, values: np.ndarray, view: View) -> np.ndarray:
        raise NotImplementedError

    def candidates(self, view: View) -> Iterator[Move]:
        if view.is_mt:
            edits = view.sentence_edits()
            for index in self.order(edits, view):
                if edits[index] > 0 and int(index) not in view.corrected_sentences:
                    yield _mt_move(view, int(index))
            return
        starts, ends, kinds = view.error_arrays()
        keep = ~view.were_corrected(0.5 * (starts + ends))
        starts, ends, kinds = starts[keep], ends[keep], kinds[keep]
        for index in self.order(ends - starts, view):
            k = int(index)
            yield _diar_move(view, (float(starts[k]), float(ends[k]), ERROR_KINDS[kinds[k]]))


class WorstFirst(_Ordered):
    name = "worst-first"

    def order(self, values, view):
        return largest_first(values)


HEAD = 64
"""`largest_first` sorts this many first (a step tries at most LOOKAHEAD candidates)."""


def largest_first(values: np.ndarray, head: int = HEAD) -> Iterator[int]:
    """The indices of `values` largest first, ties in index order: `np.argsort(-values,
    kind="stable")`, lazily. The `head` largest (with every value tied with the last of them)
    are found by a partition and sorted alone; the rest is sorted only when asked for (a show
    has thousands of error regions, a step looks at the first few)."""
    negated = -np.asarray(values, dtype=float)
    if negated.size <= head:
        yield from np.argsort(negated, kind="stable").tolist()
        return
    cut = np.partition(negated, head - 1)[head - 1]
    if np.isnan(cut):   # NaN sorts last: the plain sort says where
        yield from np.argsort(negated, kind="stable").tolist()
        return
    top = np.flatnonzero(negated <= cut)          # in index order: a stable sort of them is
    first = top[np.argsort(negated[top], kind="stable")]   # the full sort's first len(top)
    yield from first.tolist()
    yield from np.argsort(negated, kind="stable")[first.size:].tolist()


class InOrder(_Ordered):
    name = "in-order"

    def order(self, values, view):
        return np.arange(len(values))


class Random(_Ordered):
    name = "random"

    def order(self, values, view):
        # one draw per step: the step count keeps the stream moving through the document
        step = len(view.corrected_sentences) + len(view.corrected_windows)
        return np.random.default_rng([view.seed, view.index, 1, step]).permutation(len(values))


class Allies(WorstFirst):
    name = "allies"
    default_mode = "active"


class Noisy(Oracle):
    """Wraps `base`; a wrong answer with probability `p`."""

    def __init__(self, p: float, base: Oracle):
        self.p, self.base = p, base
        self.name = f"noisy:{p:g}" + ("" if base.name == "allies" else f":{base.name}")
        self.default_mode = base.default_mode
        self._draws: dict[int, np.random.Generator] = {}

    def answer(self, kind, target, view):
        return self.base.answer(kind, target, view)

    def candidates(self, view):
        return self.base.candidates(view)

    def volunteer(self, view, fits):
        return self.base.volunteer(view, fits)

    def distort(self, move: Move, view: View) -> Move:
        rng = self._draws.setdefault(view.index, view.rng(2))
        if rng.random() >= self.p:
            return move
        if move.kind in ("post_edit", "reference"):
            seen = view.track.hypothesis[move.target.sentence - 1]
            return Move(move.kind, move.target, seen, seen, "post_edit")
        if move.kind == "same":
            return replace(move, answer=not move.answer, log_answer=not move.answer)
        if move.kind == "boundary":
            w = view.cost_model.window
            shift = w if rng.random() < 0.5 else -w
            start, end = move.log_answer
            last = view.document.extent[1]
            if end + shift > last or start + shift < 0:  # stay inside the recording
                shift = -shift
            if end + shift > last or start + shift < 0:
                shift = 0.0
            span = (start + shift, end + shift)
            return replace(move, answer=list(span), log_answer=span)
        if move.kind == "name":
            labels = sorted({t.speaker for t in view.track.hypothesis} - {move.answer})
            wrong = labels[int(rng.integers(len(labels)))] if labels else move.answer + "'"
            return replace(move, answer=wrong, log_answer=wrong)
        if move.kind == "segment":
            return replace(move, answer=[], log_answer=())
        return move


class PrefixOracle(Oracle):
    """The IPMT expert: in-order, one sentence at a time; the longest common prefix with the
    first reference, then the next word (`unit` "word") or character ("character"); accepts
    the sentence once it starts with the whole reference (the rest cut)."""

    default_mode = "interactive"

    def __init__(self, unit: str = WORD):
        self.unit = unit
        self.name = "prefix" if unit == WORD else "prefix-char"

    def volunteer(self, view: View, fits: Fits) -> Move | None:
        accepted = view.accepted_sentences
        hypothesis = view.track.hypothesis
        for index in range(len(hypothesis)):
            if index in accepted:
                continue
            answer = next_prefix(hypothesis[index], view.reference(index), self.unit)
            move = Move("prefix", SentenceTarget(index + 1), answer, answer)
            if not fits(move):
                return None     # the expert stops here: sentences are taken in order
            if answer.accept:
                accepted.add(index)
            return move
        return None

    def answer(self, kind, target, view):
        raise ValueError("the prefix oracle volunteers; it answers no request")


PREFIX_ORACLES = {"prefix": WORD, "prefix-char": CHARACTER}

_BASES = {"allies": Allies, "worst-first": WorstFirst, "in-order": InOrder, "random": Random}


def make_oracle(spec: str) -> Oracle:
    """An oracle from its name: allies, worst-first, in-order, random, noisy:P[:BASE]."""
    text = spec.strip()
    if text in _BASES:
        return _BASES[text]()
    if text in PREFIX_ORACLES:   # interactive-predictive MT (protocol 1.2)
        return PrefixOracle(PREFIX_ORACLES[text])
    if text.startswith("noisy:"):
        parts = text.split(":")
        why = ""
        try:   # the command line's number: ASCII digits only (float() reads '０.５')
            p = parse_number(parts[1].strip())
        except (IndexError, ValueError) as exc:
            p, why = math.nan, f" (P {exc})" if isinstance(exc, ValueError) else ""
        if not 0 <= p <= 1:
            raise ValueError(f"oracle {spec!r}: P must be a probability in [0, 1]{why}")
        base = parts[2] if len(parts) > 2 else "allies"
        if base not in _BASES or len(parts) > 3:
            raise ValueError(f"oracle {spec!r}: noisy wraps one of {', '.join(_BASES)}")
        return Noisy(p, _BASES[base]())
    raise ValueError(f"unknown oracle {spec!r} (known: {', '.join(ORACLES)}, "
                     "noisy:P:BASE)")


def oracle_folder(name: str) -> str:
    """A folder name for an oracle (no ':' in paths)."""
    return name.replace(":", "-")


def step_for(move: Move, doc: str, number: int, initiative: str, cost=None, adapted=None
             ) -> Step:
    """The log's step for a move."""
    return Step(doc=doc, step=number, initiative=initiative, kind=move.logged_kind,
                target=move.target, answer=move.log_answer, cost=cost, adapted=adapted)


__all__ = ["Move", "View", "Oracle", "make_oracle", "oracle_folder", "step_for", "ORACLES",
           "DiarDocument", "SameTarget"]
