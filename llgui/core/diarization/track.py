"""The diarization `Track`: one document's hypothesis over the interaction steps, DER or JER.

`DiarTrack` holds the hypothesis the human currently sees (h_{n-1}) and its statistics, and
for a step builds the corrected and impaired hypotheses of DESIGN.md 1.2 over the step's
windows (`llgui.core.diarization.edit`) and scores them with the fast exact path of
`llgui.core.diarization.der`. A document is the unit of caching: each score rescoring the one document
costs a few milliseconds even for an hour of audio, and pooled scores come from summing the
documents' statistics (`Metric.score(sum of stats)`).

The speaker mapping used to name the reference speakers inside a corrected window is the DER
mapping (`DiarizationErrorRate`'s Hungarian mapping) of the current hypothesis, under the
metric's collar, skip_overlap and the document's UEM, for DER and JER alike.
"""
from __future__ import annotations

from typing import Mapping

from llgui.core.diarization import edit
from llgui.core.cost import CostModel
from llgui.core.diarization.der import DERMetric, JERMetric, der_components, error_regions
from llgui.core.track import Scored
from llgui.core.types import DiarDocument, Step, Turn

Span = tuple[float, float]

DIAR_METRICS = {"der": DERMetric, "jer": JERMetric}


def make_diar_metric(name: str, settings: Mapping[str, object] | None = None):
    """`DERMetric` or `JERMetric` from a bundle's `[settings]` (`collar`: total width in
    seconds, `skip_overlap`: bool, optional `uem`: "auto" | "given" | "union")."""
    settings = settings or {}
    try:
        cls = DIAR_METRICS[name]
    except KeyError:
        raise ValueError(
            f"unknown diarization metric {name!r} (known: {', '.join(DIAR_METRICS)})"
        ) from None
    return cls(collar=float(settings.get("collar", 0.0) or 0.0),
               skip_overlap=bool(settings.get("skip_overlap", False)),
               uem=str(settings.get("uem", "auto")))


class DiarTrack:
    """One diarization document through its interaction log (implements `Track`).

    `others` maps document ids to documents, for the second window of a `same` step that
    points at another document (its length counts in the cost; only this document is scored).
    """

    cost_unit = "seconds listened"
    """What `cost` counts (named on axes and in the JSON)."""

    def __init__(self, doc: DiarDocument, metric: DERMetric | JERMetric,
                 cost_model: CostModel = CostModel(),
                 others: Mapping[str, DiarDocument] | None = None):
        self.doc = doc
        self.metric = metric
        self.cost_model = cost_model
        self._others = dict(others or {})
        self._hypothesis: tuple[Turn, ...] = tuple(doc.hypothesis)
        self._reference_labels = frozenset(t.speaker for t in doc.reference)
        self._current: Scored | None = None
        self._mapping: dict[str, str] | None = None
        # DER and JER: scored by region (only the turns around a step's windows are swept
        # again); the JER sums ride on the same sweep as the DER ones
        self._jer = isinstance(metric, JERMetric)
        self._incremental = self._make_incremental()

    def share_scoring(self, other: "DiarTrack") -> bool:
        """Score through `other`'s incremental state (the same document, hypothesis and
        settings: a DER and a JER track of one session), so a step's sweeps are made once.
        False (nothing shared) when they differ. The first `advance` moves both: take
        every sharing track's `corrected` and `impaired` of a step before advancing any."""
        mine, theirs = self._incremental, other._incremental
        if (mine is None or theirs is None or self.doc is not other.doc
                or self._hypothesis is not other._hypothesis
                or self.cost_model != other.cost_model
                or (self.metric.collar, self.metric.skip_overlap)
                != (other.metric.collar, other.metric.skip_overlap)):
            return False
        self._incremental = theirs
        return True

    def scorer_at(self, hypothesis: Sequence[Turn]):
        """A scorer of this document and metric's settings standing at `hypothesis` (an
        `IncrementalDER`, not shared: `llgui.core.diarization.region_cursor` moves it)."""
        from llgui.core.diarization.incremental import IncrementalDER

        return IncrementalDER(self.doc.reference, tuple(hypothesis), self.doc.uem,
                              self.metric.collar, self.metric.skip_overlap)

    def _make_incremental(self):
        from llgui.core.diarization.incremental import IncrementalDER

        return IncrementalDER(self.doc.reference, self._hypothesis, self.doc.uem,
                              self.metric.collar, self.metric.skip_overlap)

    # -- the hypothesis and what a step does to it ------------------------------------------

    @property
    def hypothesis(self) -> tuple[Turn, ...]:
        """The current hypothesis h_{n-1} (turns in seconds)."""
        return self._hypothesis

    def at(self, hypothesis: tuple[Turn, ...], mapping: Mapping[str, str] | None = None
           ) -> "DiarTrack":
        """A track of the same document and metric standing at `hypothesis` (shared, not
        copied): the walkthrough rebuilds a step's corrected and impaired versions with it.
        `mapping`: the hypothesis' optimal mapping when the caller already has it."""
        other = DiarTrack.__new__(DiarTrack)
        other.doc, other.metric, other.cost_model = self.doc, self.metric, self.cost_model
        other._others = self._others
        other._hypothesis = hypothesis
        other._reference_labels = self._reference_labels
        other._current = other._incremental = None
        other._mapping = dict(mapping) if mapping is not None else None
        other._jer = self._jer
        return other

    def mapping(self) -> dict[str, str]:
        """Optimal mapping of the current hypothesis, hypothesis label -> reference label."""
        if self._mapping is None and self._incremental is not None:
            self._mapping = dict(self._incremental.current().mapping)
        if self._mapping is None:
            self._mapping = dict(der_components(
                self.doc.reference, self._hypothesis, self.doc.uem,
                self.metric.collar, self.metric.skip_overlap).mapping)
        return dict(self._mapping)

    def known_mapping(self) -> dict[str, str] | None:
        """`mapping()` when it needs no sweep of the whole show (its incremental scorer holds
        it, or it was given or made already), else None."""
        if self._mapping is None and self._incremental is None:
            return None
        return self.mapping()

    def windows(self, step: Step) -> tuple[Span, ...]:
        """The windows of this document that `step` corrects (sorted, merged, seconds)."""
        return edit.step_windows(step, self.doc, self.cost_model)

    def other_window(self, step: Step) -> tuple[str, Span] | None:
        """A `same` step's window in another document: (doc id, (start, end)), else None."""
        target_doc = getattr(step.target, "doc2", None)
        return edit.other_window(step, self.cost_model, self._others.get(target_doc),
                                      self.doc.id)

    def corrected_hypothesis(self, step: Step) -> tuple[Turn, ...]:
        return edit.corrected_turns(self.doc.reference, self._hypothesis,
                                         self.windows(step), self.mapping())

    def impaired_hypothesis(self, step: Step) -> tuple[tuple[Turn, ...], str]:
        """(turns, the unmappable label their windowed speech went to)."""
        return edit.impaired_turns(self._hypothesis, self.windows(step),
                                        reserved=self._reference_labels)

    def error_regions(self, mapping: Mapping[str, str] | None = None
                      ) -> list[tuple[float, float, str]]:
        """Where the current hypothesis is correct, confused, missed or false alarm."""
        if mapping is None and self._incremental is not None:
            return self._incremental.error_regions()
        return error_regions(self.doc.reference, self._hypothesis, self.doc.uem,
                             self.metric.collar, self.metric.skip_overlap, mapping)

    # -- Track ------------------------------------------------------------------------------

    def error_region_arrays(self) -> dict:
        """`error_regions()` (optimal mapping) as kind -> (starts, ends) arrays (seconds)."""
        if self._incremental is None:
            self._incremental = self._make_incremental()
        return self._incremental.error_region_arrays()

    def _score(self, hypothesis, unmappable=()) -> Scored:
        stats = self.metric.stats(self.doc.reference, hypothesis, self.doc.uem, unmappable)
        return Scored(self.metric.score(stats), stats)

    def current(self) -> Scored:
        if self._current is None and self._incremental is not None:
            inc = self._incremental
            components = inc.current_jer() if self._jer else inc.current()
            stats = components.as_stats()
            self._current = Scored(self.metric.score(stats), stats)
            if self._mapping is None:
                self._mapping = dict(inc.current().mapping)
        if self._current is None:
            if isinstance(self.metric, DERMetric):
                # one sweep gives the score and the mapping the next step's corrections use
                components = self.metric.evaluate(self.doc.reference, self._hypothesis,
                                                  self.doc.uem)
                stats = components.as_stats()
                self._current = Scored(self.metric.score(stats), stats)
                if self._mapping is None:
                    self._mapping = dict(components.mapping)
            else:
                self._current = self._score(self._hypothesis)
        return self._current

    def corrected(self, step: Step) -> Scored:
        if self._incremental is None:
            return self._score(self.corrected_hypothesis(step))
        windows = self.windows(step)
        if not windows:
            return self._score(self.corrected_hypothesis(step))
        a, b = windows[0][0], windows[-1][1]
        inc = self._incremental
        local = self._shared_local("corrected", step, lambda: edit.corrected_turns(
            inc.overlapping(a, b, reference=True), inc.overlapping(a, b), windows,
            self.mapping(), taken=inc.labels | self._reference_labels))
        return self._scored(inc.score_replaced(a, b, local, jer=self._jer))

    def _shared_local(self, kind: str, step: Step, build):
        """The step's local turns, built once for the tracks sharing this scorer (same
        document, hypothesis, mapping and cost model); forgotten when the hypothesis moves."""
        memo = self._incremental._memo
        key = (kind, id(step))
        hit = memo.get(key)
        if hit is not None and hit[0] is step:
            return hit[1]
        value = build()
        memo[key] = (step, value)
        return value

    def impaired(self, step: Step) -> Scored:
        if self._incremental is None or not self.windows(step):
            turns, label = self.impaired_hypothesis(step)
            return self._score(turns, (label,))
        windows = self.windows(step)
        a, b = windows[0][0], windows[-1][1]
        inc = self._incremental
        local, label = self._shared_local("impaired", step, lambda: edit.impaired_turns(
            inc.overlapping(a, b), windows, reserved=self._reference_labels, labels=inc.labels))
        return self._scored(inc.score_replaced(a, b, local, (label,), jer=self._jer))

    def _scored(self, components) -> Scored:
        stats = components.as_stats()
        return Scored(self.metric.score(stats), stats)

    def advance(self, step: Step) -> Scored:
        adapted = step.adapted
        if adapted is not None and adapted.turns is not None:
            self._hypothesis = tuple(adapted.turns)
            self._current = None
            self._mapping = None
            if self._incremental is not None:
                self._incremental.advance(self._hypothesis)
        return self.current()

    def cost(self, step: Step, cost_model: CostModel | None = None) -> float:
        """The log's cost when the model's `use_log_cost` is set and the log gives one, else
        the seconds listened (both windows of a `same`, even across documents) times
        `listen_weight`."""
        model = self.cost_model if cost_model is None else cost_model
        if step.cost is not None and model.use_log_cost:
            return float(step.cost)
        target_doc = getattr(step.target, "doc2", None)
        seconds = edit.listened_seconds(step, self.doc, model,
                                             self._others.get(target_doc))
        return seconds * model.listen_weight
