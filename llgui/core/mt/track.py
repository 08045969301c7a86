"""The MT `Track`: one document's hypothesis over interaction steps, with cached statistics.

`MTTrack` keeps, for one `MTDocument` and one `MTMetric`, the reference information of every
segment and the statistics matrix (n_segments, n_stats) of the hypothesis the human currently
sees, with its column sums. A step only swaps rows:

- `corrected(step)`: the row of the corrected segment becomes the statistics of its correct
  version (the first reference for kind `reference`, the human's post-edit for `post_edit`);
- `impaired(step)`: that row becomes `metric.impaired(row)` (DESIGN.md 1.2);
- `advance(step)`: the rows of the segments `step.adapted.lines` changes are recomputed.

Nothing ever rescores the document. Statistics of a text are a pure function of (segment,
text), so they are memoised: the corrected version of a segment and any adapted line seen
twice cost nothing the second time; across runs and bundles, the disk cache of
`llgui.core.mt.stats_cache` serves every row it has seen (same text, references, settings and
library versions). A track is mutable (advance moves it): one per job.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Iterable, Sequence

import numpy as np

from llgui.core.mt import stats_cache
from llgui.core.mt.ipmt import PrefixAnswer, prefix_fixed, prefix_versions
from llgui.core.cost import CostModel
from llgui.core.jobs import check, report
from llgui.core.mt.script import UNITS, count_units, detect_unit, units
from llgui.core.mt.stats import BLEUMetric, MTMetric, word_edits
from llgui.core.track import Scored
from llgui.core.types import MT_KINDS, MTDocument, SentenceTarget, Step

_CHUNK = 256
"""Segments between two cancel checks while the statistics are extracted."""

_SHARED_LIMIT = 30_000
"""Most segments' reference information kept across tracks (see `shared_reference_info`)."""
_shared: "OrderedDict[tuple, object]" = OrderedDict()
_shared_lock = threading.Lock()


def shared_reference_info(metric: MTMetric, refs: Sequence[str | None]) -> object:
    """`metric.reference_info(refs)`, made once for every track of the same settings: the
    systems of a bundle share their references (15 systems of WMT23 en-zh made each
    segment's n-grams 15 times, half of `llgui score`). Keyed by the metric's settings hash
    (`stats_cache.namespace`) and the texts; least recently used first out beyond
    `_SHARED_LIMIT`. The information is read, never written, by `segment_stats`, so tracks on
    other threads share it; the metric still counts the references for its signature
    (`note_references`, as every track does on creation)."""
    key = (stats_cache.metric_namespace(metric), tuple(refs))
    with _shared_lock:
        info = _shared.get(key)
        if info is not None:
            _shared.move_to_end(key)
            return info
    info = metric.reference_info(refs)
    with _shared_lock:
        _shared[key] = info
        while len(_shared) > _SHARED_LIMIT:
            _shared.popitem(last=False)
    return info

_MEMO_LIMIT = 100_000
"""Most (segment, text) statistics rows kept; beyond it the memo is cleared (pure cache)."""


class MTTrack:
    """Implements `llgui.core.track.Track` for machine translation."""

    def __init__(self, doc: MTDocument, metric: MTMetric, *, unit: str | None = None,
                 progress=None, should_stop=None) -> None:
        """Extracts every segment's statistics (seconds for 100,000 segments): `progress`
        gets fractions, `should_stop` is checked every `_CHUNK` segments (a cancel stops it
        within a few milliseconds). `unit` is the cost unit, "words" or "characters" (the
        bundle's, `llgui.core.mt.script.unit_of`); None: decided by the document's text."""
        if not doc.references:
            raise ValueError(f"document {doc.id!r}: no reference")
        n = doc.n_segments
        for k, stream in enumerate(doc.references):
            if len(stream) != n:
                raise ValueError(
                    f"document {doc.id!r}: reference {k + 1} has {len(stream)} segments, "
                    f"the hypothesis {n}"
                )
        self.doc = doc
        self.metric = metric
        if unit is None:
            unit = detect_unit(doc.references[0])
        if unit not in UNITS:
            raise ValueError(f"cost unit {unit!r} is not one of {', '.join(UNITS)}")
        self.cost_unit = unit
        """What a cost counts: "words" (whitespace-separated) or "characters" (non-space
        characters, for scripts written without spaces); a post-edit's edits likewise."""
        streams = doc.references   # each segment's references, zipped in C (10^5: 3 ms)
        self._refs = (list(zip(*streams)) if streams and all(len(r) == n for r in streams)
                      else [doc.segment_references(i) for i in range(n)])
        # reference information is made on first use: segments whose statistics come from the
        # disk cache (llgui.core.mt.stats_cache) need none until a step changes them
        self._ref_info: list[object] = [None] * n
        for i, refs in enumerate(self._refs):
            if i % _CHUNK == 0 and i:
                check(should_stop)
            metric.note_references(refs)
        self._hyp = list(doc.hypothesis)
        done = [0]

        def compute(i: int) -> np.ndarray:
            # a cancel stops the extraction within one chunk of segments
            done[0] += 1
            if done[0] % 16 == 0:   # a long TER segment takes milliseconds (sacrebleu: more)
                check(should_stop)
            if done[0] % _CHUNK == 0:
                report(progress, done[0] / n)
            return metric.segment_stats(self._hyp[i], self._info(i))

        self._stats = stats_cache.segment_rows(metric, self._hyp, self._refs, compute,
                                               checkpoint=lambda: check(should_stop))
        self._total = self._stats.sum(axis=0)
        self._memo: dict[tuple[int, str], np.ndarray] = {}

    # -- what the human sees --------------------------------------------------------------------

    @property
    def hypothesis(self) -> tuple[str, ...]:
        """The current hypothesis h_{n-1}, one string per segment."""
        return tuple(self._hyp)

    @property
    def stats(self) -> np.ndarray:
        """Read-only copy of the current statistics, shape (n_segments, n_stats)."""
        view = self._stats.copy()
        view.setflags(write=False)
        return view

    def current(self) -> Scored:
        return Scored(self.metric.score(self._total), self._total.copy())

    def segment_scores(self) -> np.ndarray:
        """Each segment's score alone with the metric's settings (as sacrebleu's
        sentence_score would give without effective order), shape (n_segments,). O(n)."""
        return np.array([self.metric.score(row) for row in self._stats], dtype=np.float64)

    # -- the three scores of a step ---------------------------------------------------------

    def corrected(self, step: Step) -> Scored:
        """S_cor: the corrected segment replaced by its correct version."""
        index = self._segment(step)
        return self._swapped(index, self._correct_row(step, index))

    def impaired(self, step: Step) -> Scored:
        """S_imp: the corrected segment replaced by a strictly wrong version."""
        index = self._segment(step)
        if step.kind == "prefix":   # the typed text replaced by one that matches nothing
            return self._swapped(index, self._row(index, self._prefix_versions(step, index)[1]))
        return self._swapped(index, self.metric.impaired(self._stats[index]))

    def advance(self, step: Step) -> Scored:
        """Take the step's adapted hypothesis as current (unchanged when `adapted` is None)
        and return S_adapt."""
        self._segment(step)  # a step that does not fit the document moves nothing
        changes = self._adapted_changes(step)
        rows = {index: self._row(index, text) for index, text in changes.items()}
        total = self._total.copy()
        for index, text in changes.items():  # all rows computed first: no half-moved track
            total += rows[index] - self._stats[index]
            self._stats[index] = rows[index]
            self._hyp[index] = text
        # a running sum: exact for integer counts (all but multi-reference TER, whose average
        # reference lengths drift by ~1e-16 relative per swap; the tests bound it at 1e-9)
        self._total = total
        return self.current()

    def cost(self, step: Step, cost_model: CostModel) -> float:
        """Human cost in `cost_unit`: the log's cost if given and the model lets it win;
        otherwise the reference's words or characters x reference_weight for `reference`,
        the edits (S+D+I over words or characters) from the segment the human saw to the
        post-edit x post_edit_weight for `post_edit`."""
        if step.cost is not None and cost_model.use_log_cost:
            return float(step.cost)
        index = self._segment(step)
        unit = self.cost_unit
        if step.kind == "reference":
            return count_units(self.doc.references[0][index], unit) * cost_model.reference_weight
        if step.kind == "prefix":   # what was typed (an acceptance costs nothing)
            answer = self._prefix_answer(step)
            typed = (len(answer.typed) if answer.unit == "character"   # keystrokes
                     else count_units(answer.typed, unit))
            return typed * cost_model.post_edit_weight
        edited = self._post_edit_text(step)
        edits = word_edits(units(self._hyp[index], unit), units(edited, unit))
        return edits * cost_model.post_edit_weight

    # -- for the GUI ----------------------------------------------------------------------------

    def corrected_hypothesis(self, step: Step) -> tuple[str, ...]:
        """The current hypothesis with the corrected segment replaced by its correct version."""
        index = self._segment(step)
        texts = list(self._hyp)
        texts[index] = self._correct_text(step, index)
        return tuple(texts)

    def changed_segments(self, step: Step) -> tuple[int, ...]:
        """0-based segments the adapted hypothesis changes besides the corrected one (the
        system generalised there), sorted."""
        index = self._segment(step)
        return tuple(sorted(i for i in self._adapted_changes(step) if i != index))

    def correct_text(self, step: Step) -> str:
        """The correct version of the step's segment: its first reference, or the post-edit."""
        return self._correct_text(step, self._segment(step))

    def adapted_changes(self, step: Step) -> dict[int, str]:
        """0-based segment -> new text for the lines the step's `adapted` changes (those
        that differ from the current hypothesis); the track does not move."""
        self._segment(step)
        return self._adapted_changes(step)

    def reference_words(self, index: int) -> int:
        """Words (whitespace-separated, as the WMT LLMT scorer counts them, not BLEU tokens)
        of segment `index`'s first reference, the one a `reference` request answers: the n of
        llmt mode (BLEU only)."""
        if not isinstance(self.metric, BLEUMetric):
            raise TypeError("reference_words needs a BLEU metric")
        return len(self.doc.references[0][index].split())

    def prefetch(self, steps: Iterable[Step]) -> int:
        """Compute ahead the statistics `steps` will need (correct versions, adapted lines
        that are not the current text), e.g. on a worker before a replay. Returns how many
        rows were computed. Optional: every method computes what it misses."""
        computed = 0
        for step in steps:
            if step.doc != self.doc.id:
                continue
            index = self._segment(step)
            wanted = [(index, self._correct_text(step, index))]
            if step.adapted is not None and step.adapted.lines is not None:
                wanted += [(int(k) - 1, t) for k, t in step.adapted.lines.items()
                           if 1 <= int(k) <= len(self._hyp)]
            for key in wanted:
                if key not in self._memo:
                    self._row(*key)
                    computed += 1
        return computed

    # -- internals ------------------------------------------------------------------------------

    def _info(self, index: int) -> object:
        info = self._ref_info[index]
        if info is None:
            info = self._ref_info[index] = shared_reference_info(self.metric,
                                                                 self._refs[index])
        return info

    def _swapped(self, index: int, row: np.ndarray) -> Scored:
        total = self._total - self._stats[index] + row
        return Scored(self.metric.score(total), total)

    def _row(self, index: int, text: str) -> np.ndarray:
        key = (index, text)
        row = self._memo.get(key)
        if row is None:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            row = stats_cache.remember(
                self.metric, text, self._refs[index],
                lambda: self.metric.segment_stats(text, self._info(index)))
            row.setflags(write=False)
            self._memo[key] = row
        return row

    def _segment(self, step: Step) -> int:
        where = f"log line {step.line}: " if step.line else ""
        if step.kind not in MT_KINDS:
            raise ValueError(f"{where}step kind {step.kind!r} is not an MT kind "
                             f"({', '.join(MT_KINDS)})")
        if not isinstance(step.target, SentenceTarget):
            raise ValueError(f"{where}an MT step needs a sentence target")
        number = step.target.sentence
        if not 1 <= number <= len(self._hyp):
            raise ValueError(f"{where}sentence {number} is outside 1..{len(self._hyp)} "
                             f"of document {self.doc.id!r}")
        return number - 1

    def _post_edit_text(self, step: Step) -> str:
        if not isinstance(step.answer, str):
            where = f"log line {step.line}: " if step.line else ""
            raise ValueError(f"{where}a post_edit step needs the edited text as its answer")
        return step.answer

    def _prefix_answer(self, step: Step):
        if not isinstance(step.answer, PrefixAnswer):
            where = f"log line {step.line}: " if step.line else ""
            raise ValueError(f"{where}a prefix step needs the validated prefix and the typed "
                             "text as its answer")
        return step.answer

    def _prefix_versions(self, step: Step, index: int) -> tuple[str, str]:
        return prefix_versions(self.doc.references[0][index], self._prefix_answer(step))

    def _correct_text(self, step: Step, index: int) -> str:
        if step.kind == "reference":
            return self.doc.references[0][index]
        if step.kind == "prefix":   # shown: the line with what the expert fixed
            return prefix_fixed(self._hyp[index], self._prefix_answer(step))
        return self._post_edit_text(step)

    def _correct_row(self, step: Step, index: int) -> np.ndarray:
        if step.kind == "prefix":   # scored: from the step and the reference alone
            return self._row(index, self._prefix_versions(step, index)[0])
        return self._row(index, self._correct_text(step, index))

    def _adapted_changes(self, step: Step) -> dict[int, str]:
        """0-based segment -> new text, for the adapted lines that differ from the current."""
        adapted = step.adapted
        if adapted is None or adapted.lines is None:
            return {}
        changes: dict[int, str] = {}
        n = len(self._hyp)
        for number, text in adapted.lines.items():
            number = int(number)
            if not 1 <= number <= n:
                where = f"log line {step.line}: " if step.line else ""
                raise ValueError(f"{where}adapted line {number} is outside 1..{n} "
                                 f"of document {self.doc.id!r}")
            if text != self._hyp[number - 1]:
                changes[number - 1] = text
        return changes


def replay_scores(track: MTTrack, steps: Sequence[Step]) -> list[tuple[float, float, float]]:
    """(S_cor, S_imp, S_adapt) of each step in order, advancing `track`; a convenience for
    tests and benchmarks (the penalty engine adds penalties, costs and curves)."""
    out = []
    for step in steps:
        out.append((track.corrected(step).score, track.impaired(step).score,
                    track.advance(step).score))
    return out
