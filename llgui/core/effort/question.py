"""The value of a question (DESIGN.md section 1.9), as arithmetic on per-unit arrays.

A system in active mode chooses what the expert is asked. For one step, with the hypothesis
the expert saw (h_{n-1}):

- asked:  the errors inside what was asked, in the metric's error unit (TER edits of the
          sentence; DER error seconds inside the listened windows; wrong labels among the
          items);
- random: the mean of the same over every question of the same cost the system could have
          asked at that step (random selection);
- best:   the most errors any question of that cost holds (the best question, known only to
          the oracle).

"Questions of the same cost" are any selection of the pool's units whose cost adds up to
the step's cost, a unit divisible in proportion to its cost (its errors spread evenly over
it): the pool's sentences not asked before in the document, each costing its reference words
(MT, cost-normalised: a sentence of 10 words with 3 edits holds 0.3 edits per word); the
seconds of the document's UEM, each holding the DER errors counted there (diarization: a
second with two missed speakers holds 2 error seconds per second listened); the items not
labelled before (classification, one unit each). Then

    random = cost x (sum of the pool's errors / sum of the pool's costs)

(the expected errors of `cost` units drawn uniformly: the pool's error density times the
cost), and `best` fills `cost` with the units of highest errors per unit cost first (the
fractional knapsack), so best >= asked whenever the asked units are in the pool.

Per step: gain = asked - random (positive: the question beat random selection, the active
learning yardstick of Baram et al., JMLR 2004), regret = best - asked (>= 0). Over steps:
request precision (share of questions whose asked errors exceed `TOUCH` - a question that
touched an error), the sums, their gain and regret, and the lift asked / random.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

TOUCH = 1e-9
"""Errors above this (edits, seconds, labels) make a question one that touched an error."""
GAIN_RESAMPLES, GAIN_SEED, GAIN_LEVEL = 1000, 12345, 0.95
"""The run's gain over random gets a percentile bootstrap interval over its questions."""


def random_and_best(errors: np.ndarray, costs: np.ndarray, cost: float) -> tuple[float, float]:
    """(random, best) over the questions of cost `cost` drawn from a pool of units with
    `errors` and `costs` (1-d arrays of one entry per unit, costs >= 0). See the module
    docstring. An empty pool, or one of no cost, gives (0, 0)."""
    errors = np.asarray(errors, dtype=float)
    costs = np.asarray(costs, dtype=float)
    if errors.shape != costs.shape:
        raise ValueError("one error count and one cost per unit")
    total_cost = float(costs.sum())
    if total_cost <= 0 or cost <= 0:
        return 0.0, 0.0
    random = cost * float(errors.sum()) / total_cost
    paid = costs > 0
    e, c = errors[paid], costs[paid]
    room, best = min(float(cost), total_cost), 0.0
    for k in _densest_first(e / c, c, room).tolist():
        if room <= 0:
            break
        take = min(room, float(c[k]))
        best += float(e[k]) * take / float(c[k])
        room -= take
    return random, best


def _densest_first(density: np.ndarray, costs: np.ndarray, room: float) -> np.ndarray:
    """The units in order of density (highest first, ties in pool order: a stable sort),
    as far as the fractional knapsack reads them: until their costs fill `room`. A step's
    question costs a few units of a pool of up to 100,000 (a long document's sentences), and
    sorting the whole pool at each of 1,000 steps took 8 s of a window's worker. The densest
    `k` units are found by partition (k growing fourfold until their costs fill `room`), then
    every unit at least as dense as the least dense of them is sorted: the same units, in the
    same order, as the whole pool's stable sort begins with (the ties at the boundary in pool
    order too), so the sums are the same to the last bit."""
    n = density.size
    k = 64
    while k < n:
        top = np.argpartition(-density, k)[:k]
        # (with room to spare: the knapsack's `room -= take` may leave a float residue that
        # the next unit in the order takes a sliver of, and that unit must be here too)
        if float(costs[top].sum()) >= room * (1 + 1e-9) + 1e-12:
            candidates = np.flatnonzero(density >= density[top].min())
            return candidates[np.argsort(-density[candidates], kind="stable")]
        k *= 4
    return np.argsort(-density, kind="stable")


@dataclass(frozen=True)
class QuestionValue:
    """One active step's question value (errors in the metric's error unit; `cost` in the
    unit the pool is priced in: reference words, seconds listened, labels)."""

    doc: str
    step: int
    kind: str
    cost: float
    asked: float
    random: float
    best: float

    @property
    def touched(self) -> bool:
        """The question touched an error (asked > TOUCH)."""
        return self.asked > TOUCH

    @property
    def gain(self) -> float:
        """asked - random: positive when the question beat random selection."""
        return self.asked - self.random

    @property
    def regret(self) -> float:
        """best - asked: what the best question of the same cost would have added."""
        return self.best - self.asked

    def to_dict(self) -> dict:
        return {"doc": self.doc, "step": self.step, "kind": self.kind, "cost": _tidy(self.cost),
                "asked": _tidy(self.asked), "random": _tidy(self.random),
                "best": _tidy(self.best), "touched": self.touched, "gain": _tidy(self.gain),
                "regret": _tidy(self.regret)}


@dataclass(frozen=True)
class QuestionSummary:
    """Question value over several steps (a document's, or a run's): sums and precision."""

    n: int
    touched: int
    cost: float
    asked: float
    random: float
    best: float

    @property
    def precision(self) -> float:
        """Request precision: share of questions that touched an error (NaN with none)."""
        return self.touched / self.n if self.n else math.nan

    @property
    def gain(self) -> float:
        return self.asked - self.random

    @property
    def regret(self) -> float:
        return self.best - self.asked

    @property
    def lift(self) -> float:
        """asked / random: how many times the errors a random choice would have found
        (NaN when random found none)."""
        return self.asked / self.random if self.random > 0 else math.nan

    def to_dict(self) -> dict:
        return {"questions": self.n, "touched": self.touched,
                "precision": _finite(self.precision), "cost": _tidy(self.cost),
                "asked": _tidy(self.asked), "random": _tidy(self.random),
                "best": _tidy(self.best), "gain": _tidy(self.gain),
                "regret": _tidy(self.regret), "lift": _finite(self.lift)}


def gain_interval(values: Iterable[QuestionValue], resamples: int = GAIN_RESAMPLES,
                  seed: int = GAIN_SEED, level: float = GAIN_LEVEL) -> dict | None:
    """A percentile bootstrap interval of the summed gain over random (Efron and Tibshirani,
    "An Introduction to the Bootstrap", 1993, ch. 13): the questions (steps) drawn with
    replacement `resamples` times (numpy's default_rng(seed)), the gain summed each time, the
    (1 - level) / 2 and (1 + level) / 2 quantiles. None with fewer than 2 questions."""
    gains = np.array([v.gain for v in values], dtype=float)
    if gains.size < 2:
        return None
    rng = np.random.default_rng(seed)
    sums = gains[rng.integers(0, gains.size, size=(resamples, gains.size))].sum(axis=1)
    low, high = np.quantile(sums, [(1 - level) / 2, (1 + level) / 2])
    return {"low": _tidy(low), "high": _tidy(high), "level": level,
            "method": f"percentile bootstrap over the run's {gains.size} questions",
            "resamples": resamples, "seed": seed}


def summarise(values: Iterable[QuestionValue]) -> QuestionSummary:
    values = list(values)
    return QuestionSummary(
        n=len(values), touched=sum(v.touched for v in values),
        cost=float(sum(v.cost for v in values)), asked=float(sum(v.asked for v in values)),
        random=float(sum(v.random for v in values)), best=float(sum(v.best for v in values)))


@dataclass(frozen=True)
class QuestionReport:
    """Question value of a run: per step, per document, over the run; `unit` names the errors
    (e.g. "TER edits"), `cost_unit` the pool's prices, `metric` the error metric used."""

    metric: str
    unit: str
    cost_unit: str
    steps: tuple[QuestionValue, ...]
    docs: tuple[str, ...]

    def of(self, doc: str) -> tuple[QuestionValue, ...]:
        return tuple(v for v in self.steps if v.doc == doc)

    @property
    def run(self) -> QuestionSummary:
        return summarise(self.steps)

    def by_step(self, doc: str) -> dict[int, QuestionValue]:
        return {v.step: v for v in self.of(doc)}

    def to_dict(self) -> dict:
        return {"metric": self.metric, "unit": self.unit, "cost_unit": self.cost_unit,
                "definition": DEFINITION,
                "run": {**self.run.to_dict(), "gain_interval": gain_interval(self.steps)},
                "documents": [{"doc": d, **summarise(self.of(d)).to_dict()}
                              for d in self.docs if self.of(d)],
                "steps": [v.to_dict() for v in self.steps]}


DEFINITION = ("asked: errors inside what was asked at h_{n-1}; random: the pool's error density "
              "x the step's cost (pool: MT sentences not asked before, priced in reference "
              "words; diarization: the UEM's seconds; classification: items not labelled "
              "before); best: the units of most errors per cost first, filling the same cost")


def _tidy(value: float) -> float:
    return round(float(value), 9) + 0.0


def _finite(value: float) -> float | None:
    return None if not math.isfinite(value) else _tidy(value)


__all__ = ["QuestionValue", "QuestionSummary", "QuestionReport", "random_and_best",
           "summarise", "gain_interval", "TOUCH", "DEFINITION"]

