"""Detection evaluation: DET curve, EER (ROC convex hull or interpolated crossing), DCF.

Conventions (stated once, used everywhere in this module):

- Scores: higher means "target". A trial is accepted as target iff ``score >= t``, so at a
  threshold t the false-alarm rate is ``P_fa(t) = P(non-target score >= t)`` and the miss rate
  is ``P_miss(t) = P(target score < t)``. Tied scores move together: the curve has one point
  per distinct score, never a point that splits a tie.
- The curve's thresholds are every distinct score in ascending order, then ``+inf`` (reject
  everything). It therefore runs from (P_fa, P_miss) = (1, 0) at the lowest score to (0, 1).
  These are the points of sklearn's ``roc_curve`` (which pyannote.metrics' ``det_curve`` wraps)
  before it drops collinear points.
- Rates are fractions in [0, 1]; `eer` is a fraction (the CLI prints percent). minDCF and
  actDCF are normalised: divided by ``min(c_miss * p_target, c_fa * (1 - p_target))``, the cost
  of the better of the two trivial systems (accept all, reject all).
- actDCF takes the scores as natural-log likelihood ratios and decides at the Bayes threshold
  ``log(c_fa * (1 - p_target) / (c_miss * p_target))`` (accept iff ``score >= threshold``).

EER methods:

- ``"rocch"`` (default): the EER of the ROC convex hull, as BOSARIS 1.06 ``rocch`` +
  ``rocch2eer`` (bob.measure's ``rocch2eer``): the hull is the lower-left convex hull of the
  tie-aware (P_fa, P_miss) points, which is what BOSARIS obtains by PAV on the labels sorted by
  score; the EER is the highest crossing of the diagonal P_fa = P_miss by the lines through the
  hull's segments (the crossing segment's). It is the EER of the best system reachable by
  randomising between two thresholds, and it does not depend on how ties are broken.
- ``"threshold"``: the classical crossing: the first curve point with P_miss >= P_fa and its
  predecessor are joined by a straight line, which is cut with the diagonal.

The hull is computed exactly on integer counts (no floating-point tolerance): vectorised
rounds drop every point that is not a strict left turn between its neighbours, and a short
monotone-chain pass finishes what remains. Everything is vectorised numpy, which releases the
GIL in most of its loops, so a worker thread running `evaluate` leaves the GUI's event loop free;
the running counts, whose numpy loop (`cumsum`) keeps the GIL, are made by `_running_total`.

Long job: `evaluate(trials, dcf, progress, should_stop)` follows llgui.core.jobs: it reports
progress in [0, 1] and raises `Cancelled` (re-exported here from llgui.core.jobs) between
phases when asked to stop.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from llgui.core.jobs import Cancelled, Progress, ShouldStop, check, report
from llgui.core.types import Trials

__all__ = [
    "Cancelled", "DCF_PRESETS", "DET_TICKS", "DET_TICK_LABELS", "EER_METHODS", "DetCurve",
    "DetResult", "Hull", "OperatingPoint", "act_dcf", "bayes_threshold", "bootstrap_eer",
    "decimate", "det_curve", "eer", "evaluate", "min_dcf", "probit", "roc_hull",
]

EER_METHODS = ("rocch", "threshold")
"""`eer(..., method=)` values: ROC convex hull (default) and interpolated threshold crossing."""

DCF_PRESETS: tuple[tuple[float, float, float], ...] = ((0.01, 1.0, 1.0), (0.01, 10.0, 1.0),
                                                       (0.001, 1.0, 1.0))
"""(p_target, c_miss, c_fa) operating points offered in the GUI and the CLI (NIST SRE style)."""

DET_TICKS: tuple[float, ...] = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4)
"""Error rates (fractions) where a NIST-style DET plot puts its ticks, on both axes."""

DET_TICK_LABELS: tuple[str, ...] = ("0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "40")
"""The labels of `DET_TICKS`, in percent."""

_EPS = float(np.finfo(float).eps)


def probit(p) -> np.ndarray:
    """Normal deviate of probabilities (the DET axes): ``ndtri(p)``.

    p is clipped to [eps, 1 - eps] (eps = 2.2e-16) so 0 and 1 map to about -8.13 and +8.13
    instead of infinities a plot cannot draw. Returns an array of p's shape.
    """
    return ndtri(np.clip(np.asarray(p, dtype=float), _EPS, 1.0 - _EPS))


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, eq=False)
class DetCurve:
    """Miss and false-alarm rates of one system at every distinct threshold.

    All arrays have shape (n_points,), read-only, ordered by ascending threshold: `thresholds`
    holds the distinct scores then +inf; `p_fa` decreases from 1 to 0, `p_miss` increases from
    0 to 1. `n_fa` and `n_miss` are the same rates as counts (int64) of non-target and target
    trials, for exact arithmetic. A decimated curve (see `decimate`) keeps the same meaning on
    a subset of the points.
    """

    p_miss: np.ndarray
    p_fa: np.ndarray
    thresholds: np.ndarray
    n_miss: np.ndarray
    n_fa: np.ndarray
    n_target: int
    n_nontarget: int

    def __post_init__(self) -> None:
        for name in ("p_miss", "p_fa", "thresholds", "n_miss", "n_fa"):
            array = getattr(self, name)
            if array.flags.writeable:
                array = array.copy()
                array.setflags(write=False)
                object.__setattr__(self, name, array)

    def __len__(self) -> int:
        return int(self.p_miss.size)

    def at(self, threshold: float) -> tuple[float, float]:
        """(p_fa, p_miss) when accepting scores >= `threshold` (any real threshold)."""
        k = int(np.searchsorted(self.thresholds, threshold, side="left"))
        return float(self.p_fa[k]), float(self.p_miss[k])


@dataclass(frozen=True, eq=False)
class Hull:
    """The ROC convex hull (ROCCH): its vertices, a subset of the curve's points.

    Arrays of shape (n_vertices,), in the curve's order (ascending threshold, so from
    (p_fa, p_miss) = (1, 0) to (0, 1)); `indices` are the vertices' positions in the curve.
    Collinear points are not vertices (as BOSARIS's PAV pools equal slopes).
    """

    p_miss: np.ndarray
    p_fa: np.ndarray
    thresholds: np.ndarray
    indices: np.ndarray


@dataclass(frozen=True)
class OperatingPoint:
    """A point to mark on a DET plot: rates (fractions) and the threshold that gives them.

    For the EER the threshold of a hull segment's interior is interpolated linearly between the
    segment's two vertex thresholds: the hull's EER is reached exactly only by randomising
    between those two thresholds, so this threshold is indicative. Infinite thresholds (the
    end of the curve) are kept as they are.
    """

    p_fa: float
    p_miss: float
    threshold: float


@dataclass(frozen=True, eq=False)
class DetResult:
    """Everything `evaluate` computes for one system (rates and EER as fractions)."""

    name: str
    n_target: int
    n_nontarget: int
    curve: DetCurve
    hull: Hull
    eer: float
    eer_method: str
    eer_point: OperatingPoint
    dcf: tuple[float, float, float]
    min_dcf: float
    min_dcf_point: OperatingPoint
    act_dcf: float
    act_dcf_point: OperatingPoint
    plot_curve: DetCurve
    """`curve` decimated for drawing: every hull vertex, at most about 2000 points more."""
    llr_warning: str | None = None
    """Why the scores cannot be log-likelihood ratios (then actDCF measures nothing), or None
    (`llgui.core.detection.llr`)."""

    @property
    def eer_percent(self) -> float:
        """The EER in percent, as reports and tables give it (`llgui det`)."""
        return 100.0 * self.eer


# --------------------------------------------------------------------------------------------
# The curve


def _split(scores, is_target) -> tuple[np.ndarray, np.ndarray]:
    """Sorted target and non-target scores, after checking the input."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(is_target, dtype=bool)
    if scores.ndim != 1 or scores.shape != labels.shape:
        raise ValueError("scores and is_target must be 1-D arrays of the same length")
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite (no NaN or infinity)")
    # Sorting the two classes apart is much faster than one argsort of everything (numpy's
    # SIMD sort has no argsort counterpart); `_curve_from_sorted` then merges them.
    tar = np.sort(scores[labels])
    non = np.sort(scores[~labels])
    if tar.size == 0 or non.size == 0:
        raise ValueError(f"need target and non-target trials (have {tar.size} targets, "
                         f"{non.size} non-targets)")
    return tar, non


RUNNING_CHUNK = 1 << 16
"""Counts summed per chunk by `_running_total` (512 KiB of int64 result)."""


def _running_total(counts: np.ndarray) -> np.ndarray:
    """``[0, c0, c0 + c1, ...]`` as int64 (``np.concatenate(([0], np.cumsum(counts)))``),
    keeping a worker's GIL for short stretches only. numpy asks the kernel for huge pages for
    an array of 4 MB or more, and the first write to each 2-MB page makes the kernel find one
    (it may compact memory for it): 27-35 ms of CPU a page on this project's machine. numpy's
    `cumsum` keeps the GIL for its whole loop, so writing a 10^6-trial curve's 8-MB result
    stalled the window's event loop 35-230 ms (gate 3). Here the result is first filled by
    `fill`, which gives the GIL up while it writes, then summed in chunks of `RUNNING_CHUNK`,
    between which a worker gives the interpreter back."""
    counts = np.asarray(counts)
    out = np.empty(counts.size + 1, dtype=np.int64)
    out.fill(0)
    carry = 0
    for lo in range(0, counts.size, RUNNING_CHUNK):
        part = out[lo + 1:lo + 1 + RUNNING_CHUNK]
        np.cumsum(counts[lo:lo + RUNNING_CHUNK], dtype=np.int64, out=part)
        if carry:
            part += carry
        carry = int(part[-1])
    return out


def _curve_from_sorted(tar: np.ndarray, non: np.ndarray) -> DetCurve:
    # Merge the two sorted classes without another sort: each target lands after the
    # non-targets strictly below it (ties put targets first, which does not matter: the curve
    # only has points between groups of equal scores).
    n_t, n_n = tar.size, non.size
    at = np.searchsorted(non, tar, side="left") + np.arange(n_t)
    is_tar = np.zeros(n_t + n_n, dtype=bool)
    is_tar[at] = True
    merged = np.empty(n_t + n_n)
    merged[at] = tar
    merged[~is_tar] = non
    # Start of every group of equal scores: these are the curve's thresholds.
    starts = np.flatnonzero(np.concatenate(([True], merged[1:] != merged[:-1])))
    targets_below = _running_total(is_tar)
    n_miss = np.append(targets_below[starts], n_t)          # targets < threshold
    n_fa = np.append(n_n - (starts - targets_below[starts]), 0)  # non-targets >= threshold
    thresholds = np.append(merged[starts], np.inf)
    return DetCurve(p_miss=_owned(n_miss / n_t), p_fa=_owned(n_fa / n_n),
                    thresholds=_owned(thresholds), n_miss=_owned(n_miss), n_fa=_owned(n_fa),
                    n_target=int(n_t), n_nontarget=int(n_n))


def det_curve(scores, is_target) -> DetCurve:
    """DET curve of trial `scores` (shape (n,), finite, higher = target) and their labels.

    Tie-aware, one point per distinct score plus +inf; see the module docstring for the
    conventions. Raises ValueError without both classes or with non-finite scores.
    """
    return _curve_from_sorted(*_split(scores, is_target))


# --------------------------------------------------------------------------------------------
# ROC convex hull


def _left_turns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """For each interior point i of a polyline: is p_{i-1} -> p_i -> p_{i+1} a strict left
    turn, i.e. (p_i - p_{i-1}) x (p_{i+1} - p_{i-1}) > 0? Shape (len(x) - 2,)."""
    return ((x[1:-1] - x[:-2]) * (y[2:] - y[:-2]) - (y[1:-1] - y[:-2]) * (x[2:] - x[:-2])) > 0


def _hull_indices(n_fa: np.ndarray, n_miss: np.ndarray) -> np.ndarray:
    """Positions of the ROCCH vertices among the curve points (ascending), exact on counts.

    Walking the curve backwards (x = false alarms ascending, y = misses descending), the hull
    is the lower convex chain from (0, n_target) to (n_nontarget, 0): every vertex is a strict
    left turn. A point that is not a strict left turn between two other points of the set lies
    on or above their chord, so it is not a vertex, and all such points can go at once (once
    repeated points are merged: a copy's chord is degenerate); rounds
    of this shrink a DET staircase fast, and a monotone chain finishes the remainder. As x
    rises and y falls, the two products of a cross product have the same sign, so with counts
    below 2**31 their difference stays within int64.
    """
    x = n_fa[::-1].astype(np.int64)
    y = n_miss[::-1].astype(np.int64)
    # Repeated points (a curve built on scores that a bootstrap replicate did not draw) are one
    # point: two copies of a vertex are neither a strict left turn, and both would go at once.
    # The curve is monotone, so copies are consecutive; the first of each run is kept.
    keep = np.flatnonzero(np.concatenate(([True], (x[1:] != x[:-1]) | (y[1:] != y[:-1]))))
    xs, ys = x[keep], y[keep]
    for _ in range(64):
        if keep.size <= 16:
            break
        left = _left_turns(xs, ys)
        if left.all():
            break
        mask = np.concatenate(([True], left, [True]))
        keep, xs, ys = keep[mask], xs[mask], ys[mask]
    # Monotone chain (Andrew) on what is left, in exact Python integers.
    xs, ys = x[keep].tolist(), y[keep].tolist()
    chain: list[int] = []
    for k in range(len(xs)):
        while len(chain) >= 2:
            o, a = chain[-2], chain[-1]
            if (xs[a] - xs[o]) * (ys[k] - ys[o]) - (ys[a] - ys[o]) * (xs[k] - xs[o]) > 0:
                break
            chain.pop()
        chain.append(k)
    backwards = keep[np.asarray(chain, dtype=np.int64)]
    return (x.size - 1 - backwards)[::-1]


def roc_hull(curve: DetCurve) -> Hull:
    """The ROC convex hull of a curve (see `Hull`)."""
    idx = _hull_indices(curve.n_fa, curve.n_miss)
    return Hull(p_miss=_ro(curve.p_miss[idx]), p_fa=_ro(curve.p_fa[idx]),
                thresholds=_ro(curve.thresholds[idx]), indices=_ro(idx))


def _rocch_eer(hull: Hull) -> float:
    """BOSARIS ``rocch2eer``: the largest crossing of the diagonal by a hull segment's line.

    For each segment, the line a*p_fa + b*p_miss = 1 through its two vertices meets the
    diagonal at 1/(a + b); segments parallel to an axis count as 0. Solving the 2x2 system in
    closed form: a + b = ((y2 - y1) - (x2 - x1)) / (x1*y2 - x2*y1).
    """
    x1, x2 = hull.p_fa[:-1], hull.p_fa[1:]
    y1, y2 = hull.p_miss[:-1], hull.p_miss[1:]
    ok = (x1 != x2) & (y1 != y2)
    det = x1[ok] * y2[ok] - x2[ok] * y1[ok]
    slope = (y2[ok] - y1[ok]) - (x2[ok] - x1[ok])
    with np.errstate(divide="ignore", invalid="ignore"):
        candidates = np.where(slope != 0, det / np.where(slope != 0, slope, 1.0), 0.0)
    return float(max(0.0, candidates.max(initial=0.0)))


def _crossing(p_fa: np.ndarray, p_miss: np.ndarray, thresholds: np.ndarray
              ) -> tuple[float, OperatingPoint]:
    """Where the polyline through the points (ascending threshold) crosses P_miss = P_fa.

    Returns the crossing rate and an operating point with a linearly interpolated threshold.
    """
    diff = p_miss - p_fa  # non-decreasing from -1 to 1
    k = int(np.argmax(diff >= 0))
    if diff[k] == 0 or k == 0:
        rate = float(p_miss[k])
        return rate, OperatingPoint(rate, rate, float(thresholds[k]))
    d0, d1 = diff[k - 1], diff[k]
    u = float(-d0 / (d1 - d0))
    rate = float(p_fa[k - 1] + u * (p_fa[k] - p_fa[k - 1]))
    t0, t1 = float(thresholds[k - 1]), float(thresholds[k])
    threshold = t0 + u * (t1 - t0) if math.isfinite(t1) else t0
    return rate, OperatingPoint(rate, rate, threshold)


def eer(scores_or_curve, is_target=None, method: str = "rocch") -> tuple[float, str]:
    """Equal error rate (fraction) and the method's name.

    Pass either a `DetCurve`, or `scores` and `is_target` arrays. `method` is ``"rocch"``
    (ROC convex hull, BOSARIS / bob.measure ``rocch2eer``) or ``"threshold"`` (interpolated
    crossing of the curve itself); see the module docstring.
    """
    curve = _as_curve(scores_or_curve, is_target)
    value, _point = _eer(curve, roc_hull(curve) if method == "rocch" else None, method)
    return value, method


def _eer(curve: DetCurve, hull: Hull | None, method: str) -> tuple[float, OperatingPoint]:
    if method == "rocch":
        assert hull is not None
        value = _rocch_eer(hull)
        _rate, point = _crossing(hull.p_fa, hull.p_miss, hull.thresholds)
        return value, OperatingPoint(value, value, point.threshold)
    if method == "threshold":
        return _crossing(curve.p_fa, curve.p_miss, curve.thresholds)
    raise ValueError(f"unknown EER method {method!r} (choose from {', '.join(EER_METHODS)})")


# --------------------------------------------------------------------------------------------
# Detection cost


def _check_dcf(p_target: float, c_miss: float, c_fa: float) -> None:
    if not (0.0 < p_target < 1.0):
        raise ValueError(f"p_target must be in (0, 1), not {p_target!r}")
    if not (c_miss > 0 and c_fa > 0 and math.isfinite(c_miss) and math.isfinite(c_fa)):
        raise ValueError(f"costs must be positive and finite, not c_miss={c_miss!r}, "
                         f"c_fa={c_fa!r}")


def bayes_threshold(p_target: float, c_miss: float, c_fa: float) -> float:
    """Bayes decision threshold on log-likelihood-ratio scores:
    log(c_fa (1 - p_target) / (c_miss p_target))."""
    _check_dcf(p_target, c_miss, c_fa)
    return math.log(c_fa * (1.0 - p_target) / (c_miss * p_target))


def _normaliser(p_target: float, c_miss: float, c_fa: float) -> float:
    return min(c_miss * p_target, c_fa * (1.0 - p_target))


def _min_dcf(curve: DetCurve, p_target: float, c_miss: float, c_fa: float
             ) -> tuple[float, OperatingPoint]:
    _check_dcf(p_target, c_miss, c_fa)
    cost = c_miss * p_target * curve.p_miss + c_fa * (1.0 - p_target) * curve.p_fa
    k = int(np.argmin(cost))
    value = float(cost[k]) / _normaliser(p_target, c_miss, c_fa)
    return value, OperatingPoint(float(curve.p_fa[k]), float(curve.p_miss[k]),
                                 float(curve.thresholds[k]))


def _act_dcf(curve: DetCurve, p_target: float, c_miss: float, c_fa: float
             ) -> tuple[float, OperatingPoint]:
    threshold = bayes_threshold(p_target, c_miss, c_fa)
    p_fa, p_miss = curve.at(threshold)
    cost = c_miss * p_target * p_miss + c_fa * (1.0 - p_target) * p_fa
    return cost / _normaliser(p_target, c_miss, c_fa), OperatingPoint(p_fa, p_miss, threshold)


def min_dcf(scores_or_curve, is_target=None, p_target: float = 0.01, c_miss: float = 1.0,
            c_fa: float = 1.0) -> float:
    """Minimum normalised detection cost over all thresholds of the curve.

    DCF(t) = c_miss p_target P_miss(t) + c_fa (1 - p_target) P_fa(t), divided by
    min(c_miss p_target, c_fa (1 - p_target)). The minimum over the hull equals the minimum
    over the curve's points (a linear cost is minimal at a vertex).
    """
    return _min_dcf(_as_curve(scores_or_curve, is_target), p_target, c_miss, c_fa)[0]


def act_dcf(scores_or_curve, is_target=None, p_target: float = 0.01, c_miss: float = 1.0,
            c_fa: float = 1.0) -> float:
    """Actual normalised detection cost at the Bayes threshold (scores taken as natural-log
    likelihood ratios; accept iff score >= threshold)."""
    return _act_dcf(_as_curve(scores_or_curve, is_target), p_target, c_miss, c_fa)[0]


def _as_curve(scores_or_curve, is_target) -> DetCurve:
    if isinstance(scores_or_curve, DetCurve):
        return scores_or_curve
    if isinstance(scores_or_curve, Trials):
        return det_curve(scores_or_curve.scores, scores_or_curve.is_target)
    if is_target is None:
        raise TypeError("give a DetCurve, a Trials, or scores and is_target")
    return det_curve(scores_or_curve, is_target)


# --------------------------------------------------------------------------------------------
# Plotting support


def decimate(curve: DetCurve, keep: np.ndarray | None = None, max_points: int = 2000
             ) -> DetCurve:
    """A subset of the curve's points that draws the same on probit axes.

    A point is taken wherever the curve has advanced by another 1/(max_points/2) of its
    probit range along either axis (so the tails, which probit axes stretch, keep their
    detail), plus the first and last points and every index in `keep` (e.g. the hull's
    vertices). At most `max_points` + 2 + len(keep) points. Costs two binary searches per
    level, not a transform of the whole curve.
    """
    n = len(curve)
    if n <= max_points:
        return curve
    levels = max(2, max_points // 2)
    parts = [np.array([0, n - 1])]
    # p_fa decreases along the curve: search its reverse; p_miss increases.
    for rates, descending in ((curve.p_fa, True), (curve.p_miss, False)):
        lo, hi = probit([rates.min(), rates.max()])
        steps = ndtr(np.linspace(lo, hi, levels))
        if descending:
            found = n - 1 - np.searchsorted(rates[::-1], steps, side="left")
        else:
            found = np.searchsorted(rates, steps, side="left")
        parts.append(found.clip(0, n - 1))
    if keep is not None:
        parts.append(np.asarray(keep, dtype=np.int64))
    idx = np.unique(np.concatenate(parts).astype(np.int64))
    return DetCurve(p_miss=curve.p_miss[idx], p_fa=curve.p_fa[idx],
                    thresholds=curve.thresholds[idx], n_miss=curve.n_miss[idx],
                    n_fa=curve.n_fa[idx], n_target=curve.n_target,
                    n_nontarget=curve.n_nontarget)


# --------------------------------------------------------------------------------------------
# The job


def evaluate(trials: Trials, dcf: tuple[float, float, float] = (0.01, 1.0, 1.0),
             progress: Progress = None, should_stop: ShouldStop = None,
             eer_method: str = "rocch", max_plot_points: int = 2000) -> DetResult:
    """DET curve, ROCCH, EER, minDCF and actDCF of one system: the detection worker's job.

    `dcf` is (p_target, c_miss, c_fa). Calls `progress(fraction)` with increasing fractions in
    [0, 1] and raises `Cancelled` between phases once `should_stop()` returns True. Raises
    ValueError for trials without both classes or with non-finite scores.
    """
    if eer_method not in EER_METHODS:
        raise ValueError(f"unknown EER method {eer_method!r} "
                         f"(choose from {', '.join(EER_METHODS)})")
    p_target, c_miss, c_fa = (float(v) for v in dcf)
    _check_dcf(p_target, c_miss, c_fa)
    report(progress, 0.0)
    check(should_stop)
    tar, non = _split(trials.scores, trials.is_target)
    report(progress, 0.4)
    check(should_stop)
    curve = _curve_from_sorted(tar, non)
    report(progress, 0.6)
    check(should_stop)
    hull = roc_hull(curve)
    report(progress, 0.8)
    check(should_stop)
    eer_value, eer_point = _eer(curve, hull, eer_method)
    min_value, min_point = _min_dcf(curve, p_target, c_miss, c_fa)
    act_value, act_point = _act_dcf(curve, p_target, c_miss, c_fa)
    report(progress, 0.9)
    check(should_stop)
    plot = decimate(curve, hull.indices, max_plot_points)
    from llgui.core.detection.llr import llr_warning_split

    warning = llr_warning_split(tar, non, bayes_threshold(p_target, c_miss, c_fa))
    report(progress, 1.0)
    return DetResult(name=trials.name, n_target=curve.n_target,
                     n_nontarget=curve.n_nontarget, curve=curve, hull=hull, eer=eer_value,
                     eer_method=eer_method, eer_point=eer_point,
                     dcf=(p_target, c_miss, c_fa), min_dcf=min_value, min_dcf_point=min_point,
                     act_dcf=act_value, act_dcf_point=act_point, plot_curve=plot,
                     llr_warning=warning)


def bootstrap_eer(trials: Trials, n: int = 1000, seed: int = 0, level: float = 0.95,
                  method: str = "rocch", progress: Progress = None,
                  should_stop: ShouldStop = None) -> tuple[float, float]:
    """Percentile bootstrap interval (lo, hi) of the EER (fractions), at confidence `level`.

    Targets and non-targets are resampled separately with replacement (their counts fixed), `n`
    times, from a generator seeded with `seed` (same seed, same interval). Each replicate
    redraws how many times each distinct score occurs (a multinomial over the distinct
    values), which is the same as resampling trials but needs no new sort: the cost is about
    one curve and one hull per replicate. A long job like `evaluate`.
    """
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), not {level!r}")
    if n < 1:
        raise ValueError("n must be at least 1")
    tar, non = _split(trials.scores, trials.is_target)
    curve = _curve_from_sorted(tar, non)
    # Occurrences of each distinct score (curve.thresholds without +inf) in each class.
    tar_counts = np.diff(curve.n_miss)
    non_counts = -np.diff(curve.n_fa)
    rng = np.random.default_rng(seed)
    values = np.empty(n)
    for r in range(n):
        check(should_stop)
        t = rng.multinomial(curve.n_target, tar_counts / curve.n_target)
        f = rng.multinomial(curve.n_nontarget, non_counts / curve.n_nontarget)
        # The replicate's curve has a point per score it drew (then +inf), as `det_curve` of
        # the resampled trials would: a score drawn zero times adds no point.
        drawn = np.append((t > 0) | (f > 0), True)
        n_miss = _running_total(t)[drawn]
        n_fa = (curve.n_nontarget - _running_total(f))[drawn]
        replicate = DetCurve(p_miss=_owned(n_miss / curve.n_target),
                             p_fa=_owned(n_fa / curve.n_nontarget),
                             thresholds=_owned(curve.thresholds[drawn]), n_miss=_owned(n_miss),
                             n_fa=_owned(n_fa),
                             n_target=curve.n_target, n_nontarget=curve.n_nontarget)
        hull = roc_hull(replicate) if method == "rocch" else None
        values[r] = _eer(replicate, hull, method)[0]
        report(progress, (r + 1) / n)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def _owned(array: np.ndarray) -> np.ndarray:
    """Make a freshly computed array (no other reference to it) read-only without a copy."""
    array.setflags(write=False)
    return array


def _ro(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array


# --------------------------------------------------------------------------------------------
# Several systems at once (the jobs the GUI and the CLI run)


def evaluate_systems(systems, dcf, eer_method: str = "rocch", progress=None,
                     should_stop=None) -> tuple:
    """Worker job: `det.evaluate` of every system in turn; one DetResult per system, in order.

    Progress runs over all systems (system k covers [k/n, (k+1)/n])."""
    n = len(systems)
    results = []
    for k, trials in enumerate(systems):
        check(should_stop)

        def part(fraction: float, k: int = k) -> None:
            if progress is not None:
                progress((k + fraction) / n)

        results.append(evaluate(trials, dcf=dcf, eer_method=eer_method, progress=part,
                                should_stop=should_stop))
    return tuple(results)


def bootstrap_systems(systems, eer_method: str = "rocch", n: int = 200,
                      progress=None, should_stop=None) -> dict:
    """Worker job: 95 % percentile bootstrap interval of each system's EER (fractions),
    {name: (lo, hi)}, seeded (the same interval every time)."""
    out = {}
    count = len(systems)
    for k, trials in enumerate(systems):
        def part(fraction: float, k: int = k) -> None:
            if progress is not None:
                progress((k + fraction) / count)

        out[trials.name] = bootstrap_eer(trials, n=n, seed=0, method=eer_method,
                                         progress=part, should_stop=should_stop)
    return out
