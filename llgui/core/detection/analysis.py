"""The evaluation lecture's views of detection scores beside DET: P/R/F at a threshold, ROC,
score histograms per class, Q-Q plots (DESIGN.md 1.8).

Conventions are `llgui.core.detection.det`'s: higher scores mean "target", a trial is accepted iff
``score >= threshold``. Rates are percentages where a report shows them (`AtThreshold`),
fractions on plot axes (ROC).

- `at_threshold`: confusion counts, precision, recall, F1 and error rate. Precision of a
  system that accepts nothing is 0, as scikit-learn's `precision_recall_fscore_support` with
  its default ``zero_division`` gives it (and F1 is 0 when precision + recall is 0).
- `roc`: false-positive rate and true-positive rate at every distinct threshold (the DET
  curve's points on linear axes), and the area under it by trapezoids, which counts a tied
  target / non-target pair as half, as scikit-learn's `roc_auc_score` does.
- `histograms`: counts (or densities) of target and non-target scores on shared bins.
- `qq`: quantiles of two score sets at the same probabilities (numpy's default linear
  interpolation), e.g. target vs non-target; `normal_qq`: a score set against the standard
  normal, with Filliben's order-statistic medians as `scipy.stats.probplot` uses.
- `nearest_trials`: the trials whose scores are closest to a threshold.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from llgui.core.detection.det import DetCurve


@dataclass(frozen=True)
class AtThreshold:
    """Decisions at one threshold: counts, and precision / recall / F1 / error rate in %."""

    threshold: float
    tp: int
    fp: int
    tn: int
    fn: int
    precision: float
    recall: float
    f1: float
    error_rate: float

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def p_fa(self) -> float:
        """False-alarm rate (fraction of the non-targets accepted): the DET point's x."""
        return self.fp / (self.fp + self.tn)

    @property
    def p_miss(self) -> float:
        """Miss rate (fraction of the targets rejected): the DET point's y."""
        return self.fn / (self.tp + self.fn)

    @property
    def tpr(self) -> float:
        """True-positive rate (fraction of the targets accepted): the ROC point's y."""
        return self.tp / (self.tp + self.fn)


def at_threshold(scores, is_target, threshold: float) -> AtThreshold:
    """Counts and rates of accepting ``score >= threshold`` (shapes (n,), n > 0)."""
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(is_target, dtype=bool)
    accepted = scores >= threshold
    tp = int(np.count_nonzero(accepted & labels))
    fp = int(np.count_nonzero(accepted & ~labels))
    fn = int(np.count_nonzero(~accepted & labels))
    tn = int(labels.size - tp - fp - fn)
    return _rates(float(threshold), tp, fp, tn, fn)


def at_threshold_sorted(tar: np.ndarray, non: np.ndarray, threshold: float) -> AtThreshold:
    """`at_threshold` from the sorted target and non-target scores: two binary searches, for
    a threshold that follows the mouse on a million trials."""
    fn = int(np.searchsorted(tar, threshold, side="left"))
    tn = int(np.searchsorted(non, threshold, side="left"))
    return _rates(float(threshold), tar.size - fn, non.size - tn, tn, fn)


def _rates(threshold: float, tp: int, fp: int, tn: int, fn: int) -> AtThreshold:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    n = tp + fp + tn + fn
    return AtThreshold(threshold, tp, fp, tn, fn, 100.0 * precision, 100.0 * recall,
                       100.0 * f1, 100.0 * (fp + fn) / n if n else float("nan"))


@dataclass(frozen=True, eq=False)
class Roc:
    """ROC on linear axes: `fpr` and `tpr` (fractions, shape (n_points,), from (0, 0) to
    (1, 1)), the threshold of each point (+inf first), and the area under the curve."""

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    auc: float


def roc(curve: DetCurve) -> Roc:
    """The ROC of a DET curve: fpr = P_fa, tpr = 1 - P_miss, in ascending fpr."""
    fpr = curve.p_fa[::-1].copy()
    tpr = 1.0 - curve.p_miss[::-1]
    # trapezoids on exact counts: the sum of (fa_k+1 - fa_k) * (hits_k+1 + hits_k) / 2
    n_fa = curve.n_fa[::-1].astype(np.float64)
    hits = (curve.n_target - curve.n_miss[::-1]).astype(np.float64)
    area = float(np.sum(np.diff(n_fa) * (hits[1:] + hits[:-1])) / 2.0)
    auc = area / (curve.n_target * curve.n_nontarget)
    return Roc(fpr, tpr, curve.thresholds[::-1].copy(), auc)


@dataclass(frozen=True, eq=False)
class Histograms:
    """Score histograms of the two classes on the same bins: `edges` (n_bins + 1,), counts
    or densities (n_bins,)."""

    edges: np.ndarray
    target: np.ndarray
    nontarget: np.ndarray
    density: bool


def histograms(scores, is_target, bins: int = 50, density: bool = True) -> Histograms:
    """Histograms of target and non-target scores on `bins` equal bins over all the scores
    (numpy.histogram's; densities integrate to 1 per class)."""
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(is_target, dtype=bool)
    edges = np.histogram_bin_edges(scores, bins=bins)
    tar, _ = np.histogram(scores[labels], bins=edges, density=density)
    non, _ = np.histogram(scores[~labels], bins=edges, density=density)
    return Histograms(edges, tar, non, density)


def qq(a, b, n: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probabilities, quantiles of `a`, quantiles of `b`) at n probabilities (k - 0.5) / n,
    k = 1..n: a Q-Q plot of two samples of any sizes. A straight line of slope 1 means the
    same distribution up to a shift."""
    p = qq_probabilities(n)
    return p, np.quantile(np.asarray(a, dtype=float), p), np.quantile(np.asarray(b, dtype=float), p)


def qq_probabilities(n: int) -> np.ndarray:
    """The n probabilities (k - 0.5) / n, k = 1..n, of a Q-Q plot."""
    return (np.arange(1, n + 1) - 0.5) / n


def normal_qq(values) -> tuple[np.ndarray, np.ndarray]:
    """(theoretical standard-normal quantiles, sorted values): `scipy.stats.probplot`'s
    (osm, osr), with Filliben's estimate of the order-statistic medians."""
    from scipy.special import ndtri

    ordered = np.sort(np.asarray(values, dtype=float))
    n = ordered.size
    m = (np.arange(1, n + 1) - 0.3175) / (n + 0.365)
    m[-1] = 0.5 ** (1.0 / n)
    m[0] = 1.0 - m[-1]
    return ndtri(m), ordered


def nearest_trials(scores, threshold: float, k: int = 20) -> np.ndarray:
    """Positions of the (up to) k trials whose scores are closest to `threshold`, closest
    first (ties by position)."""
    scores = np.asarray(scores, dtype=float)
    distance = np.abs(scores - threshold)
    k = min(k, scores.size)
    if k == 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(distance, k - 1)[:k]
    return part[np.lexsort((part, distance[part]))]


def at_threshold_curve(curve: DetCurve, threshold: float) -> AtThreshold:
    """`at_threshold` read off a DET curve's counts: one binary search (the GUI's threshold
    follows the mouse on a million trials without touching the scores)."""
    k = int(np.searchsorted(curve.thresholds, threshold, side="left"))
    fn = int(curve.n_miss[k])
    fp = int(curve.n_fa[k])
    return _rates(float(threshold), curve.n_target - fn, fp, curve.n_nontarget - fp, fn)


def nearest_point(curve: DetCurve, x: float, y: float) -> int:
    """Index of the curve point nearest to (x, y) on probit axes (x: probit of P_fa, y: of
    P_miss), as a click on a DET plot means it."""
    from llgui.core.detection.det import probit

    return int(np.argmin((probit(curve.p_fa) - x) ** 2 + (probit(curve.p_miss) - y) ** 2))


def point_threshold(curve: DetCurve, k: int) -> float:
    """A finite threshold giving curve point k: its score, or for the last point (+inf,
    reject everything) the next float above the highest score."""
    t = float(curve.thresholds[k])
    if np.isfinite(t):
        return t
    return float(np.nextafter(curve.thresholds[-2], np.inf)) if curve.thresholds.size > 1 else 0.0


# --------------------------------------------------------------------------------------------
# The same views read off a DET curve's counts (the GUI's path: no pass over the trials)


def _below(curve: DetCurve, target: bool | None) -> np.ndarray:
    """For each curve threshold, how many scores of the class (None: of both) lie strictly
    below it."""
    if target is None:
        return curve.n_miss + (curve.n_nontarget - curve.n_fa)
    if target:
        return curve.n_miss
    return curve.n_nontarget - curve.n_fa


def _size(curve: DetCurve, target: bool | None) -> int:
    if target is None:
        return curve.n_target + curve.n_nontarget
    return curve.n_target if target else curve.n_nontarget


def order_statistics(curve: DetCurve, target: bool | None, ranks) -> np.ndarray:
    """The class's (None: all) sorted scores at 0-based `ranks`, from the curve's counts (its
    thresholds are the distinct scores): O(len(ranks) log n_points)."""
    below = _below(curve, target)
    j = np.searchsorted(below, np.asarray(ranks, dtype=np.int64), side="right") - 1
    return curve.thresholds[j]


def quantiles_from_curve(curve: DetCurve, target: bool | None, p) -> np.ndarray:
    """numpy.quantile (method "linear") of one class's (None: all) scores at `p`."""
    n = _size(curve, target)
    h = (n - 1) * np.asarray(p, dtype=float)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    a, b = order_statistics(curve, target, lo), order_statistics(curve, target, hi)
    t = h - lo
    # numpy's lerp: from the nearer end, so that t = 1 gives b exactly
    return np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)


def qq_from_curve(curve: DetCurve, n: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`qq(non-target scores, target scores, n)` read off the curve."""
    p = qq_probabilities(n)
    return p, quantiles_from_curve(curve, False, p), quantiles_from_curve(curve, True, p)


def histograms_from_curve(curve: DetCurve, bins: int = 50, density: bool = True) -> Histograms:
    """`histograms` read off the curve: numpy's bins over all scores ([lo, hi) each, the last
    one closed), counted as differences of the counts below each edge."""
    lo, hi = float(curve.thresholds[0]), float(curve.thresholds[-2])
    edges = np.histogram_bin_edges(np.array([lo, hi]), bins=bins)
    k = np.searchsorted(curve.thresholds, edges, side="left")
    out = []
    for target, n in ((True, curve.n_target), (False, curve.n_nontarget)):
        below = _below(curve, target)[k].astype(np.float64)
        below[-1] = n   # the last bin includes its right edge (the highest score)
        counts = np.diff(below)
        out.append(counts / (n * np.diff(edges)) if density else counts)
    return Histograms(edges, out[0], out[1], density)


def normal_qq_from_curve(curve: DetCurve, target: bool, max_points: int = 2000
                         ) -> tuple[np.ndarray, np.ndarray]:
    """`normal_qq` of one class's scores at (at most) `max_points` evenly spaced ranks."""
    from scipy.special import ndtri

    n = curve.n_target if target else curve.n_nontarget
    ranks = np.unique(np.linspace(0, n - 1, min(n, max_points)).astype(np.int64))
    m = (ranks + 1 - 0.3175) / (n + 0.365)
    last = 0.5 ** (1.0 / n)
    m[ranks == n - 1] = last
    m[ranks == 0] = 1.0 - last
    return ndtri(m), order_statistics(curve, target, ranks)


def qq_curves(first: DetCurve, second: DetCurve, n: int = 200
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`qq(all scores of first, all scores of second, n)` read off two systems' curves."""
    p = qq_probabilities(n)
    return p, quantiles_from_curve(first, None, p), quantiles_from_curve(second, None, p)


@dataclass(frozen=True)
class TrialDecision:
    """One trial decided at a threshold: its position, true label, score and whether it was
    accepted (``score >= threshold``)."""

    index: int
    target: bool
    score: float
    accepted: bool

    @property
    def right(self) -> bool:
        """The decision agrees with the true label."""
        return self.accepted == self.target


def decisions_at(scores, is_target, positions, threshold: float) -> tuple[TrialDecision, ...]:
    """The decisions at `threshold` on the trials at `positions` (in that order)."""
    return tuple(TrialDecision(int(i), bool(is_target[i]), float(scores[i]),
                               bool(scores[i] >= threshold))
                 for i in (positions.tolist() if hasattr(positions, "tolist") else positions))


def scores_changed(before, after, positions) -> bool:
    """True when any trial at `positions` has another score `after` than `before` (a system
    that changed none of the trials a human labelled ignored the labels)."""
    positions = list(positions)
    if not positions:
        return False
    return bool(np.any(np.asarray(after)[positions] != np.asarray(before)[positions]))
