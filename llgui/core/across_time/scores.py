"""Across time: user-policy scores (equations 2 and 3) and continual-learning summaries.

Input is a `LifelongScores` table: s(M_i, t_j) for model versions M_i (time l_i, sorted) and
time-stamped tests t_j (sorted), NaN where the table has no row. Everything here is a pure,
vectorised function of that matrix, cheap enough to run on every mouse move of a policy drag
(200 x 200 in well under a millisecond).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llgui.core.across_time.policy import Policy, window_weights
from llgui.core.types import LifelongScores


def _matrix(scores: LifelongScores, metric: str, penalised: bool) -> np.ndarray:
    table = scores.values_pen if penalised else scores.values
    if metric not in table:
        kind = "penalised scores (value_pen)" if penalised else "scores"
        have = ", ".join(table) or "none"
        raise KeyError(f"the score table has no {kind} for metric {metric!r} (has: {have})")
    return table[metric]


def policy_scores(scores: LifelongScores, metric: str, policy: Policy,
                  penalised: bool = False) -> np.ndarray:
    """S_P(M_i) for every model version, shape (n_models,), in the metric's units.

    Equation 2 of Prokopalo et al. (LREC 2020), or equation 3 with `penalised` (the table's
    value_pen in place of value):

        S_P(M_i) = sum over t_j in [l_1, l_i] of s(M_i, t_j) * P(t_j)

    with P from `policy` (relative or absolute; see llgui.core.across_time.policy). Cells the table does
    not have (NaN) are skipped. With a normalising policy the weights are renormalised over the
    cells present in the window, so S_P is the policy-weighted mean of the scores that exist;
    NaN when no present cell in the window has a positive weight. With a raw (un-normalised)
    policy S_P is the plain weighted sum over present cells (a missing cell then lowers it,
    one reason normalising is the default); NaN when the window has no present cell.
    """
    values = _matrix(scores, metric, penalised)
    raw, window = window_weights(policy, scores.model_time_values(),
                                 scores.test_time_values())
    present = ~np.isnan(values)
    weights = np.where(present, raw, 0.0)
    total = np.einsum("ij,ij->i", weights, np.where(present, values, 0.0))
    if policy.normalise:
        norm = weights.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / norm
        out[norm == 0] = np.nan
        return out
    out = total.copy()
    out[~(window & present).any(axis=1)] = np.nan
    return out


FWT_BASELINE = "first model"
"""What FWT measures transfer against: the first model version M_first, in place of GEM's
randomly initialised model b_j (a lifelong run has no such model)."""


@dataclass(frozen=True)
class Summary:
    """Continual-learning summaries of a model-by-test-time matrix (metric units).

    `acc`, `bwt`, `fwt` as in `continual_summary`; NaN when no pair of cells defines them.
    `n_bwt`, `n_fwt` count the tests each was averaged over. `higher_is_better` is the metric's
    direction as the caller gave it (None if unknown): for scores BWT < 0 means forgetting, for error rates BWT > 0
    means forgetting (the error on old data grew); FWT likewise in the metric's direction.
    `forgetting` (Chaudhry et al. 2018: positive means forgotten, in either direction) and
    `learning_accuracy` (Riemer et al. 2019), with `n_forgetting`, `n_learning` their test
    counts; `fwt_baseline` names FWT's baseline.
    """

    acc: float
    bwt: float
    fwt: float
    higher_is_better: bool | None = None
    n_bwt: int = 0
    n_fwt: int = 0
    forgetting: float = float("nan")
    learning_accuracy: float = float("nan")
    n_forgetting: int = 0
    n_learning: int = 0
    fwt_baseline: str = FWT_BASELINE

    def as_dict(self) -> dict:
        """The JSON `summary` of `lifelong` and `campaign`: every figure and how it was made."""
        return {"acc": self.acc, "bwt": self.bwt, "fwt": self.fwt,
                "forgetting": self.forgetting, "learning_accuracy": self.learning_accuracy,
                "fwt_baseline": self.fwt_baseline,
                "n_tests": {"bwt": self.n_bwt, "fwt": self.n_fwt,
                            "forgetting": self.n_forgetting, "learning_accuracy": self.n_learning}}


def learned_by(model_times: np.ndarray, test_times: np.ndarray) -> np.ndarray:
    """i(j) for every test: the index of the first model whose time is >= t_j, the model that
    has just learned data of that time; n_models for a test after the last model time.
    Model times ascending; shape (n_tests,) of int."""
    return np.searchsorted(model_times, test_times, side="left")


def continual_summary(scores: LifelongScores, metric: str, penalised: bool = False, *,
                      higher_is_better: bool | None = None) -> Summary:
    """ACC, BWT and FWT of Lopez-Paz & Ranzato (2017, "Gradient Episodic Memory"), adapted.

    The original has T tasks learned in order and R[i, j], the score of the model after task i
    on task j's test set: ACC = mean_j R[T, j]; BWT = mean_{j<T} R[T, j] - R[j, j];
    FWT = mean_{j>1} R[j-1, j] - b_j (b_j: a randomly initialised model on task j). Here the
    tasks are the test times t_j and the models the versions M_0..M_last ordered by time l_i,
    with several tests per model possible, so each test is assigned to the model that has just
    learned data of its time, i(j) = the first model with l_i >= t_j (`learned_by`):

    - ACC = mean over all tests of s(M_last, t_j): how good the final model is on everything.
    - BWT = mean over tests with i(j) < last of s(M_last, t_j) - s(M_i(j), t_j): how the score
      on a test changed between the model that had just learned its time and the final model.
    - Forgetting (Chaudhry et al. 2018) = mean over tests with i(j) < last of how much worse
      s(M_last, t_j) is than the best of s(M_i, t_j) for i(j) <= i < last; positive means
      forgotten, for scores and error rates alike (see `_forgetting`).
    - Learning accuracy (Riemer et al. 2019) = mean over tests learned by some model of
      s(M_i(j), t_j): how good each model is on the data it has just learned.
    - FWT = mean over tests with i(j) - 1 > first of s(M_i(j)-1, t_j) - s(M_first, t_j): what
      the model just before learning t_j's data gained on it over the initial model M_first,
      which plays the random-initialisation baseline b. Tests learned by the second model
      (i(j) = 1) are left out, because their term compares M_first with itself and is 0 by
      construction; the original likewise starts its sum at the second task (and BWT leaves
      out the tests of the last model for the same reason). A test after the last model time
      (never learned; i(j) = n_models) uses M_last as "the model just before".

    Differences are later minus earlier in the metric's own units and direction: for error
    rates (lower is better) BWT > 0 means forgetting and FWT < 0 means positive transfer;
    `higher_is_better`, the metric's direction (`llgui.core.metrics.higher_is_better`), is
    kept in `Summary.higher_is_better` to say which applies. Pairs with a missing cell (NaN)
    are skipped; a summary with no pair left is NaN. `penalised` uses the table's value_pen.
    """
    values = _matrix(scores, metric, penalised)
    n_models, n_tests = values.shape
    if n_models == 0 or n_tests == 0:
        return Summary(float("nan"), float("nan"), float("nan"), higher_is_better)
    last = n_models - 1
    i_of = learned_by(scores.model_time_values(), scores.test_time_values())
    cols = np.arange(n_tests)
    final = values[last]
    acc = _nanmean(final)[0]
    back = i_of < last
    bwt, n_bwt = _nanmean(final[back] - values[i_of[back], cols[back]])
    fwd = i_of > 1
    fwt, n_fwt = _nanmean(values[i_of[fwd] - 1, cols[fwd]] - values[0, cols[fwd]])
    direction = higher_is_better
    forgetting, n_forgetting = _forgetting(values, i_of, direction)
    learned = i_of <= last
    learning, n_learning = _nanmean(values[i_of[learned], cols[learned]])
    return Summary(acc, bwt, fwt, direction, n_bwt, n_fwt, forgetting, learning,
                   n_forgetting, n_learning)


def _forgetting(values: np.ndarray, i_of: np.ndarray, direction: bool | None
                ) -> tuple[float, int]:
    """Forgetting (Chaudhry et al. 2018, "Riemannian Walk"), with its source's sign: for each
    test learned before the last model, how much worse the final model is on it than the best
    of the models from the one that learned it (i(j)) to the one before the last; the mean
    over tests, in the metric's units. Positive means forgotten, whatever the metric's
    direction: for scores best - final (best = the maximum), for error rates final - best
    (best = the minimum); negative means the final model is better than all of them. NaN for
    a metric whose direction is unknown."""
    last = values.shape[0] - 1
    if direction is None:
        return float("nan"), 0
    terms = []
    for j in np.flatnonzero(i_of < last):
        earlier = values[i_of[j]:last, j]
        earlier = earlier[~np.isnan(earlier)]
        if earlier.size == 0 or np.isnan(values[last, j]):
            continue
        if direction:
            terms.append(earlier.max() - values[last, j])
        else:
            terms.append(values[last, j] - earlier.min())
    return (float(np.mean(terms)) if terms else float("nan")), len(terms)


def _nanmean(x: np.ndarray) -> tuple[float, int]:
    ok = ~np.isnan(x)
    n = int(ok.sum())
    return (float(x[ok].mean()) if n else float("nan")), n


def diagonal_tests(scores: LifelongScores, metric: str, penalised: bool = False) -> np.ndarray:
    """For each model M_i, the index of the latest test at or before l_i that has a score for
    M_i (missing cells skipped), or -1 if there is none. Shape (n_models,) of int."""
    values = _matrix(scores, metric, penalised)
    usable = (~np.isnan(values)
              & (scores.test_time_values()[None, :] <= scores.model_time_values()[:, None]))
    n_tests = values.shape[1]
    if n_tests == 0 or values.shape[0] == 0:   # a table of this metric with no test (or model)
        return np.full(values.shape[0], -1, dtype=int)
    # Last True per row: argmax on the reversed rows finds the first from the end.
    last_from_end = np.argmax(usable[:, ::-1], axis=1)
    index = n_tests - 1 - last_from_end
    index[~usable.any(axis=1)] = -1
    return index


def diagonal(scores: LifelongScores, metric: str, penalised: bool = False) -> np.ndarray:
    """s(M_i, l_i) for the time-series plot: each model's score on the test nearest its own
    time at or before it (see `diagonal_tests`); NaN where there is none. Shape (n_models,)."""
    values = _matrix(scores, metric, penalised)
    index = diagonal_tests(scores, metric, penalised)
    out = np.full(values.shape[0], np.nan)
    ok = index >= 0
    out[ok] = values[np.flatnonzero(ok), index[ok]]
    return out
