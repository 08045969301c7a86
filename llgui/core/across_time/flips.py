"""Negative flips between two model versions tested on the same units (DESIGN.md section 1.9).

A unit (an MT segment, a diarization reference turn, a detection trial, a classified item) is
tested by model version M_k and by its successor M_{k+1}. Following Yan et al. (CVPR 2021,
"Positive-congruent training: towards regression-free model updates", eq. 1) and Xie et al.
(ACL 2021, "Regression bugs are in your model! Measuring, reducing and analyzing regressions
in NLP model updates", section 3):

- exact units (detection, classification): a negative flip is a unit decided right by M_k and
  wrong by M_{k+1}; NFR = flips / units.
- graded units (a unit score: sentence chrF, DER on a reference turn): a unit is regressed when
  its score under M_{k+1} is worse than under M_k by more than `tolerance` (in the score's
  units, percentage points); NFR = regressed / units. The tolerance is part of the signature.
- NFI = NFR / ER(M_{k+1}) (Xie et al.'s negative flip impact): the share of M_{k+1}'s errors
  that are new. An exact unit is an error when decided wrong; a graded unit is an error when
  its score falls short of the best value (chrF 100, DER 0) by more than the tolerance. NFI
  is NaN when M_{k+1} makes no error.

Intervals: a bootstrap over units (units drawn with replacement, `numpy.random.
default_rng(seed).integers(n, size=(samples, n))`, the same draws for NFR and NFI), the 95 %
percentile interval of the resampled values (sorted positions samples//40 and samples -
samples//40 - 1, the order statistics of sacrebleu's `estimate_ci`).

Everything here takes per-unit arrays computed by the caller (the task families compute unit
scores; this module never imports them) and returns plain data.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345
DEFAULT_TOP = 20


@dataclass(frozen=True)
class Flips:
    """Negative flips of one version pair: the counts, NFR and NFI (fractions, 0..1), their
    bootstrap intervals (fractions), and the regressed units (indices into the unit arrays)
    with their scores before and after, largest regression first."""

    n_units: int
    flips: int
    errors_after: int
    nfr: float
    nfi: float
    nfr_interval: tuple[float, float]
    nfi_interval: tuple[float, float]
    units: tuple[int, ...]           # every regressed unit, largest regression first
    before: tuple[float, ...]        # the units' scores (or 1/0 right/wrong) under M_k
    after: tuple[float, ...]         # ... and under M_{k+1}
    signature: str

    def as_dict(self) -> dict:
        """The figures in percent, as every rate of llgui's JSON (DESIGN.md section 7)."""
        return {"n_units": self.n_units, "flips": self.flips, "errors_after": self.errors_after,
                "nfr": 100.0 * self.nfr, "nfi": 100.0 * self.nfi,
                "nfr_interval": [100.0 * v for v in self.nfr_interval],
                "nfi_interval": [100.0 * v for v in self.nfi_interval],
                "signature": self.signature}


def signature(unit: str, tolerance: float | None, samples: int, seed: int) -> str:
    """`unit:segment-chrf|tol:1|bs:1000|seed:12345` (tolerance `exact` for exact flips)."""
    tol = "exact" if tolerance is None else f"{tolerance:g}"
    return f"unit:{unit}|tol:{tol}|bs:{samples}|seed:{seed}"


def regressed(before, after, *, higher_is_better: bool = True,
              tolerance: float = 0.0) -> np.ndarray:
    """Per unit, whether the score got worse by more than `tolerance` (bool array)."""
    before = np.asarray(before, dtype=np.float64)
    after = np.asarray(after, dtype=np.float64)
    worse = (before - after) if higher_is_better else (after - before)
    return worse > tolerance


def graded_errors(scores, *, best: float, higher_is_better: bool = True,
                  tolerance: float = 0.0) -> np.ndarray:
    """Per unit, whether its score falls short of `best` by more than `tolerance`."""
    scores = np.asarray(scores, dtype=np.float64)
    short = (best - scores) if higher_is_better else (scores - best)
    return short > tolerance


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def _interval(values: np.ndarray) -> tuple[float, float]:
    values = np.sort(values[np.isfinite(values)])
    if not values.size:
        return math.nan, math.nan
    lower = values.size // 40
    return float(values[lower]), float(values[values.size - lower - 1])


def flips_from_masks(flipped, wrong_after, *, size=None, before=None, after=None,
                     unit: str = "unit", tolerance: float | None = None,
                     samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> Flips:
    """NFR and NFI from per-unit masks: `flipped` (a negative flip), `wrong_after` (an error of
    M_{k+1}); `size` orders the listed units (largest first; ties by index); `before`/`after`
    are the scores listed with them."""
    flipped = np.asarray(flipped, dtype=bool)
    wrong_after = np.asarray(wrong_after, dtype=bool)
    n = flipped.size
    if wrong_after.size != n:
        raise ValueError(f"{n} flip flags but {wrong_after.size} error flags")
    before = np.zeros(n) if before is None else np.asarray(before, dtype=np.float64)
    after = np.zeros(n) if after is None else np.asarray(after, dtype=np.float64)
    size = np.ones(n) if size is None else np.asarray(size, dtype=np.float64)
    k, e = int(flipped.sum()), int(wrong_after.sum())
    nfr = k / n if n else math.nan
    nfi = k / e if e else math.nan   # (k/n) / (e/n)
    nfr_iv = nfi_iv = (math.nan, math.nan)
    if n and samples > 0:
        rng = np.random.default_rng(seed)
        flips_b = np.zeros(samples)
        errors_b = np.zeros(samples)
        chunk = max(1, 2_000_000 // n)
        for start in range(0, samples, chunk):
            rows = min(chunk, samples - start)
            idx = rng.integers(n, size=(rows, n))
            flips_b[start:start + rows] = flipped[idx].sum(axis=1)
            errors_b[start:start + rows] = wrong_after[idx].sum(axis=1)
        nfr_iv = _interval(flips_b / n)
        nfi_iv = _interval(_ratio(flips_b, errors_b))
    where = np.flatnonzero(flipped)
    order = where[np.lexsort((where, -size[where]))]
    # (tolist: Python ints and floats, as int() and float() of each, without a loop here)
    return Flips(n, k, e, nfr, nfi, nfr_iv, nfi_iv, tuple(order.tolist()),
                 tuple(before[order].tolist()), tuple(after[order].tolist()),
                 signature(unit, tolerance, samples, seed))


def exact_flips(correct_before, correct_after, *, unit: str = "trial",
                samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> Flips:
    """Exact negative flips (detection, classification): per unit, decided right by M_k
    (`correct_before`, bool) and wrong by M_{k+1} (`correct_after`)."""
    b = np.asarray(correct_before, dtype=bool)
    a = np.asarray(correct_after, dtype=bool)
    if b.size != a.size:
        raise ValueError(f"{b.size} units under M_k but {a.size} under M_k+1")
    return flips_from_masks(b & ~a, ~a, before=b.astype(float), after=a.astype(float),
                            unit=unit, tolerance=None, samples=samples, seed=seed)


def graded_flips(before, after, *, higher_is_better: bool, best: float,
                 tolerance: float = 0.0, unit: str = "unit",
                 samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> Flips:
    """Negative flips of unit scores (`before` under M_k, `after` under M_{k+1}, same units in
    the same order): regressed by more than `tolerance`; errors of M_{k+1} by `best`."""
    b = np.asarray(before, dtype=np.float64)
    a = np.asarray(after, dtype=np.float64)
    if b.size != a.size:
        raise ValueError(f"{b.size} units under M_k but {a.size} under M_k+1")
    if not (np.isfinite(b).all() and np.isfinite(a).all()):
        raise ValueError("unit scores must be finite")
    flipped = regressed(b, a, higher_is_better=higher_is_better, tolerance=tolerance)
    wrong = graded_errors(a, best=best, higher_is_better=higher_is_better, tolerance=tolerance)
    size = (b - a) if higher_is_better else (a - b)
    return flips_from_masks(flipped, wrong, size=size, before=b, after=a, unit=unit,
                            tolerance=tolerance, samples=samples, seed=seed)
