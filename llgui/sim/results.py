"""What a simulation run gives back: a step's record, a document's and the run's results, and
the live penalised scores of the document being simulated (`DocScores`). Kept apart from the
driver (`llgui.sim.driver`), which makes them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from llgui.core.diarization.track import DiarTrack
from llgui.core.penalty import PenaltyAccumulator, make_track, step_feedback
from llgui.core.types import Bundle, Step


@dataclass(frozen=True)
class StepRecord:
    """One completed step: the log's step and the scores of every metric after it."""

    step: Step
    elapsed_s: float
    llgui_s: float
    scores: dict           # metric -> (s_cor, s_imp, s_adapt, s_pen)
    cum_cost: float
    budget: float


@dataclass(frozen=True)
class DocumentResult:
    doc: str
    mode: str
    budget: float
    steps: int
    cost: float
    scores: dict           # metric -> {"s_base", "s_adapt", "s_pen", "msr"?}
    errors: dict = field(default_factory=dict)  # metric -> (final errors, reference size)
    feedback: dict = field(default_factory=dict)  # metric -> feedback in its error unit (MSR)
    partial: bool = False   # cut short: the run stopped before the document's end
    curve: tuple = ()       # ((cumulative cost, {metric: S_pen}), ...) after each step
    refused: dict | None = None   # the request refused at the end: kind, target, cost, left

    def s_pen_at(self, metric: str, cost: float) -> float | None:
        """S_pen of `metric` read on the document's learning curve at `cost`: after the last
        step whose cumulative cost is within it (S_base before any; the final S_pen past
        the last step, the system having stopped asking)."""
        value = self.scores.get(metric, {}).get("s_base")
        for cum_cost, s_pen in self.curve:
            if cum_cost > cost + 1e-9:
                break
            value = s_pen.get(metric, value)
        return value


@dataclass(frozen=True)
class RunResult:
    """A finished (or failed) run: what run.json holds, plus the folder."""

    out: Path
    run: dict
    documents: tuple[DocumentResult, ...]
    error: str | None = None

    @property
    def exit(self) -> int:
        return int(self.run["exit"])


class DocScores:
    """Live penalised scores of one document for every metric: one
    `llgui.core.penalty.PenaltyAccumulator` per metric, the one `replay` uses, so `llgui
    replay` of the log agrees to the last bit."""

    def __init__(self, document, metrics: Sequence[str], bundle: Bundle):
        self.tracks = {m: make_track(document, m, bundle.settings, bundle.cost,
                                     bundle.documents) for m in metrics}
        diar = [t for t in self.tracks.values() if isinstance(t, DiarTrack)]
        for track in diar[1:]:
            track.share_scoring(diar[0])
        self.base = {m: t.current() for m, t in self.tracks.items()}
        self.sums = {m: PenaltyAccumulator(s.score) for m, s in self.base.items()}
        self.last = dict(self.base)

    @property
    def s_pen(self) -> dict:
        """metric -> S_pen after the last step (S_base before any)."""
        return {m: sums.s_pen for m, sums in self.sums.items()}

    @property
    def cost(self) -> float:
        """The cost of the steps so far (every metric's accumulator sums the same costs)."""
        return next(iter(self.sums.values())).cost

    def msr(self, metric: str) -> float | None:
        """The document's Minimal Supervision Rate under `metric` (None if not an error count)."""
        return self.sums[metric].msr(self.tracks[metric].metric, self.last[metric].stats)

    def add(self, step: Step, cost: float) -> dict:
        out = {}
        # every track's corrected and impaired before any advances: the diarization tracks
        # share one scorer, which stands at h_{n-1} until the first advance
        judged = {m: (track.corrected(step), track.impaired(step))
                  for m, track in self.tracks.items()}
        for m, track in self.tracks.items():
            cor, imp = judged[m]
            seen = self.last[m]   # h_{n-1}
            adapted = track.advance(step)
            self.last[m] = adapted
            s_pen = self.sums[m].add(cost, cor.score, imp.score, adapted.score,
                                     step_feedback(track.metric, step, seen.stats, cor.stats,
                                                   imp.stats))
            out[m] = (cor.score, imp.score, adapted.score, s_pen)
        return out
