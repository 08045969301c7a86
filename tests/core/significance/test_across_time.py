"""S_P and ACC/BWT/FWT intervals (DESIGN 1.7): every resample equals the core's own functions
on the table with the drawn test columns repeated; all cells share the indices (paired)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llgui.core.across_time.scores import continual_summary, policy_scores
from llgui.core.significance.across_time import lifelong_intervals, resampled
from llgui.core.across_time.policy import PRESETS
from llgui.core.significance.resample import Plan, bootstrap_indices, counts_of
from llgui.io.bundle import load_bundle


@pytest.fixture(scope="module")
def table(demo_dir):
    return load_bundle(demo_dir / "mt" / "bundle.toml").lifelong


def _repeated(table, idx):
    idx = np.sort(idx)
    return dataclasses.replace(
        table, tests=tuple(table.tests[i] for i in idx),
        test_times=tuple(table.test_times[i] for i in idx),
        values={m: v[:, idx] for m, v in table.values.items()},
        values_pen={m: v[:, idx] for m, v in table.values_pen.items()})


@pytest.mark.parametrize("preset", ["A", "B", "C"])
@pytest.mark.parametrize("penalised", [False, True])
def test_resamples_equal_the_core_on_repeated_columns(table, preset, penalised):
    metric = table.metrics[0]
    if penalised and metric not in table.values_pen:
        pytest.skip("no penalised values in the demo table")
    policy = PRESETS[preset]
    n = len(table.tests)
    idx = bootstrap_indices(np.random.default_rng(4), n, 6)
    s_p, acc, bwt, fwt = resampled(table, metric, policy, counts_of(idx, n), penalised)
    for k, row in enumerate(idx):
        sub = _repeated(table, row)
        np.testing.assert_allclose(s_p[k], policy_scores(sub, metric, policy, penalised),
                                   rtol=0, atol=1e-9)
        summary = continual_summary(sub, metric, penalised)
        for got, want in ((acc[k], summary.acc), (bwt[k], summary.bwt), (fwt[k], summary.fwt)):
            assert got == pytest.approx(want, abs=1e-9, nan_ok=True)


def test_intervals_hold_the_point_and_say_how(table):
    metric = table.metrics[0]
    out = lifelong_intervals(table, metric, PRESETS["B"], Plan("bs", 200, 3, "document"))
    point = policy_scores(table, metric, PRESETS["B"])
    assert [e.score for e in out.s_p] == pytest.approx(list(point), nan_ok=True)
    assert out.signature == "bs:200|seed:3|unit:test"
    ok = np.isfinite(point)
    assert np.all(out.s_p_low[ok] <= out.s_p_high[ok])
    assert out.acc.score == pytest.approx(continual_summary(table, metric).acc)
