"""One resampling engine for confidence intervals and paired significance tests (DESIGN 1.7).

It works on what is already cached, never by rescoring: a system is a `Sample`, something that
can give its score on the whole set of resampling units and on any multiset of them. The plain
case is `Additive`: per-unit additive statistics (n_units, n_stats) and a vectorised score, so
a resample is one matrix product of unit counts with the statistics. Penalised scores over a
document stream (`llgui.core.significance.penalised`) and detection trials
(`llgui.core.significance.detection`) implement the same protocol. A campaign feeds the same objects.

Units: `segment` (MT sentences, as sacrebleu), `document`, `trial`, `speaker` (detection,
two-layer: speakers with replacement, then trials within each drawn speaker).

Draws, exactly as sacrebleu 2.x `significance.py` makes them so that on segments with float32
statistics the results equal `sacrebleu.significance.PairedTest` (same seed, same numbers):

- paired bootstrap: `idx = default_rng(seed).choice(n, size=(samples, n))`, the same indices
  for the baseline and every system; the interval is `estimate_ci` (half the distance between
  the sorted resampled scores at n//40 and n - n//40 - 1, about the mean); the p-value is
  (c + 1)/(N + 1) where c counts |sys - base| deviations from their mean above the real |diff|.
- approximate randomisation: `sel = default_rng(seed).integers(2, size=(samples, n),
  dtype=bool)`; pseudo-systems swap the two systems' units where `sel` is set; p as above on
  |A - B| against the real |diff|. (Two identical systems get p = 1, not sacrebleu's
  1/(N + 1).) The interval of a system comes from `confidence`
  bootstrap resamples drawn from the same generator after `sel`; the baseline's from a fresh
  generator (sacrebleu's `_bootstrap_resample`).

Judgments that cannot mislead (issue 21):

- ties: a unit whose statistics agree with the baseline's within `TIE_TOLERANCE` (relative,
  1e-9: float noise such as re-rounded turn times, never a difference of integer counts) is
  the baseline's unit in every test (`snap_ties`), so the real difference and the resampled
  ones come from the same snapped samples; a real difference within the tolerance is 0.
  Systems equal within it get p = 1.
- few units: when the 2^n sign assignments of the randomisation test are not more than the
  requested trials, they are enumerated (`ar-exact`: p = share of the 2^n assignments whose
  |difference| reaches the real one within the tolerance, smallest possible p 2/2^n). Below
  `MIN_UNITS` units a bootstrap p-value and interval are not trusted (`Estimate.too_few`):
  the exact randomisation p is given instead.
- every estimate carries its percentile interval [low, high] (the order statistics of
  sacrebleu's `estimate_ci`), the test behind its p-value and its unit count.

Everything is deterministic given the seed; work is chunked over resamples (fixed chunk sizes,
so the numbers do not depend on the machine) and `should_stop` is checked between chunks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

from llgui.core.jobs import check, report
from llgui.core.significance.vector_scores import VectorScore

UNITS = ("segment", "document", "trial", "speaker")
TESTS = ("bs", "ar")
DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}
DEFAULT_CONFIDENCE = 1000
"""Bootstrap resamples for the intervals of an AR test (sacrebleu's `n_ar_confidence=0`)."""

TIE_TOLERANCE = 1e-9
"""Two values a, b are tied when |a - b| <= TIE_TOLERANCE * max(1, |a|, |b|): statistics of
a unit (seconds, counts, detection scores) and scores (percentages) alike. Integer counts
below 1e9 never tie unless equal, so sacrebleu's statistics are untouched."""

MIN_UNITS = 10
"""Below this many resampling units (documents, speakers, test times) a bootstrap p-value or
interval is flagged `too_few` and not starred; the paired test's p is the exact
randomisation p instead (2^n <= 512 assignments). Why 10: the bootstrap distribution of n
units is too narrow by sqrt((n-1)/n) and percentile intervals under-cover on small samples
(Hesterberg 2015, "What Teachers Should Know About the Bootstrap", The American Statistician
69(4), section 4); and with fewer than 6 units even the exact test cannot reach p < 0.05."""

_CHUNK_CELLS = 4_000_000
"""Resample x unit cells handled at once (memory bound: a few tens of MB)."""

_ONE_SHOT_CELLS = 50_000_000
"""Up to this many draws, indices come from one call as sacrebleu makes them."""


@dataclass(frozen=True)
class Plan:
    """How to resample: test (bs|ar), resamples, seed, unit, and for AR the bootstrap
    resamples behind the intervals (`confidence`; 0 for none)."""

    test: str = "bs"
    samples: int = 1000
    seed: int = 12345
    unit: str = "segment"
    confidence: int = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ValueError(f"unknown test {self.test!r} (choose from {', '.join(TESTS)})")
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r} (choose from {', '.join(UNITS)})")
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, not {self.samples}")
        if self.confidence < 0:
            raise ValueError(f"confidence must be >= 0, not {self.confidence}")

    @property
    def signature(self) -> str:
        """`bs:1000|seed:12345|unit:document`, or `ar:10000|bs:1000|seed:...` (the AR test
        with its bootstrap intervals), as DESIGN 1.7 writes it."""
        parts = [f"{self.test}:{self.samples}"]
        if self.test == "ar" and self.confidence > 0:
            parts.append(f"bs:{self.confidence}")
        parts += [f"seed:{self.seed}", f"unit:{self.unit}"]
        return "|".join(parts)

    def with_unit(self, unit: str) -> "Plan":
        return Plan(self.test, self.samples, self.seed, unit, self.confidence)


@dataclass(frozen=True)
class Estimate:
    """A score with its resampled mean, the +- half-width of its 95 % interval (sacrebleu's
    `ci`, about the mean), its 95 % percentile interval [low, high] (the same order
    statistics, to show beside the score), and the paired test's p-value against the
    baseline (None for the baseline, or when no test was run). `mean`/`ci`/`low`/`high` are
    None without resamples.

    `test`: what produced the p-value (`bs`, `ar`, `ar-exact`); `p_min`: the smallest p that
    test can give; `n_units`: the resampling units; `too_few`: fewer than `MIN_UNITS` of them,
    so the bootstrap interval is not to be trusted; `ties`: units tied with the baseline's."""

    score: float
    mean: float | None = None
    ci: float | None = None
    p_value: float | None = None
    low: float | None = None
    high: float | None = None
    test: str | None = None
    n_units: int | None = None
    too_few: bool = False
    p_min: float | None = None
    ties: int | None = None

    @property
    def significant(self) -> bool:
        """p < 0.05 from a test llgui trusts (never on too few units by a bootstrap)."""
        return self.p_value is not None and self.p_value < 0.05 and \
            not (self.too_few and self.test == "bs")


def tied(a, b) -> np.ndarray:
    """Elementwise: a and b equal within `TIE_TOLERANCE` (relative, at least absolute)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    return np.abs(a - b) <= TIE_TOLERANCE * scale


def snap_ties(system: "Sample", baseline: "Sample") -> tuple["Sample", int]:
    """`system` with every unit tied to the baseline's replaced by the baseline's, and how
    many units tied. Samples without `tied_to` are returned as they are (0 ties)."""
    method = getattr(system, "tied_to", None)
    if method is None:
        return system, 0
    return method(baseline)


def snap_difference(a: float, b: float) -> float:
    """|a - b|, 0 when a and b tie (`TIE_TOLERANCE`)."""
    return 0.0 if bool(tied(a, b)) else abs(a - b)


def estimate_from(point: float, scores: np.ndarray, n_units: int | None = None,
                  **kwargs) -> Estimate:
    """An Estimate from a point and its resampled scores (NaNs dropped): sacrebleu's mean and
    half-width, the percentile interval, the unit count and `too_few`."""
    scores = np.asarray(scores, dtype=np.float64)
    scores = scores[np.isfinite(scores)]
    few = n_units is not None and n_units < MIN_UNITS
    if not scores.size:
        return Estimate(point, n_units=n_units, too_few=few, **kwargs)
    mean, ci = estimate_ci(scores)
    low, high = percentile_interval(scores)
    return Estimate(point, mean, ci, low=low, high=high, n_units=n_units, too_few=few,
                    **kwargs)


class Sample(Protocol):
    """One system's scores under resampling of its units (the engine's only contract)."""

    n_units: int

    def point(self) -> float:
        """The score on every unit once."""

    def resampled(self, counts: np.ndarray) -> np.ndarray:
        """Scores of resamples given by unit multiplicities, shape (B, n_units) -> (B,)."""

    def swapped(self, other: "Sample", take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """AR pseudo-systems: for `take` (B, n_units) bool, system A has `other`'s unit
        where take is True and this one's elsewhere, B the opposite; returns their scores
        (B,), (B,)."""


# --------------------------------------------------------------------------------------------
# Additive statistics


@dataclass(frozen=True, eq=False)
class Additive:
    """Per-unit additive statistics (n_units, n_stats) and their vectorised score.

    `dtype` is the precision the resampled sums are scored in: float64, or float32 to do as
    sacrebleu's significance tests do (sums of integer counts are exact either way; the
    point score is always computed on float64 sums, as sacrebleu's is on Python numbers).
    """

    stats: np.ndarray
    score: VectorScore
    dtype: type = np.float64

    def __post_init__(self) -> None:
        stats = np.asarray(self.stats, dtype=np.float64)
        if stats.ndim != 2:
            raise ValueError(f"statistics must have shape (n_units, n_stats), not {stats.shape}")
        object.__setattr__(self, "stats", stats)

    @property
    def n_units(self) -> int:
        return int(self.stats.shape[0])

    def point(self) -> float:
        return float(self.score(self.stats.sum(axis=0)))

    def resampled(self, counts: np.ndarray) -> np.ndarray:
        sums = np.asarray(counts, dtype=np.float64) @ self.stats
        return self.score(sums.astype(self.dtype))

    def tied_to(self, other: "Sample") -> tuple["Additive", int]:
        """This system with the units whose statistics tie `other`'s taken from `other`."""
        assert isinstance(other, Additive)
        close = np.all(tied(self.stats, other.stats), axis=1)
        if not close.any() or np.array_equal(self.stats[close], other.stats[close]):
            return self, int(close.sum())
        return Additive(np.where(close[:, None], other.stats, self.stats), self.score,
                        self.dtype), int(close.sum())

    def swapped(self, other: "Sample", take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert isinstance(other, Additive)
        take = np.asarray(take, dtype=np.float64)   # no copy when already float64
        mine, theirs = self.stats.sum(axis=0), other.stats.sum(axis=0)
        # A = mine + take @ (theirs - mine); B = theirs - take @ (theirs - mine): exact for
        # integer counts, as sacrebleu's pos_sel @ bl + neg_sel @ sys
        moved = take @ (other.stats - self.stats)
        return self.score(mine + moved), self.score(theirs - moved)


# --------------------------------------------------------------------------------------------
# Draws


def bootstrap_indices(rng: np.random.Generator, n_units: int, samples: int) -> np.ndarray:
    """Resample indices (samples, n_units), as sacrebleu draws them."""
    return rng.choice(n_units, size=(samples, n_units), replace=True)


def counts_of(indices: np.ndarray, n_units: int) -> np.ndarray:
    """Unit multiplicities (B, n_units) of resample indices (B, m)."""
    b = indices.shape[0]
    flat = (indices + (np.arange(b) * n_units)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_units).reshape(b, n_units)


def _chunk_rows(n_units: int) -> int:
    return max(1, _CHUNK_CELLS // max(1, n_units))


def bootstrap_counts(seed: int | np.random.Generator, n_units: int, samples: int,
                     groups: np.ndarray | None = None, chunk_cells: int | None = None):
    """Yield unit multiplicities in chunks (rows of shape (b, n_units), b <= samples) of a
    seeded bootstrap; with `groups` (one group id per unit, e.g. the speaker of a trial) a
    two-layer bootstrap: groups with replacement, then units within each drawn group.

    By default the indices are drawn in one call when they fit (sacrebleu's draws);
    `chunk_cells` draws them chunk by chunk instead (other numbers, as deterministic), so no
    single numpy call holds the interpreter long: what a worker beside the GUI needs."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if groups is not None:
        yield from _two_layer_counts(rng, np.asarray(groups), samples)
        return
    if chunk_cells is None and samples * n_units <= _ONE_SHOT_CELLS:
        indices = bootstrap_indices(rng, n_units, samples)
        step = _chunk_rows(n_units)
        for start in range(0, samples, step):
            yield counts_of(indices[start:start + step], n_units)
        return
    step = max(1, (chunk_cells or _CHUNK_CELLS) // max(1, n_units))
    for start in range(0, samples, step):
        rows = min(step, samples - start)
        yield counts_of(bootstrap_indices(rng, n_units, rows), n_units)


def _two_layer_counts(rng: np.random.Generator, groups: np.ndarray, samples: int):
    """NISTIR 7722 style: draw the groups (speakers) with replacement, then, for every drawn
    copy of a group, as many of its units (trials) as it has, with replacement."""
    codes, inverse = np.unique(groups, return_inverse=True)
    n_groups, n_units = codes.size, groups.size
    order = np.argsort(inverse, kind="stable")  # units grouped by group
    sizes = np.bincount(inverse, minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    step = _chunk_rows(n_units)
    for first in range(0, samples, step):
        rows = min(step, samples - first)
        drawn = rng.choice(n_groups, size=(rows, n_groups), replace=True)   # (rows, G)
        flat_groups = drawn.ravel()
        per = sizes[flat_groups]                                            # units to draw
        owner = np.repeat(np.arange(flat_groups.size), per)
        local = np.floor(rng.random(owner.size) * np.repeat(per, per)).astype(np.int64)
        unit = order[np.repeat(starts[flat_groups], per) + local]
        row = owner // n_groups
        yield np.bincount(row * n_units + unit, minlength=rows * n_units).reshape(rows, n_units)


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """Mean and +- half-width of the 95 % interval, sacrebleu's `estimate_ci`."""
    scores = np.sort(scores)
    n = len(scores)
    lower = n // 40
    upper = n - lower - 1
    return float(scores.mean()), float(0.5 * (scores[upper] - scores[lower]))


def percentile_interval(scores: np.ndarray) -> tuple[float, float]:
    """The 95 % percentile interval [low, high]: the sorted resampled scores at n//40 and
    n - n//40 - 1, the order statistics of sacrebleu's `estimate_ci`."""
    scores = np.sort(scores)
    n = len(scores)
    lower = n // 40
    return float(scores[lower]), float(scores[n - lower - 1])


def bca_interval(point: float, scores: np.ndarray, jackknife: np.ndarray,
                 level: float = 0.95) -> tuple[float, float]:
    """The bias-corrected and accelerated (BCa) bootstrap interval [low, high] at `level`
    (Efron 1987; Efron & Tibshirani 1993, ch. 14): the resampled `scores` (NaNs dropped) at
    the percentiles Phi(z0 + (z0 + z)/(1 - a (z0 + z))), z = Phi^-1((1 -+ level)/2), with the
    bias correction z0 = Phi^-1(share of resamples below the point, ties counted half) and the
    acceleration a = sum(d^3) / (6 sum(d^2)^1.5), d the jackknife values' deviations from
    their mean (leave-one-unit-out, or leave-one-group-out: the same a to first order)."""
    from scipy.special import ndtr, ndtri

    scores = np.asarray(scores, dtype=np.float64)
    scores = scores[np.isfinite(scores)]
    if not scores.size:
        return float("nan"), float("nan")
    b = scores.size
    below = (np.sum(scores < point) + 0.5 * np.sum(scores == point)) / b
    z0 = float(ndtri(min(max(below, 0.5 / b), 1.0 - 0.5 / b)))
    jk = np.asarray(jackknife, dtype=np.float64)
    jk = jk[np.isfinite(jk)]
    d = jk.mean() - jk if jk.size else jk
    ss = float(np.sum(d ** 2))
    a = float(np.sum(d ** 3)) / (6.0 * ss ** 1.5) if ss > 0 else 0.0
    z = ndtri(np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))
    q = ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
    low, high = np.quantile(scores, np.clip(q, 0.0, 1.0))
    return float(low), float(high)


def all_assignments(n: int) -> np.ndarray:
    """Every one of the 2^n swap assignments of n units, (2^n, n) bool (row 0: no swap)."""
    return ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)


def exact_p_value(diffs: np.ndarray, real: float, scale: float) -> float:
    """The exact randomisation p: the share of all assignments whose |difference| reaches
    the real one, within the tie tolerance (relative to `scale`)."""
    tol = TIE_TOLERANCE * max(1.0, abs(scale))
    return float(np.mean(diffs >= real - tol))


def p_value(statistics: np.ndarray, real: float, identical: bool = False) -> float:
    """(c + 1)/(N + 1), c = how many statistics exceed the real one (sacrebleu, multeval).

    `identical`: the two systems never differed (real difference 0 and every resampled
    difference 0). sacrebleu's formula then gives its smallest p, 1/(N + 1), calling a system
    significantly different from itself; llgui says 1.0 (no evidence of a difference), the
    only place where it departs from sacrebleu."""
    if identical:
        return 1.0
    c = int(np.sum(statistics > real))
    return (c + 1) / (len(statistics) + 1)


# --------------------------------------------------------------------------------------------
# The tests


def _resampled(sample: Sample, chunks) -> np.ndarray:
    return np.concatenate([sample.resampled(c) for c in chunks])


def bootstrap_scores(samples: Sequence[Sample], plan: Plan, seed: int | None = None,
                     groups: np.ndarray | None = None, progress=None,
                     should_stop=None) -> list[np.ndarray]:
    """Resampled scores (plan.samples,) of each sample on the same bootstrap draws."""
    n = samples[0].n_units
    out: list[list[np.ndarray]] = [[] for _ in samples]
    done = 0
    for counts in bootstrap_counts(plan.seed if seed is None else seed, n, plan.samples, groups):
        check(should_stop)
        for k, s in enumerate(samples):
            out[k].append(s.resampled(counts))
        done += counts.shape[0]
        report(progress, done / plan.samples)
    return [np.concatenate(o) for o in out]


def interval(sample: Sample, plan: Plan, groups: np.ndarray | None = None, progress=None,
             should_stop=None) -> Estimate:
    """Point score, bootstrap mean and +- half-width of one system (no test)."""
    (scores,) = bootstrap_scores([sample], plan, groups=groups, progress=progress,
                                 should_stop=should_stop)
    return estimate_from(sample.point(), scores, _n_units(sample, groups), test=None)


def _n_units(sample: Sample, groups: np.ndarray | None) -> int:
    """The resampling units: the groups (speakers) when there are groups, else the units."""
    if groups is None:
        return int(sample.n_units)
    return int(np.unique(np.asarray(groups)).size)


def paired_test(baseline: Sample, systems: Sequence[Sample], plan: Plan,
                groups: np.ndarray | None = None, progress: Callable[[float], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> tuple[Estimate, ...]:
    """The baseline's estimate, then each system's against it, under `plan` (bs or ar).

    All samples must have the same units in the same order (paired). `groups` (one id per
    unit) makes the bootstrap two-layer (unit `speaker`) and makes AR swap whole groups (all of
    a speaker's trials together); without it AR swaps single units.

    Units tied with the baseline's are snapped to it first (`snap_ties`), in every test. With
    fewer than `MIN_UNITS` units a bootstrap's interval is flagged `too_few` and its p-value
    is replaced by the exact randomisation p (`ar-exact`); an AR test whose 2^n assignments
    fit in `plan.samples` is enumerated exactly.
    """
    n = baseline.n_units
    for s in systems:
        if s.n_units != n:
            raise ValueError(f"paired test: {s.n_units} units against the baseline's {n}")
    snapped = [snap_ties(s, baseline) for s in systems]
    systems = [s for s, _ in snapped]
    ties = [t for _, t in snapped]
    n_units = _n_units(baseline, groups)
    if plan.test == "bs":
        scores = bootstrap_scores([baseline, *systems], plan, groups=groups,
                                  progress=progress, should_stop=should_stop)
        base_scores = scores[0]
        base_point = baseline.point()
        results = [estimate_from(base_point, base_scores, n_units)]
        exact = None
        if n_units < MIN_UNITS and systems:
            exact = _exact_ar(baseline, systems, groups, should_stop)
        for k, (s, sys_scores) in enumerate(zip(systems, scores[1:])):
            point = s.point()
            diffs = np.abs(sys_scores - base_scores)
            real = snap_difference(base_point, point)
            same = real == 0 and not np.any(diffs)
            if exact is not None:
                p, test, p_min = exact[k], "ar-exact", 2.0 / 2 ** n_units
            else:
                p, test = p_value(diffs - diffs.mean(), real, same), "bs"
                p_min = 1.0 / (plan.samples + 1)
            results.append(estimate_from(point, sys_scores, n_units, p_value=p, test=test,
                                         p_min=p_min, ties=ties[k]))
        return tuple(results)
    return _paired_ar(baseline, systems, plan, groups, progress, should_stop, ties)


def _swap_owner(groups, n: int) -> tuple[np.ndarray | None, int]:
    """(the group index of every unit or None, the number of swappable units)."""
    if groups is None:
        return None, n
    _, owner = np.unique(np.asarray(groups), return_inverse=True)
    return owner, int(owner.max()) + 1


def _ar_diffs(baseline: Sample, systems: Sequence[Sample], take: np.ndarray, progress,
              should_stop) -> list[np.ndarray]:
    """|A - B| of every system's pseudo-systems for the assignments `take` (B, n_units)."""
    n = baseline.n_units
    step = _chunk_rows(n)
    diffs_of: list[list[np.ndarray]] = [[] for _ in systems]
    additive = all(isinstance(s, Additive) for s in [baseline, *systems])
    total = take.shape[0]
    for start in range(0, total, step):
        check(should_stop)
        chunk = take[start:start + step]
        if additive:  # converted once for every system
            chunk = chunk.astype(np.float64)
        for k, s in enumerate(systems):
            # sacrebleu: shuf_a = pos_sel @ bl + neg_sel @ sys: the baseline's units where
            # the draw is True, i.e. the system with the baseline's units swapped in
            a, b = s.swapped(baseline, chunk)
            diffs_of[k].append(np.abs(a - b))
        report(progress, min(1.0, (start + step) / total))
    return [np.concatenate(d) if d else np.zeros(0) for d in diffs_of]


def _exact_ar(baseline: Sample, systems: Sequence[Sample], groups, should_stop,
              progress=None) -> list[float]:
    """The exact randomisation p of every system: all 2^n swap assignments enumerated."""
    owner, n_swap = _swap_owner(groups, baseline.n_units)
    take = all_assignments(n_swap)
    if owner is not None:
        take = take[:, owner]
    base_point = baseline.point()
    out = []
    for s, diffs in zip(systems, _ar_diffs(baseline, systems, take, progress, should_stop)):
        point = s.point()
        out.append(exact_p_value(diffs, snap_difference(base_point, point),
                                 max(abs(base_point), abs(point))))
    return out


def _paired_ar(baseline: Sample, systems: Sequence[Sample], plan: Plan, groups, progress,
               should_stop, ties=None) -> tuple[Estimate, ...]:
    n = baseline.n_units
    n_units = _n_units(baseline, groups)
    ties = ties or [0] * len(systems)
    base_point = baseline.point()
    if plan.confidence > 0:
        ci_plan = Plan("bs", plan.confidence, plan.seed, plan.unit)
        (base_scores,) = bootstrap_scores([baseline], ci_plan, groups=groups,
                                          should_stop=should_stop)
        results = [estimate_from(base_point, base_scores, n_units)]
    else:
        results = [Estimate(base_point, n_units=n_units, too_few=n_units < MIN_UNITS)]
    owner, n_swap = _swap_owner(groups, n)
    exact = 2 ** n_swap <= plan.samples if n_swap < 63 else False
    # the same draws for every system (sacrebleu reseeds per system)
    rng = np.random.default_rng(plan.seed)
    if exact:   # few units: every assignment once, nothing drawn
        take = all_assignments(n_swap)
    else:
        take = rng.integers(2, size=(plan.samples, n_swap), dtype=bool)
    if owner is not None:   # the unit is the group (speaker): swap all its trials at once
        take = take[:, owner]
    ci_counts = None
    if plan.confidence > 0:
        ci_counts = list(bootstrap_counts(rng, n, plan.confidence, groups))
    diffs_of = _ar_diffs(baseline, systems, take, progress, should_stop)
    for k, s in enumerate(systems):
        point = s.point()
        diffs = diffs_of[k]
        real = snap_difference(base_point, point)
        if exact:
            p = exact_p_value(diffs, real, max(abs(base_point), abs(point)))
            test, p_min = "ar-exact", 2.0 / 2 ** n_swap
        else:
            p = p_value(diffs, real, real == 0 and not np.any(diffs))
            test, p_min = "ar", 1.0 / (plan.samples + 1)
        extra = dict(p_value=p, test=test, p_min=p_min, ties=ties[k])
        if ci_counts is not None:
            results.append(estimate_from(point, _resampled(s, ci_counts), n_units, **extra))
        else:
            results.append(Estimate(point, n_units=n_units, too_few=n_units < MIN_UNITS,
                                    **extra))
    return tuple(results)


def finite_or_none(value: float | None) -> float | None:
    """JSON-friendly: None for a missing or non-finite number."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)
