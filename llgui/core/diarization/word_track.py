"""The `Track` of the meeting word metrics (cpWER, tcpWER, WDER) on a diarization document.

The hypothesis words are the bundle's `hypothesis_words` when given, else the reference words
(speaker attribution only); their labels at h_0 are the given ones, or the hypothesis turns'
(`words.attribute`); after a step whose `adapted` gives new turns, the turns' (same rule).

A step corrects the hypothesis words whose midpoint lies in its windows (the windows of
`llgui.core.diarization.edit`, those of DER):

- corrected: each such word takes the reference speaker the reference gives it (its own
  speaker when the hypothesis words are the reference's; otherwise the reference turn's,
  by the attribution rule), under the hypothesis label the metric's assignment of h_{n-1}
  maps to that speaker, or a new label `+<speaker>` when none is; a word the reference gives
  no speaker leaves the hypothesis (nobody speaks there);
- impaired: each such word that the hypothesis contains goes to a speaker that is never
  mapped, so each counts as an error (for cpWER/tcpWER an insertion, with its reference word
  deleted or matched elsewhere; for WDER a paired word on a wrong speaker).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.diarization import edit
from llgui.core.diarization.words import (UNMAPPABLE, MidpointIndex, Scorer, WderScorer,
                                          WordMetric, attribute_labels)
from llgui.core.track import Scored
from llgui.core.types import DiarDocument, Step, Turn, Word

IMPAIRED_LABEL = "<impaired>"


def make_word_metric(name: str, settings: Mapping[str, object] | None = None) -> WordMetric:
    """cpWER, tcpWER or WDER from a bundle's `[settings]` (`word_collar`, seconds)."""
    settings = settings or {}
    collar = settings.get("word_collar")
    return WordMetric(name, None if collar is None else float(collar))  # type: ignore[arg-type]


class WordTrack:
    """One diarization document's words through its interaction log (implements `Track`)."""

    cost_unit = "seconds listened"

    def __init__(self, doc: DiarDocument, metric: WordMetric,
                 cost_model: CostModel = CostModel(),
                 others: Mapping[str, DiarDocument] | None = None):
        if not doc.words:
            raise ValueError(f"document {doc.id!r} has no reference words (the document key "
                             f"words = \"FILE\"), which {metric.name} scores")
        self.doc, self.metric, self.cost_model = doc, metric, cost_model
        self._others = dict(others or {})
        self.reference: tuple[Word, ...] = tuple(doc.words)
        given = doc.hypothesis_words is not None
        self.candidates: tuple[Word, ...] = tuple(doc.hypothesis_words if given else doc.words)
        self._given = given
        if given:
            self.labels = [w.speaker for w in self.candidates]
            self.truth = attribute_labels(self.candidates, doc.reference)
        else:
            self.labels = attribute_labels(self.candidates, doc.hypothesis)
            self.truth = [w.speaker for w in self.candidates]
        self._turns: tuple[Turn, ...] = tuple(doc.hypothesis)
        self._scorer = None if metric.name == "wder" else Scorer(
            self.reference, self.candidates, self.labels,
            metric.collar if metric.timed else None)
        self._wder = WderScorer(self.reference, self.candidates, metric.collar) \
            if metric.name == "wder" else None
        self._current: Scored | None = None
        self._turn_track = None
        self._midpoints = MidpointIndex(self.candidates)
        self._reference_labels = {str(w.speaker) for w in self.reference}
        self._taken: set[str] | None = None

    # -- the hypothesis and a step's versions ------------------------------------------------

    def hypothesis_words(self, labels=None) -> tuple[Word, ...]:
        """The hypothesis words (with their speakers; None: not in the hypothesis)."""
        labels = self.labels if labels is None else labels
        return tuple(Word(w.start, w.end, w.word, s, w.order)
                     for w, s in zip(self.candidates, labels))

    @property
    def hypothesis(self) -> tuple[Turn, ...]:
        """The current hypothesis turns (h_{n-1}), whose labels the words take."""
        return self._turns

    def windows(self, step: Step) -> tuple[tuple[float, float], ...]:
        return edit.step_windows(step, self.doc, self.cost_model)

    def corrected_labels(self, step: Step) -> dict[int, str | None]:
        """{word index: its corrected label} for the words of the step's windows."""
        inside = self._midpoints.inside(self.windows(step))
        if not inside:
            return {}
        mapping = self.mapping()
        label_of = {r: h for h, r in mapping.items()}
        taken = set(self.taken_labels())
        changes: dict[int, str | None] = {}
        for i in inside:
            speaker = self.truth[i]
            if speaker is None:
                changes[i] = None
                continue
            if speaker not in label_of:
                label_of[speaker] = edit.fresh_label(f"+{speaker}", taken)
                taken.add(label_of[speaker])
            changes[i] = label_of[speaker]
        return changes

    def impaired_labels(self, step: Step) -> dict[int, object]:
        inside = self._midpoints.inside(self.windows(step))
        return {i: UNMAPPABLE for i in inside if self.labels[i] is not None}

    def taken_labels(self) -> set[str]:
        """Every label of the current hypothesis and of the reference."""
        if self._taken is None:
            self._taken = {s for s in self.labels if s is not None} | self._reference_labels
        return self._taken

    def mapping(self) -> dict[str, str]:
        """Hypothesis label -> reference speaker of the metric's assignment of h_{n-1}."""
        if self._scorer is not None:
            return self._scorer.mapping()
        return self._wder.mapping(self.labels)

    def _impaired_label(self) -> str:
        return edit.fresh_label(IMPAIRED_LABEL, self.taken_labels())

    def corrected_words(self, step: Step) -> tuple[Word, ...]:
        labels = list(self.labels)
        for i, label in self.corrected_labels(step).items():
            labels[i] = label
        return self.hypothesis_words(labels)

    def impaired_words(self, step: Step) -> tuple[tuple[Word, ...], str]:
        """(the impaired words, the never-mapped label they went to)."""
        label = self._impaired_label()
        labels = list(self.labels)
        for i in self.impaired_labels(step):
            labels[i] = label
        return self.hypothesis_words(labels), label

    # -- Track --------------------------------------------------------------------------------

    def _scored(self, stats: np.ndarray) -> Scored:
        return Scored(self.metric.score(stats), stats)

    def current(self) -> Scored:
        if self._current is None:
            if self._scorer is not None:
                stats = self._scorer.stats()
            else:
                stats = self._wder.stats(self.labels)
            self._current = self._scored(stats)
        return self._current

    def corrected(self, step: Step) -> Scored:
        if self._scorer is not None:
            errors = self._scorer.errors_with(self.corrected_labels(step))
            return self._scored(np.array([errors, len(self.reference)], float))
        labels = list(self.labels)
        for i, label in self.corrected_labels(step).items():
            labels[i] = label
        return self._scored(self._wder.stats(labels))

    def impaired(self, step: Step) -> Scored:
        if self._scorer is not None:
            errors = self._scorer.errors_with(self.impaired_labels(step))
            return self._scored(np.array([errors, len(self.reference)], float))
        label = self._impaired_label()
        labels = list(self.labels)
        for i in self.impaired_labels(step):
            labels[i] = label
        return self._scored(self._wder.stats(labels, (label,)))

    def advance(self, step: Step) -> Scored:
        adapted = step.adapted
        if adapted is not None and adapted.turns is not None:
            self._turns = tuple(adapted.turns)
            self.labels = attribute_labels(self.candidates, self._turns)
            self._taken = None
            if self._scorer is not None:
                self._scorer.relabel(self.labels)
            self._current = None
            if self._turn_track is not None:
                self._turn_track.advance(step)
        return self.current()

    def corrected_hypothesis(self, step: Step) -> tuple[Turn, ...]:
        """The corrected turns of DER's construction: what a system that only memorised the
        answer returns as h_n (its words then take their labels from these turns)."""
        if self._turn_track is None:
            from llgui.core.diarization.der import DERMetric
            from llgui.core.diarization.track import DiarTrack

            doc = DiarDocument(self.doc.id, self.doc.time, self.doc.uri, self.doc.reference,
                               self._turns, self.doc.uem)
            self._turn_track = DiarTrack(doc, DERMetric(), self.cost_model, self._others)
        return self._turn_track.corrected_hypothesis(step)

    def cost(self, step: Step, cost_model: CostModel | None = None) -> float:
        model = self.cost_model if cost_model is None else cost_model
        if step.cost is not None and model.use_log_cost:
            return float(step.cost)
        target_doc = getattr(step.target, "doc2", None)
        seconds = edit.listened_seconds(step, self.doc, model, self._others.get(target_doc))
        return seconds * model.listen_weight
