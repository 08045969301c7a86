"""Multi-class classification as a lifelong task: the `Track` of one system's decisions.

Items have a true label among N classes; the system decides one class per item. A `label`
step gives the true labels of some items (DESIGN.md 1.2, last row):

- corrected: those items decided right (their true label);
- impaired: those items decided wrong: the system's own decision where it is already wrong,
  else the class after the true one in the task's class order (cyclically), so the impaired
  version is strictly wrong and the same on every run;
- adapted: the system's new decisions h_n (the step's `adapted.labels`).

Metrics, percentages: `error_rate` (wrong decisions / items, lower is better) and `macro_f1`
(unweighted mean over the task's classes of each class's F1, higher is better; a class with
no true and no decided item has F1 0, as scikit-learn's `f1_score(average="macro",
labels=classes, zero_division=0)`). Statistics add up: per class (tp, fp, fn), so a step
swaps the counts of its few items and never recounts the document.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.track import Scored
from llgui.core.types import ClassDocument, Step

CLASS_METRICS = ("error_rate", "macro_f1")


@dataclass(frozen=True)
class ClassMetric:
    """`error_rate` or `macro_f1` over `n_classes` classes; statistics: a flat array of
    (tp, fp, fn) per class (shape (3 * n_classes,))."""

    name: str
    n_classes: int

    def __post_init__(self) -> None:
        if self.name not in CLASS_METRICS:
            raise ValueError(f"unknown classification metric {self.name!r} "
                             f"(known: {', '.join(CLASS_METRICS)})")

    @property
    def higher_is_better(self) -> bool:
        return self.name == "macro_f1"

    @property
    def signature(self) -> str:
        extra = "|zero_division:0" if self.name == "macro_f1" else ""
        return f"{self.name}|classes:{self.n_classes}{extra}"

    def score(self, stats: np.ndarray) -> float:
        tp, fp, fn = np.asarray(stats, dtype=float).reshape(self.n_classes, 3).T
        if self.name == "error_rate":
            n = tp.sum() + fn.sum()          # every item is a tp or an fn of its true class
            return 100.0 * fn.sum() / n if n else math.nan
        denominator = 2 * tp + fp + fn
        f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)
        return 100.0 * float(f1.mean())

    def errors(self, stats: np.ndarray) -> tuple[float, float] | None:
        if self.name != "error_rate":
            return None
        tp, _fp, fn = np.asarray(stats, dtype=float).reshape(self.n_classes, 3).T
        return float(fn.sum()), float(tp.sum() + fn.sum())


def _stats(truth: np.ndarray, decided: np.ndarray, n: int) -> np.ndarray:
    """(tp, fp, fn) per class of class indices `truth` and `decided` (shape (3n,))."""
    right = truth == decided
    tp = np.bincount(truth[right], minlength=n)
    fn = np.bincount(truth[~right], minlength=n)
    fp = np.bincount(decided[~right], minlength=n)
    return np.stack([tp, fp, fn], axis=1).reshape(-1).astype(float)


class ClassTrack:
    """One classification system through its interaction log (implements `Track`)."""

    cost_unit = "labels"
    """What `cost` counts (named on axes and in the JSON)."""

    def __init__(self, doc: ClassDocument, metric: ClassMetric):
        self.doc = doc
        self.metric = metric
        self._class = {c: k for k, c in enumerate(doc.classes)}
        self.truth = np.array([self._class[c] for c in doc.truth], dtype=np.int64)
        self._decided = np.array([self._class[c] for c in doc.decisions], dtype=np.int64)
        self._stats_now = _stats(self.truth, self._decided, len(doc.classes))

    @property
    def decisions(self) -> tuple[str, ...]:
        """The current decisions h_{n-1}, as class names in item order."""
        return tuple(self.doc.classes[k] for k in self._decided.tolist())

    def positions(self, step: Step) -> np.ndarray:
        index = self.doc.index
        return np.array([index[item] for item in step.target.items], dtype=np.int64)

    def impaired_decisions(self, where: np.ndarray) -> np.ndarray:
        """The wrong class of each item at `where` (see the module docstring)."""
        decided = self._decided[where]
        truth = self.truth[where]
        return np.where(decided != truth, decided, (truth + 1) % len(self.doc.classes))

    def _swapped(self, where: np.ndarray, new: np.ndarray) -> np.ndarray:
        n = len(self.doc.classes)
        return (self._stats_now - _stats(self.truth[where], self._decided[where], n)
                + _stats(self.truth[where], new, n))

    def current(self) -> Scored:
        return Scored(self.metric.score(self._stats_now), self._stats_now.copy())

    def corrected(self, step: Step) -> Scored:
        where = np.unique(self.positions(step))
        stats = self._swapped(where, self.truth[where])
        return Scored(self.metric.score(stats), stats)

    def impaired(self, step: Step) -> Scored:
        where = np.unique(self.positions(step))
        stats = self._swapped(where, self.impaired_decisions(where))
        return Scored(self.metric.score(stats), stats)

    def advance(self, step: Step) -> Scored:
        adapted = step.adapted
        labels = getattr(adapted, "labels", None) if adapted is not None else None
        if labels:
            index = self.doc.index
            where = np.array([index[k] for k in labels], dtype=np.int64)
            new = np.array([self._class[c] for c in labels.values()], dtype=np.int64)
            self._stats_now = self._swapped(where, new)
            self._decided[where] = new
        return self.current()

    def cost(self, step: Step, cost_model: CostModel | None = None) -> float:
        """The log's cost when the model's `use_log_cost` is set and the log gives one, else
        one unit per labelled item."""
        model = CostModel() if cost_model is None else cost_model
        if step.cost is not None and model.use_log_cost:
            return float(step.cost)
        return float(len(step.target.items))
