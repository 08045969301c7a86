"""The penalty engine over whole bundles: series, aggregates, learning-curve area, MSR."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.penalty import StepScores, curve_area, replay_bundle
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO


def steps(*pairs):
    """StepScores from (cumulative cost, S_adapt) pairs."""
    out, previous = [], 0.0
    for i, (cum, adapt) in enumerate(pairs, 1):
        out.append(StepScores(i, "active", "reference", cum - previous, cum, None, None,
                              adapt, adapt))
        previous = cum
    return out


def test_curve_area_of_a_step_function_by_hand():
    # S = 30 on [0, 10), 40 on [10, 30), 50 on [30, 40]: (30*10 + 40*20 + 50*10) / 40 = 40
    assert curve_area(30.0, steps((10, 40.0), (30, 50.0), (40, 50.0))) == pytest.approx(40.0)
    # cut at a maximum cost of 20: (30*10 + 40*10) / 20 = 35
    assert curve_area(30.0, steps((10, 40.0), (30, 50.0)), max_cost=20) == pytest.approx(35.0)
    # beyond the last step the last score holds: (30*10 + 40*30) / 40 = 37.5
    assert curve_area(30.0, steps((10, 40.0)), max_cost=40) == pytest.approx(37.5)
    assert curve_area(30.0, []) == 30.0


def test_series_and_aggregates_of_the_demo_diarization():
    bundle = load_bundle(DEMO / "diarization" / "bundle.toml")
    result = replay_bundle(bundle, "der")
    series = result.series()
    assert series.docs == tuple(d.id for d in bundle.documents)      # processing order
    assert np.all(np.diff(series.times) > 0)
    assert series.s_pen.tolist() == [r.s_pen for r in result.replays]
    assert series.cum_cost[-1] == pytest.approx(sum(r.total_cost for r in result.replays))
    assert np.all(np.diff(series.cum_cost) >= 0)
    # pooled = summed error time over summed reference time (duration-weighted)
    base = np.sum([r.stats_base for r in result.replays], axis=0)
    miss, fa, conf, _, total = base
    assert result.pooled_base == pytest.approx(100 * (miss + fa + conf) / total, abs=1e-12)
    assert result.mean("s_base") == pytest.approx(np.mean(series.s_base), abs=1e-12)
    # MSR: feedback seconds plus errors left, over reference seconds
    r = result.replays[0]
    errors, size = (float(r.stats_final[0] + r.stats_final[1] + r.stats_final[2]),
                    float(r.stats_final[4]))
    assert r.msr == pytest.approx(100 * (r.total_cost + errors) / size, abs=1e-9)
