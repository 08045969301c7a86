"""Paired intervals for the across-time scores (DESIGN 1.7): S_P of every model version and
ACC / BWT / FWT, by resampling the test times (the columns of the model x test matrix).

One set of resample indices serves every cell of the matrix, so the intervals of two model
versions (or of S_P and ACC) are paired, as the methodology asks. A resample weighs test t_j
by how often it was drawn, c_j: S_P(M_i) = sum_j c_j w_ij s_ij / sum_j c_j w_ij under a
normalising policy (the plain weighted sum otherwise), and ACC / BWT / FWT are the c-weighted
means of the terms `across_time.scores.continual_summary` averages. `tests/core/significance/test_across_time.py`
holds each resample equal to those functions run on the table with its columns repeated.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgui.core.across_time.scores import _matrix, learned_by
from llgui.core.across_time.policy import Policy, window_weights
from llgui.core.significance.resample import (
    TIE_TOLERANCE, Estimate, Plan, bootstrap_counts, estimate_from,
)
from llgui.core.types import LifelongScores


@dataclass(frozen=True)
class LifelongIntervals:
    """S_P of every model (point, mean, +-, and the 2.5/97.5 percentiles for a band) and the
    ACC / BWT / FWT estimates; `signature` says how (unit: test)."""

    s_p: tuple[Estimate, ...]
    s_p_low: np.ndarray
    s_p_high: np.ndarray
    acc: Estimate
    bwt: Estimate
    fwt: Estimate
    signature: str


def _weighted(counts: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """c-weighted mean of `terms` (n_tests,) over non-NaN entries, per resample row."""
    ok = ~np.isnan(terms)
    c = counts[:, ok].astype(np.float64)
    total = c.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (c @ terms[ok]) / total
    out[total == 0] = np.nan
    return out


def resampled(scores: LifelongScores, metric: str, policy: Policy, counts: np.ndarray,
              penalised: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(S_P (B, n_models), ACC (B,), BWT (B,), FWT (B,)) of the resamples `counts` (B, n_tests)."""
    values = _matrix(scores, metric, penalised)
    raw, window = window_weights(policy, scores.model_time_values(), scores.test_time_values())
    present = ~np.isnan(values)
    weights = np.where(present, raw, 0.0)
    filled = np.where(present, values, 0.0)
    c = np.asarray(counts, dtype=np.float64)
    total = c @ (weights * filled).T                      # (B, M)
    if policy.normalise:
        norm = c @ weights.T
        with np.errstate(invalid="ignore", divide="ignore"):
            s_p = total / norm
        s_p[norm == 0] = np.nan
    else:
        s_p = total
        has = c @ (window & present).T.astype(np.float64)
        s_p[has == 0] = np.nan
    n_models, n_tests = values.shape
    last = n_models - 1
    i_of = learned_by(scores.model_time_values(), scores.test_time_values())
    cols = np.arange(n_tests)
    final = values[last]
    back = np.where(i_of < last, final - values[np.minimum(i_of, last), cols], np.nan)
    fwd_terms = np.full(n_tests, np.nan)
    fwd = i_of > 1
    fwd_terms[fwd] = values[i_of[fwd] - 1, cols[fwd]] - values[0, cols[fwd]]
    # ties: a difference of two cells within the tolerance (float noise) is no change
    scale = TIE_TOLERANCE * np.maximum(1.0, np.abs(final))
    back = np.where(np.abs(back) <= scale, 0.0, back)
    fwd_terms = np.where(np.abs(fwd_terms) <= scale, 0.0, fwd_terms)
    return s_p, _weighted(counts, final), _weighted(counts, back), _weighted(counts, fwd_terms)


def lifelong_intervals(scores: LifelongScores, metric: str, policy: Policy, plan: Plan,
                       penalised: bool = False, progress=None,
                       should_stop=None) -> LifelongIntervals:
    """A long job: bootstrap of the test times (plan.samples, plan.seed), all cells paired."""
    from llgui.core.jobs import check, report
    from llgui.core.across_time.scores import continual_summary, policy_scores

    n_tests = len(scores.tests)
    parts = []
    done = 0
    for counts in bootstrap_counts(plan.seed, n_tests, plan.samples):
        check(should_stop)
        parts.append(resampled(scores, metric, policy, counts, penalised))
        done += counts.shape[0]
        report(progress, done / plan.samples)
    s_p = np.concatenate([p[0] for p in parts])
    point = policy_scores(scores, metric, policy, penalised)
    summary = continual_summary(scores, metric, penalised)

    def estimate(value: float, values: np.ndarray) -> Estimate:
        return estimate_from(value, values, n_tests)

    estimates = tuple(estimate(float(point[i]), s_p[:, i]) for i in range(s_p.shape[1]))
    with np.errstate(all="ignore"):
        low, high = np.nanpercentile(s_p, [2.5, 97.5], axis=0) if s_p.size else (point, point)
    acc, bwt, fwt = (np.concatenate([p[k] for p in parts]) for k in (1, 2, 3))
    unit_plan = Plan("bs", plan.samples, plan.seed, "document")
    return LifelongIntervals(estimates, np.asarray(low), np.asarray(high),
                             estimate(summary.acc, acc), estimate(summary.bwt, bwt),
                             estimate(summary.fwt, fwt),
                             unit_plan.signature.replace("unit:document", "unit:test"))
