"""Detection as a lifelong task: the `Track` of one system's trials (DESIGN.md 1.2, 1.8).

A step labels some trials (its items). Against the scores h_{n-1} the human saw:

- corrected: those items decided right at every threshold (a target accepted, a non-target
  rejected), i.e. taken out of the miss and false-alarm counts as correct decisions;
- impaired: those items decided wrong at every threshold (a target missed, a non-target a
  false alarm);
- adapted: the system's new scores h_n (the step's `adapted.scores`, changed ones or all).

The true label of a trial is the key's (the reference); the step's answer is what the system
was told, which a noisy oracle may get wrong. Denominators keep every trial.

Metrics (lower is better, like every error rate):

- `err`: error rate at a threshold, percent: (false alarms + misses) / trials, accepting
  iff score >= threshold; the threshold is `settings["threshold"]`, or the Bayes threshold of
  the DCF (scores as natural-log likelihood ratios). Statistics [tp, fp, tn, fn] add up.
- `act_dcf`: normalised DCF at the Bayes threshold; statistics [misses, false alarms,
  targets, non-targets] add up over documents.
- `min_dcf`: normalised DCF minimised over thresholds; statistics [value, 1] (its sum over
  documents gives the unweighted mean: a minimum over thresholds does not pool).

Cached: the current scores of each class sorted once per hypothesis; a step's corrected and
impaired scores cost a binary search per item (err, act_dcf), or one pass over the cached
curve with piecewise-constant corrections (min_dcf), never a new sort.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.detection.det import bayes_threshold
from llgui.core.track import Scored
from llgui.core.types import DetDocument, Step

DET_TRACK_METRICS = ("err", "min_dcf", "act_dcf")
DEFAULT_DCF = (0.01, 1.0, 1.0)


@dataclass(frozen=True)
class DetMetric:
    """One of `DET_TRACK_METRICS` at the operating point (p_target, c_miss, c_fa) and, for
    `err`, a threshold (None: the Bayes threshold of the DCF)."""

    name: str
    dcf: tuple[float, float, float] = DEFAULT_DCF
    threshold: float | None = None
    higher_is_better = False

    def __post_init__(self) -> None:
        if self.name not in DET_TRACK_METRICS:
            raise ValueError(f"unknown detection metric {self.name!r} "
                             f"(known: {', '.join(DET_TRACK_METRICS)})")
        bayes_threshold(*self.dcf)   # checks the operating point
        if self.threshold is not None and not math.isfinite(self.threshold):
            raise ValueError(f"threshold must be finite, not {self.threshold!r}")

    @property
    def decision_threshold(self) -> float:
        """Where `err` and `act_dcf` decide (accept iff score >= it)."""
        if self.name == "err" and self.threshold is not None:
            return float(self.threshold)
        return bayes_threshold(*self.dcf)

    @property
    def signature(self) -> str:
        p, cm, cfa = self.dcf
        text = f"{self.name}|p_target:{p:g}|c_miss:{cm:g}|c_fa:{cfa:g}"
        if self.name == "err":
            how = "fixed" if self.threshold is not None else "bayes"
            text += f"|threshold:{self.decision_threshold:.6g}({how})"
        return text + "|accept:score>=t"

    def score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=float)
        if self.name == "err":
            n = stats.sum()
            return 100.0 * (stats[1] + stats[3]) / n if n > 0 else math.nan
        if self.name == "min_dcf":
            return float(stats[0] / stats[1]) if stats[1] > 0 else math.nan
        n_miss, n_fa, n_tar, n_non = stats
        return _dcf(n_miss / n_tar, n_fa / n_non, self.dcf)

    def errors(self, stats: np.ndarray) -> tuple[float, float] | None:
        """err: (wrong decisions, trials); the DCFs count no errors to pool."""
        if self.name != "err":
            return None
        return float(stats[1] + stats[3]), float(np.sum(stats))


def make_det_metric(name: str, settings: Mapping[str, object] | None = None) -> DetMetric:
    """A DetMetric from a bundle's `[settings]` (p_target, c_miss, c_fa, threshold)."""
    settings = settings or {}
    dcf = tuple(float(settings.get(k, d)) for k, d in zip(("p_target", "c_miss", "c_fa"),
                                                            DEFAULT_DCF))
    threshold = settings.get("threshold")
    return DetMetric(name, dcf, None if threshold is None else float(threshold))


def _dcf(p_miss: float, p_fa: float, dcf: tuple[float, float, float]) -> float:
    p, c_miss, c_fa = dcf
    return (c_miss * p * p_miss + c_fa * (1.0 - p) * p_fa) / min(c_miss * p, c_fa * (1.0 - p))


class DetTrack:
    """One detection system through its interaction log (implements `Track`)."""

    cost_unit = "labels"
    """What `cost` counts (named on axes and in the JSON)."""

    def __init__(self, doc: DetDocument, metric: DetMetric):
        self.doc = doc
        self.metric = metric
        self.is_target = doc.trials.is_target
        self._scores = np.array(doc.trials.scores, dtype=float)
        self._current: Scored | None = None
        self._sort()

    # -- the cache ----------------------------------------------------------------------------

    def _sort(self) -> None:
        self._tar = np.sort(self._scores[self.is_target])
        self._non = np.sort(self._scores[~self.is_target])
        self._curve = None   # (thresholds, n_miss, n_fa) of the current scores, on demand

    @property
    def scores(self) -> np.ndarray:
        """The current scores h_{n-1}, in trial order (read-only view)."""
        view = self._scores.view()
        view.setflags(write=False)
        return view

    def positions(self, step: Step) -> np.ndarray:
        """Trial positions of the step's items (int64)."""
        index = self.doc.index
        return np.fromiter((index[item] for item in step.target.items), dtype=np.int64,
                           count=len(step.target.items))

    def _counts(self, threshold: float) -> tuple[int, int, int, int]:
        """(tp, fp, tn, fn) of the current scores when accepting score >= threshold."""
        fn = int(np.searchsorted(self._tar, threshold, side="left"))
        tn = int(np.searchsorted(self._non, threshold, side="left"))
        return self._tar.size - fn, self._non.size - tn, tn, fn

    def _curve_counts(self):
        if self._curve is None:
            from llgui.core.detection.det import _curve_from_sorted

            curve = _curve_from_sorted(self._tar, self._non)
            self._curve = (curve.thresholds, curve.n_miss.astype(float),
                           curve.n_fa.astype(float))
        return self._curve

    # -- scores -------------------------------------------------------------------------------

    def _stats(self, where: np.ndarray | None = None, right: bool = True) -> np.ndarray:
        """Statistics of the current scores with the trials at `where` decided right (or
        wrong) at every threshold."""
        metric = self.metric
        if where is None:
            where = np.empty(0, dtype=np.int64)
        where = np.unique(where)
        scores = self._scores[where]
        target = self.is_target[where]
        if metric.name == "min_dcf":
            return np.array([self._min_dcf(scores, target, right), 1.0])
        t = metric.decision_threshold
        tp, fp, tn, fn = self._counts(t)
        accepted = scores >= t
        # take the items out of the counts they are in, then put them back right or wrong
        tp -= int(np.sum(target & accepted))
        fn -= int(np.sum(target & ~accepted))
        fp -= int(np.sum(~target & accepted))
        tn -= int(np.sum(~target & ~accepted))
        n_tar, n_non = int(target.sum()), int((~target).sum())
        if right:
            tp, tn = tp + n_tar, tn + n_non
        else:
            fn, fp = fn + n_tar, fp + n_non
        if metric.name == "err":
            return np.array([tp, fp, tn, fn], dtype=float)
        return np.array([fn, fp, self._tar.size, self._non.size], dtype=float)

    def _min_dcf(self, scores: np.ndarray, target: np.ndarray, right: bool) -> float:
        """minDCF over the cached curve's thresholds with the items' decisions fixed.

        A target with score s counts as a miss at thresholds t > s: decided right, it is
        never a miss (-1 for t > s); decided wrong, always (+1 for t <= s). Likewise a
        non-target is a false alarm at t <= s. Thresholds of the cached curve that are no
        longer distinct scores give the counts of the next remaining one, so the minimum is
        the same as over the remaining scores' own curve."""
        thresholds, n_miss, n_fa = self._curve_counts()
        miss = n_miss.copy()
        fa = n_fa.copy()
        size = thresholds.size
        diff_miss = np.zeros(size + 1)
        diff_fa = np.zeros(size + 1)
        # k = how many curve thresholds are <= s: a non-target is a false alarm at indices
        # [0, k), a target a miss at [k, size)
        above = np.searchsorted(thresholds, scores, side="right")
        tar_k, non_k = above[target], above[~target]
        if right:
            np.add.at(diff_miss, tar_k, -1.0)
            diff_fa[0] -= non_k.size
            np.add.at(diff_fa, non_k, 1.0)
        else:
            diff_miss[0] += tar_k.size
            np.add.at(diff_miss, tar_k, -1.0)
            np.add.at(diff_fa, non_k, 1.0)
        miss += np.cumsum(diff_miss)[:size]
        fa += np.cumsum(diff_fa)[:size]
        p, c_miss, c_fa = self.metric.dcf
        cost = c_miss * p * miss / self._tar.size + c_fa * (1.0 - p) * fa / self._non.size
        return float(cost.min()) / min(c_miss * p, c_fa * (1.0 - p))

    def _scored(self, stats: np.ndarray) -> Scored:
        return Scored(self.metric.score(stats), stats)

    def current(self) -> Scored:
        if self._current is None:
            self._current = self._scored(self._stats())
        return self._current

    def corrected(self, step: Step) -> Scored:
        return self._scored(self._stats(self.positions(step), right=True))

    def impaired(self, step: Step) -> Scored:
        return self._scored(self._stats(self.positions(step), right=False))

    def advance(self, step: Step) -> Scored:
        adapted = step.adapted
        if adapted is not None and adapted.scores:
            index = self.doc.index
            where = np.fromiter((index[k] for k in adapted.scores), dtype=np.int64,
                                count=len(adapted.scores))
            self._scores[where] = np.fromiter(adapted.scores.values(), dtype=float,
                                              count=len(adapted.scores))
            self._sort()
            self._current = None
        return self.current()

    def cost(self, step: Step, cost_model: CostModel | None = None) -> float:
        """The log's cost when the model's `use_log_cost` is set and the log gives one, else
        one unit per labelled item (times `label_weight` when the cost model has one)."""
        model = CostModel() if cost_model is None else cost_model
        if step.cost is not None and model.use_log_cost:
            return float(step.cost)
        return float(len(step.target.items)) * float(getattr(model, "label_weight", 1.0))


# --------------------------------------------------------------------------------------------
# The plain recomputation the tests hold the track to


def brute_force(scores: Sequence[float], is_target: Sequence[bool], fixed: Mapping[int, bool],
                metric: DetMetric) -> float:
    """The metric of `scores` with the trials in `fixed` (position -> decided right?) taken
    out of the counts and counted as right or wrong decisions: a loop over thresholds, no
    caching (tests compare `DetTrack` with it)."""
    scores = [float(s) for s in scores]
    labels = [bool(y) for y in is_target]
    n_tar = sum(labels)
    n_non = len(labels) - n_tar

    def counts(t: float) -> tuple[int, int]:
        miss = fa = 0
        for i, (s, y) in enumerate(zip(scores, labels)):
            if i in fixed:
                wrong = not fixed[i]
            else:
                wrong = (s < t) if y else (s >= t)
            if wrong and y:
                miss += 1
            elif wrong:
                fa += 1
        return miss, fa

    if metric.name == "min_dcf":
        free = sorted({s for i, s in enumerate(scores) if i not in fixed})
        return min(_dcf(m / n_tar, f / n_non, metric.dcf)
                   for m, f in map(counts, free + [math.inf]))
    miss, fa = counts(metric.decision_threshold)
    if metric.name == "err":
        return 100.0 * (miss + fa) / len(scores)
    return _dcf(miss / n_tar, fa / n_non, metric.dcf)
