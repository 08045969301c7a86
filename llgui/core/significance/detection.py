"""Detection under resampling: EER / minDCF / actDCF as `resample.Sample`s, and DET bands.

Units are trials (`trial`) or, two-layer, the speakers that own them (`speaker`; a group id per
trial, NISTIR 7722). A resample is a multiplicity per trial; the trials are sorted once, so a
resample's DET curve is a weighted cumulative count over the distinct scores it contains,
which is exactly `llgui.core.detection.det.det_curve` of the resampled trials (the tests hold every
value equal to the core's EER / minDCF computed on `scores[idx]` for the same indices). A
resample without a target or without a non-target trial has no DET curve: its value is NaN
and it is left out of the interval.

DET band (DESIGN 1.7): at a fixed grid of false-alarm rates (probit-spaced), the miss rate of
each resampled curve (the best operating point with P_fa <= x), and per grid point the 2.5th
and 97.5th percentiles: a pointwise 95 % band around the DET curve.

EER / minDCF intervals of the window (`det_bands`, issue 27): stratified resampling (targets
and non-targets resampled separately, their counts fixed: `strata:class` in the signature) and
the BCa interval (`ci:bca95`), whose bias correction matters here: the ROCCH EER of a sample
is biased low (the hull of a sample is optimistic), so percentile intervals held the
population EER of pyeer exp1 in only ~90 % of 120-400-trial subsamples at any number of
resamples, BCa in ~94 % (tests/core/significance/test_det_coverage.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from llgui.core.detection import det
from llgui.core.jobs import check, report
from llgui.core.significance.resample import (
    TIE_TOLERANCE, Estimate, Plan, bca_interval, bootstrap_counts, counts_of, estimate_from,
    tied,
)
from llgui.core.types import Trials


def snap_scores(trials: Trials) -> Trials:
    """The trials with scores that tie their next lower distinct score (within
    `resample.TIE_TOLERANCE`, relative) set to it: float noise makes no DET point. The same
    trials when no two distinct scores tie (the usual case)."""
    scores = np.asarray(trials.scores, dtype=np.float64)
    if scores.size < 2:
        return trials
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    gap = np.diff(s)
    noise = (gap > 0) & (gap <= TIE_TOLERANCE * np.maximum(1.0, np.maximum(np.abs(s[1:]),
                                                                           np.abs(s[:-1]))))
    if not noise.any():
        return trials
    starts = np.concatenate(([True], ~((gap == 0) | noise)))
    snapped = np.empty_like(scores)
    snapped[order] = s[starts][np.cumsum(starts) - 1]
    import dataclasses

    return dataclasses.replace(trials, scores=snapped)

MEASURES = ("eer", "min_dcf", "act_dcf")
GUI_CHUNK_CELLS = 200_000
"""Trials drawn per numpy call in `det_band`: short calls, so a worker leaves the GUI free."""
JACKKNIFE_UNITS = 1000
"""BCa's acceleration comes from a leave-one-trial-out jackknife up to this many trials, and
from leaving out one of this many groups of trials (a seeded partition) above: at most this
many extra curves per system."""


def stratified_counts(seed: int | np.random.Generator, is_target: np.ndarray, samples: int,
                      chunk_cells: int = GUI_CHUNK_CELLS):
    """Yield trial multiplicities (b, n) in chunks of a seeded stratified bootstrap: in every
    resample, as many targets drawn with replacement from the targets as there are, and as
    many non-targets from the non-targets (the class counts stay fixed)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    is_target = np.asarray(is_target, dtype=bool)
    n = is_target.size
    strata = [np.flatnonzero(is_target), np.flatnonzero(~is_target)]
    step = max(1, chunk_cells // max(1, n))
    for start in range(0, samples, step):
        rows = min(step, samples - start)
        idx = np.concatenate([where[rng.integers(0, where.size, size=(rows, where.size))]
                              for where in strata], axis=1)
        yield counts_of(idx, n)


def _blocks(rows, size: int):
    """`rows` (arrays of one length) stacked `size` at a time (the last block may be
    shorter)."""
    block: list[np.ndarray] = []
    for row in rows:
        block.append(row)
        if len(block) == size:
            yield np.array(block)
            block = []
    if block:
        yield np.array(block)


def jackknife_counts(n: int, seed: int = 0, units: int = JACKKNIFE_UNITS):
    """Yield the multiplicities (n,) of the jackknife samples: every trial left out once (n <=
    `units`), or each of `units` groups of trials (a seeded partition) left out once."""
    if n <= units:
        for i in range(n):
            row = np.ones(n)
            row[i] = 0.0
            yield row
        return
    group = np.empty(n, dtype=np.int64)
    group[np.random.default_rng(seed).permutation(n)] = np.arange(n) % units
    for g in range(units):
        yield (group != g).astype(np.float64)


class _Sorted:
    """The trials sorted by score once, with the group (distinct score) of every trial."""

    def __init__(self, trials: Trials) -> None:
        self.n = int(trials.scores.size)
        order = np.argsort(trials.scores, kind="stable")
        s = trials.scores[order]
        starts = np.concatenate(([True], s[1:] != s[:-1]))
        group_sorted = np.cumsum(starts) - 1
        self.group = np.empty(self.n, dtype=np.int64)
        self.group[order] = group_sorted             # distinct-score index of each trial
        self.values = s[starts]
        self.n_groups = int(self.values.size)
        self.is_target = trials.is_target

    def curve(self, counts: np.ndarray) -> det.DetCurve | None:
        """The DET curve of the trials repeated `counts` (n,) times; None without both
        classes."""
        tar = np.bincount(self.group, weights=counts * self.is_target, minlength=self.n_groups)
        non = np.bincount(self.group, weights=counts * ~self.is_target, minlength=self.n_groups)
        keep = (tar + non) > 0
        tar = tar[keep].astype(np.int64)
        non = non[keep].astype(np.int64)
        n_t, n_n = int(tar.sum()), int(non.sum())
        if n_t == 0 or n_n == 0:
            return None
        n_miss = np.concatenate(([0], np.cumsum(tar)))
        n_fa = n_n - np.concatenate(([0], np.cumsum(non)))
        return det.DetCurve(p_miss=n_miss / n_t, p_fa=n_fa / n_n,
                            thresholds=np.append(self.values[keep], np.inf), n_miss=n_miss,
                            n_fa=n_fa, n_target=n_t, n_nontarget=n_n)


def _kernel():
    """The compiled resampling kernel (`_det_kernel`), or None without numba."""
    try:
        from llgui.core.significance import _det_kernel
    except ImportError:   # pragma: no cover - numba is a dependency
        return None
    return _det_kernel


def measure_of(curve: det.DetCurve | None, measure: str, dcf, method: str) -> float:
    """One measure of a curve with the core's own functions (EER in percent)."""
    if curve is None:
        return float("nan")
    if measure == "eer":
        return 100.0 * det.eer(curve, method=method)[0]
    if measure == "min_dcf":
        return det.min_dcf(curve, None, *dcf)
    if measure == "act_dcf":
        return det.act_dcf(curve, None, *dcf)
    raise ValueError(f"unknown detection measure {measure!r} (known: {', '.join(MEASURES)})")


@dataclass(frozen=True, eq=False)
class TrialSample:
    """One detection measure of one system's trials as a `resample.Sample` (unit: trial)."""

    trials: Trials
    measure: str = "eer"
    dcf: tuple[float, float, float] = (0.01, 1.0, 1.0)
    method: str = "rocch"

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ValueError(f"unknown detection measure {self.measure!r}")
        object.__setattr__(self, "trials", snap_scores(self.trials))
        object.__setattr__(self, "_sorted", _Sorted(self.trials))

    def tied_to(self, other) -> tuple["TrialSample", int]:
        """Trials whose score ties `other`'s take `other`'s score (`resample.snap_ties`)."""
        assert isinstance(other, TrialSample)
        close = tied(self.trials.scores, other.trials.scores)
        count = int(close.sum())
        if not count or np.array_equal(self.trials.scores[close], other.trials.scores[close]):
            return self, count
        import dataclasses

        scores = np.where(close, other.trials.scores, self.trials.scores)
        return TrialSample(dataclasses.replace(self.trials, scores=scores), self.measure,
                           self.dcf, self.method), count

    @property
    def n_units(self) -> int:
        return int(self.trials.scores.size)

    def point(self) -> float:
        return measure_of(det.det_curve(self.trials.scores, self.trials.is_target),
                          self.measure, self.dcf, self.method)

    def resampled(self, counts: np.ndarray) -> np.ndarray:
        sorted_ = self._sorted  # type: ignore[attr-defined]
        kernel = (_kernel() if self.method == "rocch" and self.measure in ("eer", "min_dcf")
                  else None)
        if kernel is not None:
            if self.measure == "min_dcf":
                det._check_dcf(*self.dcf)
            _band, eer, dcf = kernel.rows(sorted_.group, sorted_.is_target, sorted_.n_groups,
                                          np.asarray(counts, dtype=np.float64), np.empty(0),
                                          self.dcf)
            return 100.0 * eer if self.measure == "eer" else dcf
        return np.array([measure_of(sorted_.curve(row), self.measure, self.dcf, self.method)
                         for row in np.asarray(counts, dtype=np.float64)])

    def swapped(self, other, take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert isinstance(other, TrialSample)
        labels = self.trials.is_target
        a, b = [], []
        for row in np.asarray(take, dtype=bool):
            for scores, out in ((np.where(row, other.trials.scores, self.trials.scores), a),
                                (np.where(row, self.trials.scores, other.trials.scores), b)):
                out.append(measure_of(det.det_curve(scores, labels), self.measure, self.dcf,
                                      self.method))
        return np.array(a), np.array(b)


# --------------------------------------------------------------------------------------------
# DET bands


@dataclass(frozen=True, eq=False)
class DetBand:
    """A pointwise 95 % bootstrap band of a DET curve, on a grid of false-alarm rates.

    Arrays (n_grid,), fractions: `p_fa` the grid (ascending), `p_miss` the curve's own miss
    rate there, `low` / `high` the 2.5th and 97.5th percentiles of the resampled curves'.
    `signature` says how (`bs:N|seed:S|unit:U`)."""

    name: str
    p_fa: np.ndarray
    p_miss: np.ndarray
    low: np.ndarray
    high: np.ndarray
    signature: str


def miss_at(curve: det.DetCurve, grid: np.ndarray) -> np.ndarray:
    """P_miss of the best operating point with P_fa <= x, for each x of `grid`."""
    # p_fa is non-increasing along the curve: count the points with p_fa > x
    k = np.searchsorted(-curve.p_fa, -np.asarray(grid), side="left")
    return curve.p_miss[np.minimum(k, len(curve) - 1)]


def default_grid(n_nontarget: int, points: int = 80) -> np.ndarray:
    """Probit-spaced false-alarm rates from about 1/n_nontarget (no finer than 0.05 %) to
    60 %: where a resampled curve still has a non-target to move."""
    low = max(1.0 / max(n_nontarget, 1), 5e-4)
    lo, hi = det.probit([low, 0.6])
    return ndtr(np.linspace(float(lo), float(hi), points))


@dataclass(frozen=True, eq=False)
class DetIntervals:
    """A system's DET band with the bootstrap estimates of its EER (percent) and minDCF from
    the same resamples. `eer.low`/`eer.high` (and minDCF's) are the interval named by
    `interval` (`percentile` or `bca`), at 95 %; `signature` says how it was made."""

    band: DetBand
    eer: Estimate
    min_dcf: Estimate
    interval: str = "percentile"
    min_dcf_errors: int | None = None
    """The fewer of the false alarms and misses at the minDCF operating point of the whole
    trial list (None when not counted)."""

    @property
    def signature(self) -> str:
        return f"{self.band.signature}|ci:{'bca' if self.interval == 'bca' else 'pct'}95"

    @property
    def min_errors(self) -> int:
        """`MIN_ERRORS`, for views that do not import this module."""
        return MIN_ERRORS

    @property
    def min_dcf_trusted(self) -> bool:
        """Whether the minDCF interval may be shown: at least `MIN_ERRORS` errors of each
        kind at the operating point (Doddington's rule of 30)."""
        return self.min_dcf_errors is None or self.min_dcf_errors >= MIN_ERRORS


INTERVALS = ("percentile", "bca")

MIN_ERRORS = 30
"""Doddington's rule of 30 (Doddington, Przybocki, Martin, Reynolds, "The NIST speaker
recognition evaluation", Speech Communication 31, 2000): an error rate is known to within about
±30 % (at 90 % confidence) only with at least 30 errors. minDCF at a low P_target sits where
false alarms are few: with fewer than 30 false alarms or misses at its operating point the
bootstrap interval of minDCF is not shown (it covered 32-52 % instead of 95 % on pyeer
subsamples of 120-400 trials, which have 0-2 false alarms there)."""


def operating_errors(curve: det.DetCurve, dcf) -> int:
    """The fewer of the false alarms and the misses (counts) at the minDCF operating point."""
    p_target, c_miss, c_fa = dcf
    cost = c_miss * p_target * curve.p_miss + c_fa * (1.0 - p_target) * curve.p_fa
    k = int(np.argmin(cost))
    return int(min(curve.n_fa[k], curve.n_miss[k]))


def det_band(trials: Trials, plan: Plan, groups: np.ndarray | None = None,
             grid: np.ndarray | None = None, progress=None, should_stop=None,
             dcf=(0.01, 1.0, 1.0), method: str = "rocch", measures: bool = False,
             stratified: bool = False, interval: str = "percentile"):
    """The DET band of one system (plan.test is taken as bs). A long job (llgui.core.jobs).
    With `measures`, a `DetIntervals` (EER and minDCF estimates from the same resamples,
    their [low, high] the `interval`: `percentile`, or `bca` with a jackknife for its
    acceleration). `stratified` resamples targets and non-targets separately (not with
    `groups`); the signature then ends in `|strata:class`."""
    if interval not in INTERVALS:
        raise ValueError(f"unknown interval {interval!r} (choose from {', '.join(INTERVALS)})")
    if stratified and groups is not None:
        raise ValueError("a stratified bootstrap resamples trials, not groups")
    trials = snap_scores(trials)
    sorted_ = _Sorted(trials)
    curve = det.det_curve(trials.scores, trials.is_target)
    grid = default_grid(curve.n_nontarget) if grid is None else np.asarray(grid, dtype=float)
    rows, eers, dcfs = [], [], []
    done = 0
    jackknife = measures and interval == "bca"
    total = plan.samples + (min(sorted_.n, JACKKNIFE_UNITS) if jackknife else 0)
    draws = (stratified_counts(plan.seed, trials.is_target, plan.samples) if stratified else
             bootstrap_counts(plan.seed, sorted_.n, plan.samples, groups,
                              chunk_cells=GUI_CHUNK_CELLS))
    kernel = _kernel() if method == "rocch" else None
    if measures:
        det._check_dcf(*dcf)
    for counts in draws:
        if kernel is not None:
            check(should_stop)
            band_rows, eer_rows, dcf_rows = kernel.rows(sorted_.group, sorted_.is_target,
                                                        sorted_.n_groups, counts, grid, dcf)
            rows.append(band_rows)
            eers.extend(100.0 * eer_rows)
            dcfs.extend(dcf_rows)
        else:
            for row in counts.astype(np.float64):
                check(should_stop)
                c = sorted_.curve(row)
                rows.append(miss_at(c, grid)[None, :] if c is not None
                            else np.full((1, grid.size), np.nan))
                if measures:
                    eers.append(measure_of(c, "eer", dcf, method))
                    dcfs.append(measure_of(c, "min_dcf", dcf, method))
        done += counts.shape[0]
        report(progress, done / total)
    values = np.vstack(rows)
    low, high = np.nanpercentile(values, [2.5, 97.5], axis=0)
    signature = Plan("bs", plan.samples, plan.seed, plan.unit).signature
    if stratified:
        signature += "|strata:class"
    band = DetBand(trials.name, grid, miss_at(curve, grid), low, high, signature)
    if not measures:
        return band
    jk_eer, jk_dcf = [], []
    if jackknife:
        per_call = max(1, GUI_CHUNK_CELLS // max(1, sorted_.n)) if kernel is not None else 1
        for block in _blocks(jackknife_counts(sorted_.n, plan.seed), per_call):
            check(should_stop)
            if kernel is not None:
                _band, e, d = kernel.rows(sorted_.group, sorted_.is_target, sorted_.n_groups,
                                          block, grid[:0], dcf)
                jk_eer.extend(100.0 * e)
                jk_dcf.extend(d)
            else:
                c = sorted_.curve(block[0])
                jk_eer.append(measure_of(c, "eer", dcf, method))
                jk_dcf.append(measure_of(c, "min_dcf", dcf, method))
            done += len(block)
            if kernel is not None or done % 50 == 0:
                report(progress, done / total)
        report(progress, 1.0)

    n_units = sorted_.n if groups is None else int(np.unique(groups).size)

    def estimate(values, measure, jk):
        e = estimate_from(measure_of(curve, measure, dcf, method), values, n_units)
        if interval == "bca" and e.low is not None:
            import dataclasses

            lo, hi = bca_interval(e.score, values, jk)
            e = dataclasses.replace(e, low=lo, high=hi)
        return e

    return DetIntervals(band, estimate(eers, "eer", jk_eer),
                        estimate(dcfs, "min_dcf", jk_dcf), interval,
                        operating_errors(curve, dcf))


def det_bands(systems, plan: Plan, dcf=(0.01, 1.0, 1.0), method: str = "rocch",
              progress=None, should_stop=None, stratified: bool = True,
              interval: str = "bca") -> tuple[DetIntervals, ...]:
    """Worker job: band, EER and minDCF intervals of every system in turn (progress over all
    of them), on the same resample indices for every system of the same size (paired). The
    window's one EER interval: stratified resampling and BCa by default."""
    out = []
    n = max(1, len(systems))
    for k, trials in enumerate(systems):
        def part(fraction: float, k: int = k) -> None:
            report(progress, (k + fraction) / n)

        out.append(det_band(trials, plan, progress=part, should_stop=should_stop, dcf=dcf,
                            method=method, measures=True, stratified=stratified,
                            interval=interval))
    return tuple(out)
