"""Significance between every pair of systems (`llgui compare --all-pairs`, DESIGN 1.7, gate 12).

For n systems there are m = n(n-1)/2 pairs; each pair (i, j), i listed before j, gets the
paired test `PairedTest` of sacrebleu would give with i as the baseline and j as the system:

- approximate randomisation (`ar`): the swap draws `default_rng(seed).integers(2, (N, n))`
  are the same for every pair (sacrebleu reseeds for every system), so they are drawn once;
  p = (c + 1)/(N + 1) on |A - B| against the real |difference|.
- paired bootstrap (`bs`): the resample indices are the same for every system (sacrebleu
  draws them once per test), so each system's resampled scores are computed once and every
  pair's p-value comes from them.

Ties follow `resample.paired_test` (units tied within `TIE_TOLERANCE` are the first system's;
systems equal up to float noise get p = 1).

The multiple-comparison question: with m pairs tested at 0.05, about 0.05 m of them are
"significant" by chance alone. The report says m, and offers Holm's step-down correction
(Holm 1979, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
of Statistics 6(2):65-70), which holds the family-wise error rate at the level for any
dependence between the tests: sort the m p-values p_(1) <= ... <= p_(m); the adjusted
p_(k) = max over l <= k of min(1, (m - l + 1) p_(l)). The family is one metric's m pairs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from llgui.core.jobs import check, report
from llgui.core.significance.resample import (
    MIN_UNITS, Additive, Estimate, Plan, bootstrap_scores, estimate_from, p_value,
    snap_difference, snap_ties,
)

CORRECTIONS = ("holm", "none")
LEVEL = 0.05


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values, in the order given."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def adjust(p_values: Sequence[float], correction: str) -> np.ndarray:
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r} (choose from "
                         f"{', '.join(CORRECTIONS)})")
    if correction == "holm":
        return holm(p_values)
    return np.asarray(p_values, dtype=np.float64)


@dataclass(frozen=True)
class PairTest:
    """One pair of one metric: `first`, `second` are indices into the systems; `delta` is
    second's score minus first's; `p_value` the paired test's, `p_adjusted` after the
    correction (the same without one); `better`: the index of the better system when the
    adjusted p is below the level, else None."""

    first: int
    second: int
    delta: float
    p_value: float
    p_adjusted: float
    better: int | None
    test: str = ""   # what gave the p: ar, bs, ar-exact (all swaps of few units)


@dataclass(frozen=True)
class MetricPairs:
    key: str
    label: str
    higher_is_better: bool
    signature: str
    resampling: str
    estimates: tuple[Estimate, ...]   # one per system, in the order of the systems
    pairs: tuple[PairTest, ...]


@dataclass(frozen=True)
class AllPairs:
    """The result of `compare --all-pairs`: every pair of systems x metrics."""

    task: str
    systems: tuple[str, ...]
    plan: Plan
    correction: str
    metrics: tuple[MetricPairs, ...]
    source: dict

    def report(self) -> dict:
        """Plain data: the JSON of `compare --all-pairs`."""
        from llgui.core.significance.effect import effect_entry
        from llgui.core.significance.resample import finite_or_none

        n = len(self.systems)
        systems = []
        for k, name in enumerate(self.systems):
            entry = {}
            for m in self.metrics:
                e = m.estimates[k]
                entry[m.key] = {"score": e.score, "mean": e.mean, "ci": e.ci, "low": e.low,
                                "high": e.high, "n_units": e.n_units, "too_few": e.too_few}
            systems.append({"name": name, "metrics": entry})
        pairs = []
        for index in range(len(self.metrics[0].pairs) if self.metrics else 0):
            first = self.metrics[0].pairs[index].first
            second = self.metrics[0].pairs[index].second
            entry = {}
            for m in self.metrics:
                t = m.pairs[index]
                entry[m.key] = {"delta": t.delta, "p_value": t.p_value, "test": t.test,
                                "p_adjusted": finite_or_none(t.p_adjusted),
                                "significant": t.better is not None,
                                "better": None if t.better is None else self.systems[t.better],
                                # as compare's: b's corpus score minus a's, Kocmi et al. 2024
                                "effect": effect_entry(m.key, m.estimates[second].score
                                                       - m.estimates[first].score,
                                                       m.signature)}
            pairs.append({"a": self.systems[first], "b": self.systems[second],
                          "metrics": entry})
        n_pairs = n * (n - 1) // 2
        return {
            "mode": "all-pairs", "task": self.task, "test": self.plan.test,
            "unit": self.plan.unit, "samples": self.plan.samples, "seed": self.plan.seed,
            "signature": self.plan.signature, "correction": self.correction,
            "level": LEVEL, "n_pairs": n_pairs,
            "expected_false_positives": LEVEL * n_pairs if self.correction == "none" else None,
            "smallest_adjusted_p": (min(1.0, n_pairs / (self.plan.samples + 1))
                                    if self.correction == "holm" else None),
            "min_units": MIN_UNITS,
            "metric_signatures": {m.key: {"signature": m.signature, "resampling": m.resampling,
                                          "higher_is_better": m.higher_is_better,
                                          "label": m.label}
                                  for m in self.metrics},
            "source": dict(self.source),
            "systems": systems,
            "pairs": pairs,
        }


def pair_indices(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def all_pairs(names: Sequence[str],
              metrics: Sequence[tuple[str, str, bool, str, str, Sequence]],
              plan: Plan, correction: str = "holm", task: str = "",
              source: dict | None = None,
              progress: Callable[[float], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              groups: np.ndarray | None = None) -> AllPairs:
    """Every pair of `names` under `plan`, for each metric (key, label, higher_is_better,
    signature, unit, samples) with one Sample per system in the order of `names`. `groups`:
    the unit `speaker`'s speakers, as `paired_test` takes them."""
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r} (choose from "
                         f"{', '.join(CORRECTIONS)})")
    if len(names) < 2:
        raise ValueError("all pairs need at least two systems")
    out = []
    for i, (key, label, higher, signature, unit, samples) in enumerate(metrics):
        check(should_stop)
        unit_plan = plan.with_unit(unit)

        def part(f: float, i: int = i) -> None:
            report(progress, (i + f) / max(1, len(metrics)))

        estimates, raw = _pairs_of(list(samples), unit_plan, part, should_stop,
                                   groups if unit == "speaker" else None)
        adjusted = adjust([r[3] for r in raw], correction)
        tests = []
        for (a, b, delta, p, test), q in zip(raw, adjusted):
            better = None
            # on too few units a bootstrap's p is the exact randomisation one (`paired_test`):
            # trusted, as `Estimate.significant` trusts it
            if q < LEVEL and delta != 0:
                better = b if (delta > 0) == higher else a
            tests.append(PairTest(a, b, delta, p, float(q), better, test))
        out.append(MetricPairs(key, label, higher, signature, unit_plan.signature,
                               tuple(estimates), tuple(tests)))
    return AllPairs(task, tuple(names), plan, correction, tuple(out), dict(source or {}))


def _pairs_of(samples: list, plan: Plan, progress, should_stop, groups=None):
    """Each system's estimate and (i, j, delta, p, test) of every pair."""
    n_units = samples[0].n_units
    for s in samples:
        if s.n_units != n_units:
            raise ValueError(f"paired test: {s.n_units} units against {n_units}")
    points = [s.point() for s in samples]
    pairs = pair_indices(len(samples))
    if plan.test == "bs" or n_units < MIN_UNITS or groups is not None or not all(
            isinstance(s, Additive) for s in samples):
        return _by_paired_test(samples, plan, pairs, progress, should_stop, groups)
    # AR on additive statistics: one draw of the swaps for every pair (sacrebleu's draws).
    # A pair's moved statistics take @ (stats_j - stats_i) are take @ stats_j - take @ stats_i:
    # one product per system instead of one per pair (exact on integer counts, which MT
    # statistics are; other statistics take the product per pair)
    rng = np.random.default_rng(plan.seed)
    drawn = rng.integers(2, size=(plan.samples, n_units), dtype=bool)
    take = drawn.astype(np.float64)
    estimates = _intervals(samples, plan, should_stop)
    integral = all(np.array_equal(s.stats, np.round(s.stats)) for s in samples)
    # non-negative integer counts whose column totals stay below 2^24 sum exactly in float32
    # (every partial sum is an integer float32 holds): half the product's time
    small = integral and all(s.stats.min(initial=0) >= 0
                             and s.stats.sum(axis=0).max(initial=0) < 2 ** 24
                             for s in samples)
    take_products = drawn.astype(np.float32) if small else take
    products: dict[int, np.ndarray] = {}

    def product(k: int) -> np.ndarray:
        if k not in products:
            check(should_stop)
            stats = samples[k].stats.astype(np.float32) if small else samples[k].stats
            products[k] = (take_products @ stats).astype(np.float64)
        return products[k]

    raw = []
    for k, (i, j) in enumerate(pairs):
        check(should_stop)
        system, _ = snap_ties(samples[j], samples[i])
        if integral and system is samples[j]:
            moved = product(i) - product(j)
            a = system.score(system.stats.sum(axis=0) + moved)
            b = system.score(samples[i].stats.sum(axis=0) - moved)
        else:
            a, b = system.swapped(samples[i], take)
        diffs = np.abs(a - b)
        real = snap_difference(points[i], system.point())
        p = p_value(diffs, real, real == 0 and not np.any(diffs))
        raw.append((i, j, system.point() - points[i], p, "ar"))
        report(progress, (k + 1) / len(pairs))
    return estimates, raw


def _intervals(samples: list, plan: Plan, should_stop) -> list[Estimate]:
    """Each system's bootstrap interval, as `paired_test` gives an AR test's (sacrebleu's
    `_bootstrap_resample` with the plan's seed)."""
    if plan.confidence <= 0:
        return [Estimate(s.point(), n_units=s.n_units, too_few=s.n_units < MIN_UNITS)
                for s in samples]
    ci_plan = Plan("bs", plan.confidence, plan.seed, plan.unit)
    scores = bootstrap_scores(samples, ci_plan, should_stop=should_stop)
    return [estimate_from(s.point(), sc, s.n_units) for s, sc in zip(samples, scores)]


def _by_paired_test(samples: list, plan: Plan, pairs, progress, should_stop, groups=None):
    """The general route: `paired_test` per pair (bootstrap, exact tests on few units,
    non-additive samples). The bootstrap draws the same indices for every system, so a
    pair's p equals sacrebleu's test of that pair."""
    from llgui.core.significance.resample import paired_test

    estimates = None
    raw = []
    for k, (i, j) in enumerate(pairs):
        check(should_stop)
        base, other = paired_test(samples[i], [samples[j]], plan, groups=groups,
                                  should_stop=should_stop)
        if estimates is None:
            estimates = list(paired_test(samples[0], samples[1:], plan, groups=groups,
                                         should_stop=should_stop))
            estimates = [Estimate(e.score, e.mean, e.ci, low=e.low, high=e.high,
                                  n_units=e.n_units, too_few=e.too_few) for e in estimates]
        raw.append((i, j, other.score - base.score, other.p_value, other.test or plan.test))
        report(progress, (k + 1) / len(pairs))
    return estimates, raw
