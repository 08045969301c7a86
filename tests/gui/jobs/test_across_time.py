"""The Across-time tab's job (llgui.gui.jobs.across_time) without a window: the S_P band and
the ACC / BWT / FWT intervals are the core's bootstrap of the lifelong table, around the
point values of the core and of numpy."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.across_time.policy import PRESETS
from llgui.core.across_time.scores import continual_summary, policy_scores
from llgui.core.jobs import Cancelled
from llgui.core.significance.across_time import lifelong_intervals
from llgui.core.significance.resample import Plan
from llgui.gui.jobs.across_time import bands_job
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO

PLAN = Plan("bs", 300, 12345, "document")


@pytest.fixture(scope="module")
def table():
    return load_bundle(DEMO / "mt" / "bundle.toml").lifelong


@pytest.mark.parametrize("preset", ["A", "B", "C"])
def test_the_bands_job_is_the_cores_bootstrap(table, preset):
    policy = PRESETS[preset]
    fractions = []
    r = bands_job(table, "bleu", policy, PLAN, progress=fractions.append)
    assert fractions[-1] == pytest.approx(1.0)
    expected = lifelong_intervals(table, "bleu", policy, PLAN)
    np.testing.assert_array_equal(r.s_p_low, expected.s_p_low)
    np.testing.assert_array_equal(r.s_p_high, expected.s_p_high)
    assert r.signature == expected.signature
    for got, want in ((r.acc, expected.acc), (r.bwt, expected.bwt), (r.fwt, expected.fwt)):
        assert (got.score, got.mean, got.ci) == (want.score, want.mean, want.ci)
    # the points: S_P of each model under the policy, the continual-learning summary
    point = policy_scores(table, "bleu", policy)
    np.testing.assert_array_equal([e.score for e in r.s_p], point)
    summary = continual_summary(table, "bleu")
    assert (r.acc.score, r.bwt.score, r.fwt.score) == (summary.acc, summary.bwt, summary.fwt)
    # ACC is the mean of the last model's scores over the tests (numpy)
    assert r.acc.score == pytest.approx(np.nanmean(table.values["bleu"][-1]), abs=1e-9)
    # the band is the 2.5-97.5 % of the resamples: it holds most of the points
    ok = np.isfinite(point)
    low, high, point = r.s_p_low[ok] - 1e-9, r.s_p_high[ok] + 1e-9, point[ok]
    assert ((low <= point) & (point <= high)).mean() > 0.8


def test_a_cancelled_band_stops(table):
    with pytest.raises(Cancelled):
        bands_job(table, "bleu", PRESETS["B"], PLAN, should_stop=lambda: True)
