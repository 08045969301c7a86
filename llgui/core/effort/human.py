"""A live expert against the simulated one (DESIGN.md section 1.9), as statistics of data.

- `agreement`: of n answers compared with the oracle's answers to the same questions, k
  differ: the human error rate k/n with a two-sided interval, exact (Clopper-Pearson 1934)
  or Wilson (1927) score, both as `scipy.stats.binomtest(...).proportion_ci` computes them.
  The oracle `noisy:P` gives a wrong answer with probability P, so the P a session implies is
  that error rate, with the same interval.
- `fit_cost`: the cost model fitted to logged effort. Each step's seconds are regressed on
  what the cost model counts for it (`FEATURES`: reference words of a `reference` step, word
  edits of a `post_edit` step, seconds listened of a diarization step), with no intercept, so
  the weights are the cost model's `*_weight` in seconds per unit and the fitted model prices
  steps in seconds of expert time. Ordinary least squares (numpy lstsq), t intervals from
  sigma^2 (X'X)^-1 with n - p degrees of freedom; a weight no step informs is not fitted.
- `kendall_tau`: Kendall's tau-b between two rankings of the same systems
  (`scipy.stats.kendalltau`), e.g. S_pen under the live expert and under a simulated oracle.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from llgui.core.cost import CostModel

METHODS = ("exact", "wilson")
FEATURES = ("reference_weight", "post_edit_weight", "listen_weight")
"""The cost model's weights a fit gives, in column order."""
FEATURE_UNITS = {"reference_weight": "s per reference word",
                 "post_edit_weight": "s per word edit",
                 "listen_weight": "s per second listened"}


@dataclass(frozen=True)
class Agreement:
    """k disagreements among n compared answers; the error rate and its interval."""

    n: int
    disagree: int
    method: str = "exact"
    level: float = 0.95

    @property
    def agree(self) -> int:
        return self.n - self.disagree

    @property
    def error_rate(self) -> float:
        return self.disagree / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        if not self.n:
            return math.nan, math.nan
        from scipy.stats import binomtest

        ci = binomtest(self.disagree, self.n).proportion_ci(
            confidence_level=self.level, method=self.method)
        return float(ci.low), float(ci.high)

    @property
    def noisy(self) -> str:
        """The oracle that gives wrong answers as often: `noisy:P` (P rounded to 3 digits)."""
        return f"noisy:{round(self.error_rate, 3):g}" if self.n else "none"

    def to_dict(self) -> dict:
        low, high = self.interval
        return {"compared": self.n, "agree": self.agree, "disagree": self.disagree,
                "error_rate": _num(self.error_rate), "interval": [_num(low), _num(high)],
                "method": self.method, "level": self.level, "noisy": self.noisy}


def agreement(matches: Sequence[bool], method: str = "exact", level: float = 0.95) -> Agreement:
    """The Agreement of a list of per-answer matches (True: the human agreed)."""
    if method not in METHODS:
        raise ValueError(f"interval method {method!r}: one of {', '.join(METHODS)}")
    if not 0 < level < 1:
        raise ValueError("the interval level must be in (0, 1)")
    matches = [bool(m) for m in matches]
    return Agreement(len(matches), sum(not m for m in matches), method, level)


@dataclass(frozen=True)
class CostFit:
    """Fitted weights (seconds per unit) of the cost model, with intervals."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    intervals: tuple[tuple[float, float], ...]
    n: int
    residual_sd: float
    r2: float
    level: float = 0.95
    informed: tuple[int, ...] = ()
    """Per weight, the steps that inform it (a nonzero feature)."""

    def weight(self, name: str) -> float | None:
        return self.weights[self.names.index(name)] if name in self.names else None

    def cost_model(self, base: CostModel = CostModel()) -> CostModel:
        """`base` with the fitted weights (a negative estimate, which no cost can be, is
        written as 0) and `use_log_cost` off, so the model prices every step."""
        changes = {name: max(0.0, w) for name, w in zip(self.names, self.weights)}
        return base.with_(use_log_cost=False, **changes)

    def to_dict(self) -> dict:
        return {"method": "ols, no intercept", "level": self.level, "steps": self.n,
                "residual_sd": _num(self.residual_sd), "r2": _num(self.r2),
                "weights": {name: {"value": _num(w), "interval": [_num(lo), _num(hi)],
                                   "unit": FEATURE_UNITS[name], "steps": k,
                                   "warning": few_steps_warning(name, k)}
                            for name, w, (lo, hi), k in zip(
                                self.names, self.weights, self.intervals,
                                self.informed or (self.n,) * len(self.names))}}


MIN_INFORMED = 3
"""A weight informed by fewer steps than this gets a warning in the report."""


def few_steps_warning(name: str, steps: int) -> str | None:
    """The warning of a weight informed by fewer than MIN_INFORMED steps, else None."""
    if steps >= MIN_INFORMED:
        return None
    return (f"{name} rests on {steps} step{'s' if steps != 1 else ''} (fewer than "
            f"{MIN_INFORMED}): its value is those steps' seconds, and its interval comes from "
            f"the other steps' residuals, not from its own spread")


def fit_cost(features: np.ndarray, seconds: np.ndarray, level: float = 0.95) -> CostFit:
    """Least squares of `seconds` (n,) on `features` (n, 3) in `FEATURES` order, no intercept.
    Columns that are all zero are left out (no step informs them). ValueError with fewer
    steps than fitted weights + 1 (no residual degree of freedom, no interval)."""
    from scipy.stats import t as student

    x = np.asarray(features, dtype=float)
    y = np.asarray(seconds, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or y.shape != (x.shape[0],):
        raise ValueError("one row of 3 features and one time per step")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("features and seconds must be finite")
    used = [j for j in range(x.shape[1]) if np.any(x[:, j] != 0)]
    n, p = y.size, len(used)
    if p == 0:
        raise ValueError("no step has words, edits or seconds listened to fit")
    if n <= p:
        raise ValueError(f"{n} steps cannot fit {p} weights with an interval "
                         f"(at least {p + 1} needed)")
    xs = x[:, used]
    beta, *_ = np.linalg.lstsq(xs, y, rcond=None)
    residual = y - xs @ beta
    dof = n - p
    sigma2 = float(residual @ residual) / dof
    cov = sigma2 * np.linalg.pinv(xs.T @ xs)
    half = float(student.ppf(0.5 + level / 2, dof)) * np.sqrt(np.diag(cov))
    total = float(y @ y)
    r2 = 1.0 - float(residual @ residual) / total if total > 0 else math.nan  # uncentred
    return CostFit(names=tuple(FEATURES[j] for j in used),
                   weights=tuple(float(b) for b in beta),
                   intervals=tuple((float(b - h), float(b + h)) for b, h in zip(beta, half)),
                   n=n, residual_sd=math.sqrt(sigma2), r2=r2, level=level,
                   informed=tuple(int(np.count_nonzero(x[:, j])) for j in used))


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> dict:
    """Kendall's tau-b between two scorings of the same systems (names in both), with its
    p-value (scipy.stats.kendalltau; exact for small n without ties)."""
    names = sorted(set(first) & set(second))
    if len(names) < 2:
        return {"systems": names, "tau": None, "p_value": None}
    from scipy.stats import kendalltau

    result = kendalltau([first[k] for k in names], [second[k] for k in names])
    return {"systems": names, "tau": _num(float(result.statistic)),
            "p_value": _num(float(result.pvalue))}


def cost_toml(model: CostModel, comment: str = "") -> str:
    """A `[cost]` table (the bundle's, docs/formats.md) for the fitted model."""
    lines = [f"# {line}" for line in comment.splitlines()] + ["[cost]"]
    for key, value in model.to_dict().items():
        text = ("true" if value else "false") if isinstance(value, bool) else repr(float(value))
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def _num(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 9) + 0.0


__all__ = ["Agreement", "agreement", "CostFit", "fit_cost", "kendall_tau", "cost_toml",
           "FEATURES"]
