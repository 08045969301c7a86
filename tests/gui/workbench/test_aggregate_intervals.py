"""Intervals on the workbench's pooled aggregates (issue 15): computed on a worker after the
collection job, shown beside the point estimates, equal to the core's bootstrap."""
from __future__ import annotations

import pytest

from tests.gui.conftest import settle


def test_pooled_aggregates_get_their_intervals(demo_window, qtbot):
    window = demo_window
    bench = window.workbench
    qtbot.waitUntil(lambda: bool(bench.shown_intervals), timeout=120000)
    settle(qtbot, window)
    estimates = bench.shown_intervals
    assert set(estimates) == {"s_base", "s_adapt", "s_pen"}
    text = bench.aggregates.text()
    # issue 21: a percentile interval beside the pooled score, not mean ± half-width
    assert "95 % CI [lo, hi]" in text and "±" not in text
    index = window.state.selection.bundle
    bundle = window.state.bundles[index]
    from llgui.core.penalty import replay_bundle
    from llgui.core.significance.resample import Plan
    from llgui.core.significance.penalised import collection_intervals

    metric = window.state.metric(bundle.task)
    result = replay_bundle(bundle, metric, window.state.cost_model(index))
    expected = collection_intervals(bundle, result, Plan("bs", 1000, 12345, "document"))
    for m, e in expected.items():
        assert estimates[m].score == pytest.approx(e.score, abs=1e-9)
        assert estimates[m].mean == pytest.approx(e.mean, abs=1e-9)
        assert estimates[m].ci == pytest.approx(e.ci, abs=1e-9)
        assert estimates[m].low == pytest.approx(e.low, abs=1e-9)
        assert f"[{e.low:.2f}, {e.high:.2f}]" in text
        # the demo bundle has 4 documents: fewer than MIN_UNITS, said, in grey
        assert e.n_units == len(bundle.documents) == 4 and e.too_few
    assert text.count("too few units (4)") == 3
    # the interval is the 2.5 / 97.5 % order statistics of the resampled pooled scores
    from llgui.core.significance.penalised import MEASURES, Stream, StreamSample, metric_of
    from llgui.core.significance.resample import bootstrap_scores
    import numpy as np

    stream = Stream.from_replays(result.replays, metric_of(bundle, result.metric))
    scores = bootstrap_scores([StreamSample(stream, m) for m in MEASURES],
                              Plan("bs", 1000, 12345, "document"))
    for m, values in zip(MEASURES, scores):
        ordered = np.sort(values)
        assert (estimates[m].low, estimates[m].high) == (ordered[25], ordered[974])
