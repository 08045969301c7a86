"""The contract between the penalty engine and a task: one document's hypothesis over time.

A `Track` holds the hypothesis the human currently sees (h_{n-1}) with its additive statistics
cached, and answers, for an interaction step n, the three scores of DESIGN.md section 1.1:

- `corrected(step)`: S(h_{n-1} with c_n replaced by its correct version)  -> S_cor,n
- `impaired(step)`:  S(h_{n-1} with c_n replaced by a strictly wrong one)  -> S_imp,n
- `advance(step)`:   moves to h_n (the step's `adapted`, or h_{n-1} unchanged) -> S_adapt,n

without rescoring the document: only the statistics of the corrected part are swapped. The
engine (`llgui.core.penalty`) adds the penalty, costs and curves; tasks implement `Track`
(`llgui.core.mt.track.MTTrack`, `llgui.core.diarization.track.DiarTrack`).

Every score is a percentage (BLEU, chrF, TER, WER, DER, JER), as the reference tools print it.
`stats` is the additive statistics vector behind a score; summing the vectors of several
documents and calling `metric.score(total)` gives the pooled (corpus-level) score.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.types import Step


@dataclass(frozen=True, eq=False)
class Scored:
    """A score (percentage) and the additive statistics it was computed from."""

    score: float
    stats: np.ndarray


class Metric(Protocol):
    """A metric whose score is a function of summed per-part statistics."""

    name: str
    higher_is_better: bool
    signature: str

    def score(self, stats: np.ndarray) -> float:
        """Percentage from a statistics vector (one document's, or a sum over documents)."""

    def errors(self, stats: np.ndarray) -> tuple[float, float] | None:
        """(errors, reference size) for error-count metrics (TER/WER: word edits and reference
        words; DER: error and reference seconds), None for BLEU/chrF. Feeds the Minimal
        Supervision Rate."""


class Track(Protocol):
    metric: Metric

    def current(self) -> Scored:
        """Score of the hypothesis as it stands (S_base before any step)."""

    def corrected(self, step: Step) -> Scored:
        """S_cor of `step` against the current hypothesis; does not move the track."""

    def impaired(self, step: Step) -> Scored:
        """S_imp of `step` against the current hypothesis; does not move the track."""

    def advance(self, step: Step) -> Scored:
        """Take the step's adapted hypothesis as current; returns S_adapt."""

    def cost(self, step: Step, cost_model: CostModel) -> float:
        """The human cost of `step` under `cost_model` (a cost in the log wins when the model's
        `use_log_cost` is set)."""
