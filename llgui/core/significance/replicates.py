"""Replicates: several runs of one system (seeds of the system or of the oracle) on the same
units, and a paired test that counts the replicate spread as well as the units' (DESIGN.md
section 1.9; Clark et al., ACL 2011, "Better hypothesis testing for statistical machine
translation: controlling for optimizer instability").

Clark et al. ask for at least three replicates per system, the mean score over them and its
spread across replicates (s_dev, the sample standard deviation), and a test whose null
distribution covers both the test set's and the replicates' variance. MultEval, their tool,
pools the replicates and swaps (replicate, sentence) cells between systems (its
`StratifiedApproximateRandomizationTest`); llgui uses a **stratified two-stage bootstrap**
instead, because a bootstrap also gives the interval of the difference and because it keeps
the replicate spread in the resampled differences:

for resample k (k = 1..B), with `rng = numpy.random.default_rng(seed)` drawing, in this order,
`rep_a = rng.integers(R_a, size=(B, R_a))`, `rep_b = rng.integers(R_b, size=(B, R_b))` (each
system's replicates with replacement: seeds are independent between systems) and
`units = rng.integers(n, size=(B, n))` (units with replacement, the same draw for both systems:
the test stays paired over units),

    A_k = mean over j of score(sum of A's replicate rep_a[k, j] statistics over units[k])

and B_k likewise; the real difference is mean_r score(A_r) - mean_r score(B_r). The p-value is
the bootstrap one of `resample.paired_test` on |A_k - B_k| ((c + 1)/(B + 1), c counting the
centred resampled |differences| above the real one), the interval the percentile one of
A_k - B_k.

A difference is **starred** only when p < 0.05, there are at least `MIN_UNITS` units, and it is
not inside the replicate spread: the two systems' replicate ranges [min, max] do not overlap
(some seed of the worse system reaching some seed of the better is a difference a re-run can
undo, whatever the units say).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from llgui.core.significance.resample import MIN_UNITS, p_value, percentile_interval
from llgui.core.significance.vector_scores import VectorScore

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345


@dataclass(frozen=True)
class Spread:
    """One system's replicates: each one's score, their mean, sample standard deviation
    (ddof 1; 0 with one replicate), min and max."""

    scores: tuple[float, ...]
    mean: float
    sd: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return {"scores": list(self.scores), "mean": self.mean, "sd": self.sd,
                "min": self.low, "max": self.high, "replicates": len(self.scores)}


@dataclass(frozen=True)
class ReplicateTest:
    a: Spread
    b: Spread
    difference: float            # mean A - mean B
    p_value: float
    interval: tuple[float, float]
    n_units: int
    inside_spread: bool
    signature: str

    @property
    def significant(self) -> bool:
        return self.p_value < 0.05 and self.n_units >= MIN_UNITS and not self.inside_spread

    def as_dict(self) -> dict:
        return {"a": self.a.as_dict(), "b": self.b.as_dict(), "difference": self.difference,
                "p_value": self.p_value, "interval": list(self.interval),
                "n_units": self.n_units, "inside_spread": self.inside_spread,
                "significant": self.significant, "signature": self.signature}


def spread(scores: Sequence[float]) -> Spread:
    values = np.asarray(scores, dtype=np.float64)
    if not values.size:
        raise ValueError("no replicate")
    sd = float(values.std(ddof=1)) if values.size > 1 else 0.0
    return Spread(tuple(float(v) for v in values), float(values.mean()), sd,
                  float(values.min()), float(values.max()))


def overlapping(a: Spread, b: Spread) -> bool:
    """Whether the replicate ranges [min, max] of `a` and `b` overlap."""
    return a.low <= b.high and b.low <= a.high


def signature(samples: int, seed: int, replicates_a: int, replicates_b: int) -> str:
    return (f"bs2:{samples}|seed:{seed}|unit:replicate+segment|"
            f"replicates:{replicates_a}+{replicates_b}")


def _stack(stats: Sequence[np.ndarray]) -> np.ndarray:
    arrays = [np.asarray(s, dtype=np.float64) for s in stats]
    if not arrays:
        raise ValueError("no replicate")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1 or arrays[0].ndim != 2:
        raise ValueError(f"replicates must share one (n_units, n_stats) shape, not {shapes}")
    return np.stack(arrays)


def replicate_test(a_stats: Sequence[np.ndarray], b_stats: Sequence[np.ndarray],
                   score: VectorScore, *, samples: int = DEFAULT_SAMPLES,
                   seed: int = DEFAULT_SEED) -> ReplicateTest:
    """Compare system A (replicates `a_stats`, each (n_units, n_stats) additive statistics)
    with system B on the same units (module docstring)."""
    a, b = _stack(a_stats), _stack(b_stats)
    if a.shape[1:] != b.shape[1:]:
        raise ValueError(f"A has {a.shape[1]} units, B {b.shape[1]}: not the same units")
    ra, rb, n = a.shape[0], b.shape[0], a.shape[1]
    spread_a = spread(score(a.sum(axis=1)))
    spread_b = spread(score(b.sum(axis=1)))
    real = spread_a.mean - spread_b.mean
    rng = np.random.default_rng(seed)
    rep_a = rng.integers(ra, size=(samples, ra))
    rep_b = rng.integers(rb, size=(samples, rb))
    units = rng.integers(n, size=(samples, n))
    counts = np.zeros((samples, n))
    np.add.at(counts, (np.repeat(np.arange(samples), n), units.ravel()), 1.0)
    # every replicate scored on every resample of units: (R, B)
    sa = np.stack([score(counts @ a[r]) for r in range(ra)])
    sb = np.stack([score(counts @ b[r]) for r in range(rb)])
    cols = np.arange(samples)[:, None]
    boot_a = sa[rep_a, cols].mean(axis=1)
    boot_b = sb[rep_b, cols].mean(axis=1)
    diffs = boot_a - boot_b
    absolute = np.abs(diffs)
    same = real == 0 and not np.any(absolute)
    p = p_value(absolute - absolute.mean(), abs(real), same)
    return ReplicateTest(spread_a, spread_b, float(real), float(p),
                         percentile_interval(diffs), n, overlapping(spread_a, spread_b),
                         signature(samples, seed, ra, rb))
