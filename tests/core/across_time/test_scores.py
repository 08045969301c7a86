"""Across time: S_P (equations 2 and 3), continual-learning summaries, the diagonal.

Small tables, every expected number worked out by hand in the comments.
"""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.across_time.scores import (continual_summary, diagonal, diagonal_tests,
                                           learned_by, policy_scores)
from llgui.core.across_time.policy import PRESETS, Policy
from llgui.core.types import LifelongScores, Stamp

NAN = float("nan")


def table(model_times, test_times, values, values_pen=None, metric="wer") -> LifelongScores:
    return LifelongScores(
        models=tuple(f"M{i}" for i in range(len(model_times))),
        model_times=tuple(Stamp.parse(t) for t in model_times),
        tests=tuple(f"t{j}" for j in range(len(test_times))),
        test_times=tuple(Stamp.parse(t) for t in test_times),
        metrics=(metric,),
        values={metric: np.array(values, dtype=float)},
        values_pen={} if values_pen is None else {metric: np.array(values_pen, dtype=float)},
    )


# Models at l = 0, 2, 4; tests at t = 0..5. NaN: rows missing from the score table.
SCORES = table(
    [0, 2, 4], [0, 1, 2, 3, 4, 5],
    [[20, 30, 40, 50, 60, 70],
     [22, NAN, 18, 50, 60, 70],
     [30, 28, 26, NAN, 20, 10]],
    values_pen=[[25, 35, 45, 55, 65, 75],
                [27, 33, 23, 55, 65, 75],
                [35, 33, 31, 29, 25, 15]],
)


def test_policy_a_relative_normalised_skips_missing_cells():
    s = policy_scores(SCORES, "wer", PRESETS["A"])
    # M0: window {t=0} -> 20
    # M1: t = 0, 1, 2 at x = 0, .5, 1 -> weights .1, .55, 1; t=1 missing, so renormalise over
    #     t=0 and t=2: (.1 * 22 + 1 * 18) / (.1 + 1) = 20.2 / 1.1
    # M2: t = 0..4 at x = 0, .25, .5, .75, 1 -> .1, .325, .55, .775, 1; t=3 missing:
    #     (.1*30 + .325*28 + .55*26 + 1*20) / (.1 + .325 + .55 + 1) = 46.4 / 1.975
    np.testing.assert_allclose(s, [20.0, 20.2 / 1.1, 46.4 / 1.975], rtol=1e-14)


def test_policy_a_raw_sum():
    s = policy_scores(SCORES, "wer", PRESETS["A"].with_normalise(False))
    # the numerators above: 1 * 20; 2.2 + 18; 3 + 9.1 + 14.3 + 20
    np.testing.assert_allclose(s, [20.0, 20.2, 46.4], rtol=1e-14)


def test_policies_b_and_c():
    b = policy_scores(SCORES, "wer", PRESETS["B"])
    # uniform over present cells: M1 (22 + 18) / 2; M2 (30 + 28 + 26 + 20) / 4
    np.testing.assert_allclose(b, [20.0, 20.0, 26.0], rtol=1e-14)
    c = policy_scores(SCORES, "wer", PRESETS["C"])
    # C: weights 1 at x=0 down to .1 at x=1
    # M1: (1 * 22 + .1 * 18) / 1.1 = 23.8 / 1.1
    # M2: x = 0, .25, .5, 1 -> 1, .775, .55, .1: (30 + 21.7 + 14.3 + 2) / 2.425 = 68 / 2.425
    np.testing.assert_allclose(c, [20.0, 23.8 / 1.1, 68.0 / 2.425], rtol=1e-14)


def test_absolute_policy_and_penalised_scores():
    p = Policy("absolute", ((1.0, 0.0), (3.0, 2.0)))   # P(t) = 0, 0, 1, 2, 2 for t = 0..4
    pen = policy_scores(SCORES, "wer", p, penalised=True)
    # equation 3 on value_pen:
    # M0: window {0} has weight 0 only -> NaN
    # M1: t = 0, 1, 2 weights 0, 0, 1 -> 23
    # M2: t = 0..4 weights 0, 0, 1, 2, 2: (31 + 2*29 + 2*25) / 5 = 139 / 5
    assert np.isnan(pen[0])
    np.testing.assert_allclose(pen[1:], [23.0, 27.8], rtol=1e-14)
    raw = policy_scores(SCORES, "wer", p)
    # same weights on value: M2 has t=3 missing: (26 + 2 * 20) / (1 + 2) = 22
    np.testing.assert_allclose(raw[1:], [18.0, 22.0], rtol=1e-14)
    raw_sum = policy_scores(SCORES, "wer", p.with_normalise(False))
    # raw sums: M0 0 * 20 = 0 (window not empty); M1 18; M2 26 + 2 * 20 = 66
    np.testing.assert_allclose(raw_sum, [0.0, 18.0, 66.0], rtol=1e-14)


def test_window_with_only_missing_cells_is_nan():
    t = table([0, 1], [0, 1], [[NAN, 5.0], [NAN, 7.0]])
    for policy in (PRESETS["B"], PRESETS["B"].with_normalise(False)):
        s = policy_scores(t, "wer", policy)
        # M0: window {t=0}, missing -> NaN; M1: t=0 missing, t=1 -> 7 (weight 1 under B)
        assert np.isnan(s[0])
        assert s[1] == 7.0


def test_missing_penalised_scores_are_a_clear_error():
    t = table([0, 1], [0, 1], [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(KeyError, match="value_pen"):
        policy_scores(t, "wer", PRESETS["A"], penalised=True)
    with pytest.raises(KeyError, match="bleu"):
        policy_scores(t, "bleu", PRESETS["A"])


def test_equation_2_against_a_plain_loop():
    rng = np.random.default_rng(3)
    l = np.sort(rng.uniform(0, 100, 12))
    t = np.sort(rng.uniform(-5, 110, 30))
    v = rng.uniform(0, 50, (12, 30))
    v[rng.random(v.shape) < 0.2] = NAN
    scores = table(l.tolist(), t.tolist(), v)
    policy = Policy("relative", ((0.0, 0.3), (0.3, 2.0), (0.8, 0.5), (1.0, 1.0)))
    got = policy_scores(scores, "wer", policy)
    for i in range(12):
        num = den = 0.0
        for j in range(30):
            if l[0] <= t[j] <= l[i] and not np.isnan(v[i, j]):
                x = (t[j] - l[0]) / (l[i] - l[0]) if l[i] > l[0] else 1.0
                w = float(np.interp(x, [0.0, 0.3, 0.8, 1.0], [0.3, 2.0, 0.5, 1.0]))
                num += w * v[i, j]
                den += w
        expected = num / den if den > 0 else NAN
        np.testing.assert_allclose(got[i], expected, rtol=1e-12, equal_nan=True)


# --------------------------------------------------------------------------------------------
# Continual-learning summaries

# Models at l = 10, 20, 30; tests at t = 5, 10, 15, 25, 35 (BLEU, higher is better).
# i(j) = first model with l >= t: 0, 0, 1, 2, and 3 for t = 35 (after the last model).
CL = table(
    [10, 20, 30], [5, 10, 15, 25, 35],
    [[40, 42, 20, 10, 5],
     [38, 40, 45, 25, 12],
     [35, 36, 41, 50, 30]],
    metric="bleu",
)


def test_learned_by():
    np.testing.assert_array_equal(learned_by(CL.model_time_values(), CL.test_time_values()),
                                  [0, 0, 1, 2, 3])


def test_continual_summary_by_hand():
    s = continual_summary(CL, "bleu", higher_is_better=True)
    # ACC: mean of the last row: (35 + 36 + 41 + 50 + 30) / 5 = 38.4
    assert s.acc == pytest.approx(38.4, abs=1e-12)
    # BWT over tests with i(j) < 2 (t = 5, 10, 15): 35-40, 36-42, 41-45 -> (-5 - 6 - 4) / 3
    assert s.bwt == pytest.approx(-5.0, abs=1e-12)
    assert s.n_bwt == 3
    # FWT over tests with i(j) - 1 > 0 (t = 25, 35) of s(M_i(j)-1, t) - s(M_0, t) (t=15,
    # learned by M1, would compare M0 with itself): t=25: M1 - M0 = 25 - 10 = 15;
    # t=35 (never learned): M2 - M0 = 30 - 5 = 25 -> 20
    assert s.fwt == pytest.approx(20.0, abs=1e-12)
    assert s.n_fwt == 2
    assert s.higher_is_better is True                # the direction given is kept


def test_forgetting_and_learning_accuracy_by_hand():
    """Chaudhry et al. (2018) forgetting and Riemer et al. (2019) learning accuracy on the
    table above, by hand (issue 27, item 5)."""
    s = continual_summary(CL, "bleu", higher_is_better=True)
    # Forgetting over tests learned before the last model (t = 5, 10 by M0; t = 15 by M1):
    # the best of M_i(j)..M_1 minus the final: t=5: max(40, 38) - 35 = 5; t=10: max(42, 40) -
    # 36 = 6; t=15: 45 - 41 = 4 -> 5 (positive: forgotten, Chaudhry et al.'s sign)
    assert s.forgetting == pytest.approx(5.0, abs=1e-12)
    assert s.n_forgetting == 3
    # Learning accuracy: s(M_i(j), t_j) for tests learned by a model (t = 35 never is):
    # 40, 42, 45, 50 -> 44.25
    assert s.learning_accuracy == pytest.approx(44.25, abs=1e-12)
    assert s.n_learning == 4
    assert s.fwt_baseline == "first model"
    # An error rate takes the best as the minimum and the final minus it: WER on the same
    # numbers, t=5: 35 - min(40, 38) = -3; t=10: 36 - 40 = -4; t=15: 41 - 45 = -4 -> -11/3
    # (negative: the final model makes fewer errors than any before it, nothing forgotten)
    w = continual_summary(table([10, 20, 30], [5, 10, 15, 25, 35], CL.values["bleu"],
                                metric="wer"), "wer",
                          higher_is_better=False)
    assert w.forgetting == pytest.approx(-11 / 3, abs=1e-12)
    assert w.as_dict()["forgetting"] == w.forgetting
    assert set(w.as_dict()) >= {"acc", "bwt", "fwt", "forgetting", "learning_accuracy",
                                "fwt_baseline", "n_tests"}


def test_continual_summary_skips_missing_pairs():
    v = np.array(CL.values["bleu"])
    v[1, 3] = NAN   # the t=25 FWT pair
    v[0, 0] = NAN   # the t=5 BWT pair
    s = continual_summary(table([10, 20, 30], [5, 10, 15, 25, 35], v, metric="der"), "der",
                          higher_is_better=False)
    assert s.acc == pytest.approx(38.4, abs=1e-12)   # last row untouched
    assert s.bwt == pytest.approx(-5.0, abs=1e-12)   # (-6 - 4) / 2
    assert s.n_bwt == 2
    assert s.fwt == pytest.approx(25.0, abs=1e-12)   # t=35 only
    assert s.n_fwt == 1
    assert s.higher_is_better is False               # DER: lower is better
    assert continual_summary(CL, "bleu").higher_is_better is None   # none given: unknown


def test_continual_summary_without_pairs_is_nan():
    s = continual_summary(table([10], [10, 20], [[1.0, 2.0]]), "wer")
    # one model: ACC = 1.5; no test learned before the last model; t=20 (after it) would
    # compare M0 with itself
    assert s.acc == 1.5
    assert np.isnan(s.bwt) and np.isnan(s.fwt)


def test_diagonal():
    # latest test at or before each model time: M0 (10) -> t=10; M1 (20) -> t=15; M2 -> t=25
    np.testing.assert_array_equal(diagonal(CL, "bleu"), [42.0, 45.0, 50.0])
    v = np.array(CL.values["bleu"])
    v[1, 2] = NAN  # M1 has no score at t=15: fall back to t=10
    t = table([4, 10, 20, 30], [5, 10, 15, 25, 35], np.vstack([np.zeros((1, 5)), v]),
              metric="bleu")
    # M at 4 is before every test -> none
    np.testing.assert_array_equal(diagonal_tests(t, "bleu"), [-1, 1, 1, 3])
    np.testing.assert_array_equal(diagonal(t, "bleu"), [NAN, 42.0, 40.0, 50.0])
