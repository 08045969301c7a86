"""The score panel's bars and curve (llgui.core.display.score_bars), without a window."""
from __future__ import annotations

import pytest

from llgui.core.display.layout import bar_range
from llgui.core.display.score_bars import HEADROOM, penalty_bars, step_curve_x


def values(**kw):
    base = {"s_base": 30.0, "s_cor": 36.0, "s_imp": 31.0, "s_adapt": 35.0, "s_pen": 29.0,
            "s_pen_memorise": None}
    base.update(kw)
    return base


def test_bleu_cuts_the_penalty_from_the_top():
    bars = penalty_bars(values())
    assert bars.solid == (30.0, 36.0, 31.0, 29.0)      # the solid part up to S_pen
    assert bars.hatch == (29.0, 6.0)                   # S_pen .. S_adapt hatched
    assert bars.memorise is None
    assert bars.labels[3] == (3, 35.0, None) and bars.labels[4] == (3, 29.0, "pen 29.00")
    assert bars.y_range == bar_range([30.0, 36.0, 31.0, 35.0, 29.0])
    low, high = bars.y_range
    assert bars.view == pytest.approx((low, high + HEADROOM * (high - low)))


def test_an_error_rate_stacks_the_penalty_on_top_and_no_penalty_no_hatch():
    bars = penalty_bars(values(s_adapt=20.0, s_pen=24.5, s_pen_memorise=23.0))
    assert bars.solid[3] == 20.0 and bars.hatch == (20.0, 4.5)
    assert bars.labels[4] == (3, 20.0, "adapt 20.00") and bars.memorise == 23.0
    flat = penalty_bars(values(s_adapt=25.0, s_pen=25.0))
    assert flat.hatch is None and flat.labels[4] == (3, 25.0, "")


def test_the_curve_holds_each_score_until_the_next_step():
    assert step_curve_x([0.0, 4.0, 10.0]).tolist() == [0.0, 4.0, 10.0, 10.5]
    assert step_curve_x([0.0]).tolist() == [0.0, 1.0]
