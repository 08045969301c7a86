"""The penalty engine: penalised scores of human-assisted learning (DESIGN.md 1.1-1.3, 1.5).

For one document and its interaction steps, `replay()` walks a `Track` through the log and
returns, for every step n,

    S_cor,n, S_imp,n, S_adapt,n  and  S_pen,n = S_adapt,n + sum_{k<=n} (S_imp,k - S_cor,k)

(equation 1 of Prokopalo et al., LREC 2020, summed over steps), with the cost of each step, the
cumulative cost, the learning curve's normalised area and the Minimal Supervision Rate. The
same formula serves error rates (the penalty adds) and BLEU/chrF (the penalty subtracts).

`replay_bundle()` does this for every document of a bundle in processing order and adds the
aggregates of section 1.5: pooled statistics, the unweighted mean of per-document scores, and
(given a policy) the policy-weighted score. The pooled penalised score is computed on the
stream: for a step in document d, S_cor and S_imp are corpus scores in which document d is
swapped and every other document stands as it does at that moment (documents before d at
their final hypothesis, documents after d at their first).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.jobs import check
from llgui.core.metrics import for_replay
from llgui.core.track import Metric, Track
from llgui.core.types import MT_KINDS, Adapted, Bundle, Document, Step

MODES = ("paper", "llmt")


TIE = 1e-9
"""Scores this close are equal (`Replay.versus_base`): the libraries' agreement (DESIGN's
1e-9), far below any shown digit, far above a sum's rounding."""


@dataclass(frozen=True)
class StepScores:
    """The scores of one interaction step (percentages; cost in the cost model's units)."""

    step: int
    initiative: str
    kind: str
    cost: float
    cum_cost: float
    s_cor: float | None
    s_imp: float | None
    s_adapt: float
    s_pen: float
    s_pen_memorise: float | None = None
    """The memorise-only reference (figure 4 of the LREC paper): S_pen at this step had the
    system only applied the corrections (each h_n = h_{n-1} with c_n corrected, no
    generalisation); None when the replay did not compute it. S_pen above it is net
    generalisation, below it means the system's changes elsewhere cost more than they gave."""

    @property
    def penalty(self) -> float | None:
        """S_imp - S_cor of this step alone (negative for BLEU/chrF, positive for error rates)."""
        if self.s_cor is None or self.s_imp is None:
            return None
        return self.s_imp - self.s_cor


@dataclass(frozen=True, eq=False)
class Replay:
    """A document replayed through its interaction log under one metric."""

    doc: str
    metric: str
    mode: str
    signature: str
    higher_is_better: bool
    s_base: float
    steps: tuple[StepScores, ...]
    msr: float | None
    curve_area: float
    max_cost: float
    stats_base: np.ndarray = field(repr=False)
    stats_final: np.ndarray = field(repr=False)
    # per step: the stats of S_cor, S_imp, S_adapt (for pooled scores); None in llmt mode
    step_stats: tuple[tuple[np.ndarray, np.ndarray, np.ndarray] | None, ...] = field(
        default=(), repr=False
    )
    # llmt mode: the document's BLEU statistics at the end under the llmt rule (the credit of
    # the answered reference requests taken off its match counts), pooled over the stream
    llmt_stats: np.ndarray | None = field(default=None, repr=False)
    # the memorise-only chain (paper mode, when computed): per step the stats of its S_cor,
    # S_imp, S_adapt, and its final stats; for the pooled memorise-only S_pen
    memorise_stats: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...] | None = field(
        default=None, repr=False
    )
    memorise_final: np.ndarray | None = field(default=None, repr=False)
    msr_cost: float | None = None
    """The MSR with the cost model's cost as feedback (the older rule, `PenaltyAccumulator`)."""
    feedback: float = 0.0
    """The document's feedback in error units (`feedback_of`), the MSR's."""
    cost_unit: str = ""
    """What the costs count: "words" or "characters" (MT; characters for scripts written
    without spaces), "seconds listened" (diarization), "labels" (detection, classification);
    the track's `cost_unit`."""

    @property
    def s_adapt(self) -> float:
        """Score of the final hypothesis (S_base when there are no steps)."""
        return self.steps[-1].s_adapt if self.steps else self.s_base

    @property
    def s_pen(self) -> float:
        """Penalised score after the last step (S_base when there are no steps)."""
        return self.steps[-1].s_pen if self.steps else self.s_base

    def versus_base(self, value: float) -> int:
        """+1 where `value` (a step's S_pen, say) is better than S_base in the metric's
        direction, -1 where it is worse, 0 where equal (the corrections table's colours):
        equal within 1e-9, the summation's rounding (an S_pen of 87.49999999999999 against
        an S_base of 87.5, both shown 87.50, was coloured better)."""
        if math.isclose(value, self.s_base, rel_tol=0.0, abs_tol=TIE):
            return 0
        return 1 if (value > self.s_base) == self.higher_is_better else -1

    def impaired_better(self, step: StepScores) -> bool:
        """True where S_imp is better than S_cor, so the step's penalty has the unexpected
        sign. The paper's constructions make this rare but possible: BLEU's brevity penalty
        (the impaired segment keeps the hypothesis length, the corrected one takes the
        reference's), JER (its speaker mapping maximises overlap, not the Jaccard index) and
        DER with a reference speaker overlapping itself (pyannote counts such overlap per
        pair of turns). Shown to the user, never hidden or clamped."""
        if step.s_cor is None or step.s_imp is None:
            return False
        return step.s_imp > step.s_cor if self.higher_is_better else step.s_imp < step.s_cor

    @property
    def s_pen_memorise(self) -> float | None:
        """The memorise-only S_pen after the last step (S_base when there are no steps; None
        when it was not computed)."""
        if not self.steps:
            return self.s_base
        return self.steps[-1].s_pen_memorise

    @property
    def total_cost(self) -> float:
        return self.steps[-1].cum_cost if self.steps else 0.0

    @property
    def gain(self) -> float:
        """S_pen - S_base, signed so that positive always means "better than the base"."""
        delta = self.s_pen - self.s_base
        return delta if self.higher_is_better else -delta

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """The learning curve as step-function corners: cumulative cost, S_adapt (figure 2)."""
        costs = [0.0] + [s.cum_cost for s in self.steps]
        scores = [self.s_base] + [s.s_adapt for s in self.steps]
        return np.asarray(costs), np.asarray(scores)

    def pen_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """S_pen against cumulative cost, the same corners as `curve` (S_base at cost 0)."""
        costs = [0.0] + [s.cum_cost for s in self.steps]
        scores = [self.s_base] + [s.s_pen for s in self.steps]
        return np.asarray(costs), np.asarray(scores)

    def at(self, step: int) -> "StepView":
        """The numbers of step `step` (0 = the base, before any step) as the workbench shows
        them; `penalty` is the accumulated penalty S_pen - S_adapt (0 at the base)."""
        s = self.steps[step - 1] if step > 0 else None
        if s is None:
            return StepView(self.s_base, None, None, self.s_base, self.s_base, 0.0, 0.0, 0.0,
                            higher_is_better=self.higher_is_better)
        return StepView(self.s_base, s.s_cor, s.s_imp, s.s_adapt, s.s_pen, s.cost, s.cum_cost,
                        s.s_pen - s.s_adapt, s.s_pen_memorise, self.higher_is_better)


@dataclass(frozen=True)
class StepView:
    """One step's scores as shown (S_cor, S_imp None at the base and in llmt mode)."""

    s_base: float
    s_cor: float | None
    s_imp: float | None
    s_adapt: float
    s_pen: float
    cost: float
    cum_cost: float
    penalty: float
    s_pen_memorise: float | None = None   # figure 4: had the system only memorised
    higher_is_better: bool = True

    @property
    def net_generalisation(self) -> float | None:
        """S_pen against the memorise-only S_pen, signed so that positive is better: what
        the run gained by generalising beyond the corrections (None where not computed)."""
        if self.s_pen_memorise is None:
            return None
        net = self.s_pen - self.s_pen_memorise
        return round(net if self.higher_is_better else -net, 9) + 0.0   # no "-0.00"

    def as_dict(self) -> dict[str, float | None]:
        return {"s_base": self.s_base, "s_cor": self.s_cor, "s_imp": self.s_imp,
                "s_adapt": self.s_adapt, "s_pen": self.s_pen, "cost": self.cost,
                "cum_cost": self.cum_cost, "s_pen_memorise": self.s_pen_memorise}


class PenaltyAccumulator:
    """The running sums of one document, step by step: fed each step's cost and its S_cor,
    S_imp and S_adapt, it gives S_pen,n = S_adapt,n + sum_{k<=n} (S_imp,k - S_cor,k), the
    cumulative cost and, at the end, the Minimal Supervision Rate.

    The MSR's feedback is counted as the errors each correction removes (Geoffrois 2016,
    section 3.1; `feedback_of`), so a system that only memorises what it is told sits at its
    initial error rate; `msr_cost` is the older rule with the cost model's cost as feedback.

    The one place this arithmetic is written: `replay` (and its memorise-only chain) and the
    simulation's live scores (`llgui.sim.driver`) both use it, so a simulated run and the
    replay of its log agree to the last bit."""

    __slots__ = ("penalty", "cost", "feedback", "s_pen")

    def __init__(self, s_base: float = 0.0):
        self.penalty = 0.0      # sum_{k<=n} (S_imp,k - S_cor,k)
        self.cost = 0.0         # cumulative cost (the learning curve's axis)
        self.feedback = 0.0     # cumulative feedback in error units, the MSR's
        self.s_pen = s_base     # S_pen after the last step (S_base before any)

    def add(self, cost: float, s_cor: float, s_imp: float, s_adapt: float,
            feedback: float = 0.0) -> float:
        """One step: its cost, scores and feedback (`feedback_of`); returns S_pen,n."""
        self.cost += cost
        self.feedback += feedback
        self.penalty += s_imp - s_cor
        self.s_pen = s_adapt + self.penalty
        return self.s_pen

    def add_cost(self, cost: float) -> float:
        """One step whose S_pen comes from elsewhere (llmt mode); returns the cumulative cost."""
        self.cost += cost
        return self.cost

    def msr(self, metric: Metric, final_stats: np.ndarray) -> float | None:
        """The document's Minimal Supervision Rate, feedback in error units (Geoffrois)."""
        return minimal_supervision_rate(metric, self.feedback, final_stats)

    def msr_cost(self, metric: Metric, final_stats: np.ndarray) -> float | None:
        """The same ratio with the cumulative cost as feedback (the rule before issue 27:
        reference words or word edits for MT, seconds listened for diarization)."""
        return minimal_supervision_rate(metric, self.cost, final_stats)


def feedback_of(metric: Metric, seen_stats: np.ndarray, corrected_stats: np.ndarray) -> float:
    """A step's feedback in the metric's error unit (Geoffrois 2016, section 3.1: feedback
    counts as the errors it corrects): the errors of the hypothesis the human saw minus those
    of its corrected version (TER/WER edits, DER seconds). 0 for a metric that counts no
    errors."""
    seen = metric.errors(seen_stats)
    if seen is None:
        return 0.0
    return float(seen[0] - metric.errors(corrected_stats)[0])


def step_feedback(metric: Metric, step: Step, seen_stats: np.ndarray, cor_stats: np.ndarray,
                  imp_stats: np.ndarray) -> float:
    """`feedback_of` a step: the errors the correction removes from the hypothesis the human
    saw; for a `prefix` step (interactive-predictive MT), the errors the typed unit removes,
    impaired minus corrected (both versions are the reference's length, `prefix_versions`),
    so a word typed counts as the edits it fixes and nothing the system's text holds."""
    if step.kind == "prefix":
        return feedback_of(metric, imp_stats, cor_stats)
    return feedback_of(metric, seen_stats, cor_stats)


def replay(
    track: Track,
    steps: Sequence[Step],
    cost_model: CostModel = CostModel(),
    *,
    doc: str = "",
    mode: str = "paper",
    max_cost: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    before_step: Callable[[Step, Track], None] | None = None,
    memorise: Track | None = None,
) -> Replay:
    """Replay `steps` (one document's, in order) on `track`, which is left at the final step.

    `before_step(step, track)` is called with the track still at h_{n-1}, for callers that
    keep more than numbers (the GUI's walkthrough keeps each hypothesis the human saw).

    mode "paper": equation 1 summed over steps. mode "llmt": the WMT 2020/21 lifelong MT
    scorer (BLEU only, DESIGN.md 1.1): S_pen,n is the BLEU of h_n with the document's vector
    of [n, n-1, n-2, n-3] summed over the `reference` requests answered so far (n = the
    reference's whitespace-separated words) taken off the document's 1- to 4-gram match
    counts, floored at 0; S_cor and S_imp are not defined there and are None.

    `memorise`, a second track of the same document at h_0, also gives each step its
    memorise-only S_pen (`StepScores.s_pen_memorise`): the same replay (same mode) of a log
    whose every `adapted` is the corrected hypothesis, which `memorised_step` builds.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (expected one of: {', '.join(MODES)})")
    metric = track.metric
    base = track.current()
    llmt = _LlmtState(track) if mode == "llmt" else None
    results: list[StepScores] = []
    step_stats: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = []
    sums = PenaltyAccumulator(base.score)
    adapted = base
    mem_llmt = _LlmtState(memorise) if memorise is not None and mode == "llmt" else None
    mem_sums = PenaltyAccumulator()
    mem_stats: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for step in steps:
        check(should_stop)
        if before_step is not None:
            before_step(step, track)
        s_mem = None
        if memorise is not None:
            mem_step = memorised_step(memorise, step)
            if mem_llmt is None:
                m_cor, m_imp = memorise.corrected(step), memorise.impaired(step)
                m_adapt = memorise.advance(mem_step)
                s_mem = mem_sums.add(0.0, m_cor.score, m_imp.score, m_adapt.score)
                mem_stats.append((m_cor.stats, m_imp.stats, m_adapt.stats))
            else:
                mem_llmt.request(step)
                memorise.advance(mem_step)
                s_mem = mem_llmt.score()
        cost = float(track.cost(step, cost_model))
        if llmt is None:
            seen = adapted   # h_{n-1}: the hypothesis the human saw
            cor = track.corrected(step)
            imp = track.impaired(step)
            adapted = track.advance(step)
            s_pen = sums.add(cost, cor.score, imp.score, adapted.score,
                             step_feedback(metric, step, seen.stats, cor.stats, imp.stats))
            results.append(StepScores(step.step, step.initiative, step.kind, cost, sums.cost,
                                      cor.score, imp.score, adapted.score, s_pen, s_mem))
            step_stats.append((cor.stats, imp.stats, adapted.stats))
        else:
            sums.add_cost(cost)
            llmt.request(step)
            adapted = track.advance(step)
            results.append(StepScores(step.step, step.initiative, step.kind, cost, sums.cost,
                                      None, None, adapted.score, llmt.score(), s_mem))
            step_stats.append(None)
    final = adapted if results else base
    return Replay(
        doc=doc,
        metric=metric.name,
        mode=mode,
        signature=metric.signature,
        higher_is_better=metric.higher_is_better,
        s_base=base.score,
        steps=tuple(results),
        msr=sums.msr(metric, final.stats),
        msr_cost=sums.msr_cost(metric, final.stats),
        feedback=sums.feedback,
        cost_unit=str(getattr(track, "cost_unit", "")),
        curve_area=curve_area(base.score, results, max_cost),
        max_cost=_max_cost(results, max_cost),
        stats_base=base.stats,
        stats_final=final.stats,
        step_stats=tuple(step_stats),
        llmt_stats=None if llmt is None else llmt.stats(),
        memorise_stats=(tuple(mem_stats) if memorise is not None and mem_llmt is None
                        else None),
        memorise_final=(memorise.current().stats if memorise is not None and mem_llmt is None
                        else None),
    )


def memorised_step(track: Track, step: Step) -> Step:
    """`step` with its `adapted` replaced by the corrected hypothesis of `track` (at h_{n-1}):
    what a system that only memorised the correction would answer. MT: the corrected
    sentence alone (`{"lines": {n: text}}`); diarization: the whole corrected turn list."""
    corrected = track.corrected_hypothesis(step)  # type: ignore[attr-defined]
    if step.kind in MT_KINDS:
        number = step.target.sentence  # type: ignore[union-attr]
        return replace(step, adapted=Adapted(lines={number: corrected[number - 1]}))
    return replace(step, adapted=Adapted(turns=tuple(corrected)))


class _LlmtState:
    """Bookkeeping of the llmt mode: which sentences were requested, their reference words."""

    def __init__(self, track: Track):
        if getattr(track.metric, "name", "") != "bleu" or not hasattr(track, "reference_words"):
            raise ValueError("mode 'llmt' is defined for BLEU on MT documents only")
        self.track = track
        self.words: list[int] = []   # n of every answered `reference` request, in order

    def request(self, step: Step) -> None:
        if step.kind != "reference":   # the LLMT scorer counts reference requests only
            return
        index = step.target.sentence - 1  # type: ignore[union-attr]
        self.words.append(self.track.reference_words(index))  # type: ignore[attr-defined]

    def stats(self) -> np.ndarray:
        from llgui.core.mt.stats import llmt_document_stats, llmt_vector

        metric = self.track.metric
        return llmt_document_stats(self.track.stats,  # type: ignore[attr-defined]
                                   llmt_vector(self.words, metric.order), metric)

    def score(self) -> float:
        return self.track.metric.score(self.stats())


def minimal_supervision_rate(metric: Metric, feedback: float, final_stats: np.ndarray) -> float | None:
    """MSR = (sum of feedback + errors left at the end) / reference size, in percent (Geoffrois
    2016). Defined for error-count metrics only (TER/WER words, DER seconds); None otherwise.
    `feedback` in the same unit as the errors (`feedback_of`) for Geoffrois's MSR, or the
    steps' cost for the older rule (`PenaltyAccumulator.msr_cost`)."""
    counts = metric.errors(final_stats)
    if counts is None:
        return None
    errors, size = counts
    if size <= 0:
        return math.nan
    return 100.0 * (feedback + errors) / size


def pooled_msr(feedback: float,
               counts: Iterable[tuple[float, float] | None]) -> float | None:
    """The Minimal Supervision Rate pooled over documents: (the feedback of them all + every
    error left) / their summed reference size, in percent. `counts` are (errors, reference
    size) as `Metric.errors` gives them: one pair per document, or one pair of the documents'
    summed statistics (the same sums in another order, so not always the same last bit).
    None when there is no pair, when any is None (not an error-count metric) or when the
    reference size is 0. The one formula of `BundleReplay.msr` and of a simulated run's
    summary (`llgui.sim.run`)."""
    counts = list(counts)
    if not counts or any(c is None for c in counts):
        return None
    size = sum(c[1] for c in counts)
    if size <= 0:
        return None
    return 100.0 * (feedback + sum(c[0] for c in counts)) / size


def curve_area(s_base: float, steps: Sequence[StepScores], max_cost: float | None = None) -> float:
    """Area under the learning curve (S_adapt against cumulative cost, a step function starting
    at S_base at cost 0) from 0 to `max_cost` (default: the total cost), divided by `max_cost`:
    a cost-weighted mean score, in the metric's units. With no cost at all (no steps, or steps
    that cost nothing) there is no area: NaN, shown as "none"."""
    limit = _max_cost(steps, max_cost)
    if limit <= 0:
        return math.nan
    area, level, at = 0.0, s_base, 0.0
    for s in steps:
        upto = min(s.cum_cost, limit)
        if upto > at:
            area += level * (upto - at)
            at = upto
        level = s.s_adapt
        if at >= limit:
            break
    if at < limit:
        area += level * (limit - at)
    return area / limit


def _max_cost(steps: Sequence[StepScores], max_cost: float | None) -> float:
    if max_cost is not None:
        return float(max_cost)
    return steps[-1].cum_cost if steps else 0.0


# --------------------------------------------------------------------------------------------
# A whole bundle


@dataclass(frozen=True, eq=False)
class BundleReplay:
    """Every document of a bundle replayed under one metric, with the aggregates of 1.5."""

    metric: str
    signature: str
    higher_is_better: bool
    replays: tuple[Replay, ...]
    times: tuple[float, ...]
    pooled_base: float
    pooled_adapt: float
    pooled_pen: float
    pooled_pen_memorise: float | None = None
    """Pooled memorise-only S_pen (`replay_bundle(memorise=True)`, paper mode), else None."""
    metric_impl: Metric | None = field(default=None, repr=False, compare=False)
    """The metric object the documents were scored with (scores S_base pooled, components)."""
    partial: tuple[str, ...] = ()
    """Documents cut short (`Bundle.partial`): their replays are here, marked."""
    left_out: tuple[str, ...] = ()
    """Documents the aggregates (pooled, means, MSR) leave out: the cut-short ones unless
    `replay_bundle(include_partial=True)`."""

    @property
    def counted(self) -> tuple[Replay, ...]:
        """The replays the aggregates are over (every one but those `left_out`)."""
        if not self.left_out:
            return self.replays
        out = set(self.left_out)
        return tuple(r for r in self.replays if r.doc not in out)

    @property
    def partial_note(self) -> str | None:
        """"1 of 2 documents cut short, left out" (or "..., included"); None when none is."""
        from llgui.core.partial import partial_note

        return partial_note(len(self.partial), len(self.replays), bool(self.left_out))

    @property
    def cost_unit(self) -> str:
        """What the documents' costs count (one unit per bundle: `Replay.cost_unit`)."""
        return self.replays[0].cost_unit if self.replays else ""

    @property
    def msr(self) -> float | None:
        """The pooled Minimal Supervision Rate (`pooled_msr`): every document's feedback in
        error units (`feedback_of`), the errors left counted on the documents' summed final
        statistics; None for metrics that count no errors."""
        if self.metric_impl is None or not self.counted:
            return None
        final = np.sum([r.stats_final for r in self.counted], axis=0)
        feedback = float(sum(r.feedback for r in self.counted))
        return pooled_msr(feedback, [self.metric_impl.errors(final)])

    @property
    def msr_cost(self) -> float | None:
        """The pooled MSR with the cost model's cost as feedback (the older rule)."""
        if self.metric_impl is None or not self.counted:
            return None
        final = np.sum([r.stats_final for r in self.counted], axis=0)
        feedback = float(sum(r.total_cost for r in self.counted))
        return pooled_msr(feedback, [self.metric_impl.errors(final)])

    def summaries(self) -> dict[str, "DocumentSummary"]:
        """Per document id: S_base, S_pen and the signed gain (computed once, then cached;
        the collection job builds it on the worker)."""
        cached = self.__dict__.get("_summaries")
        if cached is None:
            cut = set(self.partial)
            cached = {r.doc: DocumentSummary(r.s_base, r.s_pen, r.gain, len(r.steps),
                                             r.doc in cut)
                      for r in self.replays}
            object.__setattr__(self, "_summaries", cached)
        return cached

    def series(self) -> "DocumentSeries":
        """The documents in processing order, as arrays for score-over-time plots."""
        return DocumentSeries(
            docs=tuple(r.doc for r in self.replays),
            times=np.asarray(self.times, dtype=float),
            s_base=np.array([r.s_base for r in self.replays], dtype=float),
            s_adapt=np.array([r.s_adapt for r in self.replays], dtype=float),
            s_pen=np.array([r.s_pen for r in self.replays], dtype=float),
            cost=np.array([r.total_cost for r in self.replays], dtype=float),
            cum_cost=np.cumsum([r.total_cost for r in self.replays], dtype=float),
            n_steps=np.array([len(r.steps) for r in self.replays], dtype=int),
        )

    def mean(self, attribute: str) -> float:
        """Unweighted mean over documents of `s_base`, `s_adapt` or `s_pen` (those
        `left_out` left out)."""
        values = [getattr(r, attribute) for r in self.counted]
        return float(np.mean(values)) if values else math.nan

    def weighted(self, attribute: str, weights: np.ndarray) -> float:
        """Weighted mean over documents (weights need not be normalised; those `left_out`
        weigh nothing)."""
        from llgui.core.across_time.policy import weighted_mean

        out = set(self.left_out)
        weights = np.where([r.doc in out for r in self.replays], 0.0,
                           np.asarray(weights, dtype=float))
        return weighted_mean([getattr(r, attribute) for r in self.replays], weights)

    def aggregates(self, policy=None) -> tuple[tuple[str, tuple[float, float, float]], ...]:
        """The aggregates of DESIGN.md 1.5 side by side, labelled: (label, (S_base, S_adapt,
        S_pen)) for pooled statistics, the unweighted mean of documents and, given a user
        `policy`, the policy-weighted mean over document times (seen from the last one)."""
        from llgui.core.across_time.policy import document_weights

        attributes = ("s_base", "s_adapt", "s_pen")
        rows = [("pooled", (self.pooled_base, self.pooled_adapt, self.pooled_pen)),
                ("mean of documents", tuple(self.mean(a) for a in attributes))]
        if policy is not None and self.replays:
            weights = document_weights(policy, self.times)
            rows.append(("policy-weighted", tuple(self.weighted(a, weights)
                                                  for a in attributes)))
        return tuple(rows)  # type: ignore[return-value]


@dataclass(frozen=True)
class DocumentSummary:
    """One document's line in a table: S_base, final S_pen, gain (S_pen - S_base signed so
    that positive is better), number of steps."""

    s_base: float
    s_pen: float
    gain: float
    steps: int
    partial: bool = False
    """Cut short: the run stopped in this document (`Bundle.partial`)."""


def pen_difference(mine, theirs, higher_is_better: bool | None = None) -> float:
    """S_pen of `mine` minus that of `theirs` (two systems on the same document: `Replay`s or
    `DocumentSummary`s). With `higher_is_better` given, signed so that positive means `mine`
    is better (an error rate's difference is negated); None: the plain difference."""
    delta = mine.s_pen - theirs.s_pen
    if higher_is_better is None or higher_is_better:
        return delta
    return -delta


@dataclass(frozen=True, eq=False)
class DocumentSeries:
    """Per-document scores in processing order (arrays of one entry per document): the
    time stamps (`Stamp.value`), S_base, the final S_adapt and S_pen, each document's human
    cost and the cumulative cost over the stream."""

    docs: tuple[str, ...]
    times: np.ndarray
    s_base: np.ndarray
    s_adapt: np.ndarray
    s_pen: np.ndarray
    cost: np.ndarray
    cum_cost: np.ndarray
    n_steps: np.ndarray | None = None
    """Steps of each document: 0 means S_pen = S_base by construction, no result."""


def make_track(document: Document, metric_name: str, settings, cost_model: CostModel,
               documents: Sequence[Document] = (), *, progress=None,
               should_stop=None) -> Track:
    """The Track of `document` under `metric_name` with the bundle's `settings`; `documents`
    are the bundle's others (a diarization `same` step may listen to one of them). MT: the
    statistics extraction reports `progress` and stops when `should_stop()` says so. The
    metric registry (`llgui.core.metrics`) makes it; ValueError for a metric the document's
    task cannot replay."""
    return for_replay(document.task, metric_name).make_track(
        document, settings, cost_model, documents, progress=progress, should_stop=should_stop)


def replay_bundle(
    bundle: Bundle,
    metric_name: str,
    cost_model: CostModel | None = None,
    *,
    mode: str = "paper",
    progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    memorise: bool = False,
    include_partial: bool = False,
) -> BundleReplay:
    """Replay every document of `bundle` under one metric, in processing order; with
    `memorise`, each step also gets its memorise-only S_pen (see `replay`). Documents cut
    short (`bundle.partial`) are replayed and marked; the aggregates leave them out unless
    `include_partial`."""
    cost_model = bundle.cost if cost_model is None else cost_model
    replays: list[Replay] = []
    metric: Metric | None = None
    n = len(bundle.documents)
    for i, document in enumerate(bundle.documents):
        track = make_track(document, metric_name, bundle.settings, cost_model, bundle.documents,
                           should_stop=should_stop)
        metric = track.metric
        twin = (make_track(document, metric_name, bundle.settings, cost_model, bundle.documents)
                if memorise else None)
        replays.append(replay(track, bundle.steps_of(document.id), cost_model, doc=document.id,
                              mode=mode, should_stop=should_stop, memorise=twin))
        if progress is not None:
            progress((i + 1) / n)
    if metric is None:
        raise ValueError("the bundle has no documents to replay")
    partial = tuple(getattr(bundle, "partial", ()) or ())
    left_out = () if include_partial else partial
    counted = [r for r in replays if r.doc not in set(left_out)]
    if counted:
        base, adapt, pen = pooled_scores(metric, counted)
        memorised = pooled_memorise(metric, counted)
    else:   # every document cut short: no complete one to pool
        base = adapt = pen = math.nan
        memorised = None
    return BundleReplay(
        metric=metric.name,
        signature=metric.signature,
        higher_is_better=metric.higher_is_better,
        replays=tuple(replays),
        times=tuple(d.time.value for d in bundle.documents),
        pooled_base=base,
        pooled_adapt=adapt,
        pooled_pen=pen,
        pooled_pen_memorise=memorised,
        metric_impl=metric,
        partial=partial,
        left_out=left_out,
    )


def pooled_memorise(metric: Metric, replays: Iterable[Replay]) -> float | None:
    """The pooled S_pen of the memorise-only stream (every document's every step only
    applying its correction), as `pooled_scores` pools the run's; None unless every replay
    computed its memorise-only chain (paper mode)."""
    replays = list(replays)
    if not replays or any(r.memorise_stats is None or r.memorise_final is None
                          for r in replays):
        return None
    memorised = [replace(r, stats_final=r.memorise_final, step_stats=r.memorise_stats)
                 for r in replays]
    return pooled_scores(metric, memorised)[2]


def pooled_scores(metric: Metric, replays: Iterable[Replay]) -> tuple[float, float, float]:
    """Pooled (corpus-level) S_base, final S_adapt and S_pen of documents in processing order.

    S_pen pooled = S_adapt pooled + sum over every step of (S_imp - S_cor) at corpus level, where
    the corpus holds the documents before the step's document at their final hypothesis, the
    ones after it at their first, and the step's document corrected / impaired.

    Replays in mode "llmt": S_pen pooled is one BLEU of the documents' llmt statistics summed
    over the stream (DESIGN.md 1.1), as the WMT LLMT scorer's `BLEU_collate` block pools them.
    """
    replays = list(replays)
    base_total = np.sum([r.stats_base for r in replays], axis=0)
    final_total = np.sum([r.stats_final for r in replays], axis=0)
    if replays and all(r.llmt_stats is not None for r in replays):
        llmt_total = np.sum([r.llmt_stats for r in replays], axis=0)
        return metric.score(base_total), metric.score(final_total), metric.score(llmt_total)
    penalty = 0.0
    context = base_total.copy()  # the stream as it stands: starts with every document at base
    for r in replays:
        context = context - r.stats_base
        for stats in r.step_stats:
            if stats is None:
                continue
            cor, imp, _ = stats
            penalty += metric.score(context + imp) - metric.score(context + cor)
        context = context + r.stats_final
    pooled_final = metric.score(final_total)
    return metric.score(base_total), pooled_final, pooled_final + penalty
