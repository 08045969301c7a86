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
    `ci`), and the paired test's p-value against the baseline (None for the baseline, or when
    no test was run). `mean`/`ci` are None without resamples."""

    score: float
    mean: float | None = None
    ci: float | None = None
    p_value: float | None = None

    @property
    def low(self) -> float | None:
        return None if self.mean is None or self.ci is None else self.mean - self.ci

    @property
    def high(self) -> float | None:
        return None if self.mean is None or self.ci is None else self.mean + self.ci


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
    mean, ci = estimate_ci(scores)
    return Estimate(sample.point(), mean, ci)


def paired_test(baseline: Sample, systems: Sequence[Sample], plan: Plan,
                groups: np.ndarray | None = None, progress: Callable[[float], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> tuple[Estimate, ...]:
    """The baseline's estimate, then each system's against it, under `plan` (bs or ar).

    All samples must have the same units in the same order (paired). `groups` (one id per
    unit) makes the bootstrap two-layer (unit `speaker`) and makes AR swap whole groups (all of
    a speaker's trials together); without it AR swaps single units.
    """
    n = baseline.n_units
    for s in systems:
        if s.n_units != n:
            raise ValueError(f"paired test: {s.n_units} units against the baseline's {n}")
    if plan.test == "bs":
        scores = bootstrap_scores([baseline, *systems], plan, groups=groups,
                                  progress=progress, should_stop=should_stop)
        base_scores = scores[0]
        base_point = baseline.point()
        mean, ci = estimate_ci(base_scores)
        results = [Estimate(base_point, mean, ci)]
        for s, sys_scores in zip(systems, scores[1:]):
            point = s.point()
            mean, ci = estimate_ci(sys_scores)
            diffs = np.abs(sys_scores - base_scores)
            real = abs(base_point - point)
            same = real == 0 and not np.any(diffs)
            results.append(Estimate(point, mean, ci,
                                    p_value(diffs - diffs.mean(), real, same)))
        return tuple(results)
    return _paired_ar(baseline, systems, plan, groups, progress, should_stop)


def _paired_ar(baseline: Sample, systems: Sequence[Sample], plan: Plan, groups, progress,
               should_stop) -> tuple[Estimate, ...]:
    n = baseline.n_units
    base_point = baseline.point()
    if plan.confidence > 0:
        ci_plan = Plan("bs", plan.confidence, plan.seed, plan.unit)
        (base_scores,) = bootstrap_scores([baseline], ci_plan, groups=groups,
                                          should_stop=should_stop)
        mean, ci = estimate_ci(base_scores)
        results = [Estimate(base_point, mean, ci)]
    else:
        results = [Estimate(base_point)]
    # the same draws for every system (sacrebleu reseeds per system)
    rng = np.random.default_rng(plan.seed)
    if groups is None:
        take = rng.integers(2, size=(plan.samples, n), dtype=bool)
    else:   # the unit is the group (speaker): a draw swaps all of a speaker's trials at once
        _, owner = np.unique(np.asarray(groups), return_inverse=True)
        take = rng.integers(2, size=(plan.samples, int(owner.max()) + 1), dtype=bool)[:, owner]
    ci_counts = None
    if plan.confidence > 0:
        ci_counts = list(bootstrap_counts(rng, n, plan.confidence, groups))
    step = _chunk_rows(n)
    diffs_of: list[list[np.ndarray]] = [[] for _ in systems]
    additive = all(isinstance(s, Additive) for s in [baseline, *systems])
    for start in range(0, plan.samples, step):
        check(should_stop)
        chunk = take[start:start + step]
        if additive:  # converted once for every system
            chunk = chunk.astype(np.float64)
        for k, s in enumerate(systems):
            # sacrebleu: shuf_a = pos_sel @ bl + neg_sel @ sys: the baseline's units where
            # the draw is True, i.e. the system with the baseline's units swapped in
            a, b = s.swapped(baseline, chunk)
            diffs_of[k].append(np.abs(a - b))
        report(progress, min(1.0, (start + step) / plan.samples))
    for k, s in enumerate(systems):
        point = s.point()
        diffs = np.concatenate(diffs_of[k])
        real = abs(base_point - point)
        p = p_value(diffs, real, real == 0 and not np.any(diffs))
        if ci_counts is not None:
            mean, ci = estimate_ci(_resampled(s, ci_counts))
            results.append(Estimate(point, mean, ci, p))
        else:
            results.append(Estimate(point, None, None, p))
    return tuple(results)


def finite_or_none(value: float | None) -> float | None:
    """JSON-friendly: None for a missing or non-finite number."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)
