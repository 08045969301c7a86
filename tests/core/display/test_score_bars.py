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
    # each value under its own bar; the penalised bar's is S_pen
    assert bars.ticks == ((0, "base\n30.00"), (1, "cor\n36.00"), (2, "imp\n31.00"),
                          (3, "pen\n29.00"), (4, "mem."))
    # the step's penalty S_imp - S_cor (-5) as its own mark, the accumulated one (-6) too
    assert bars.step_penalty == (31.0, 36.0, -5.0)
    assert bars.marks == ((2.0, 36.0, "-5.00"), (3.0, 35.0, "Σ-6.00"))
    assert bars.y_range == bar_range([30.0, 36.0, 31.0, 35.0, 29.0])
    low, high = bars.y_range
    assert bars.view == pytest.approx((low, high + HEADROOM * (high - low)))
    assert bars.cut == (low > 0)


def test_an_error_rate_stacks_the_penalty_on_top_and_no_penalty_no_hatch():
    bars = penalty_bars(values(s_adapt=20.0, s_pen=24.5, s_pen_memorise=23.0))
    assert bars.solid[3] == 20.0 and bars.hatch == (20.0, 4.5)
    assert bars.memorise == 23.0 and bars.ticks[4] == (4, "mem.\n23.00")
    assert bars.marks[-1] == (3.0, 24.5, "Σ+4.50")
    flat = penalty_bars(values(s_adapt=25.0, s_pen=25.0, s_imp=36.0))
    assert flat.hatch is None and flat.step_penalty is None and flat.marks == ()


def test_a_cut_axis_is_said():
    assert penalty_bars(values()).cut               # 29..36: the axis starts above 0
    wide = penalty_bars(values(s_base=5.0, s_pen=2.0))
    assert wide.y_range[0] == 0 and not wide.cut


def test_the_curve_holds_each_score_until_the_next_step():
    assert step_curve_x([0.0, 4.0, 10.0]).tolist() == [0.0, 4.0, 10.0, 10.5]
    assert step_curve_x([0.0]).tolist() == [0.0, 1.0]


def test_the_axis_of_a_step_depends_on_the_steps_before_it_only():
    """`step_axes`: each step's axis is `bar_range` of its values kept from the step before;
    made in two goes (steps 0-2, then 3-5) it is what one go makes, and every step's axis
    holds that step's own fresh range."""
    from llgui.core.display.score_bars import bar_values, step_axes

    steps = [values(s_adapt=30.0 + k, s_pen=30.0 + 2 * k, s_cor=31.0 + k, s_imp=30.5 + k)
             for k in range(6)]
    whole = step_axes(steps)
    parts = step_axes(steps[3:], step_axes(steps[:3]))
    assert parts == whole and len(whole) == 6
    for v, axis in zip(steps, whole):
        fresh = bar_range(bar_values(v))
        assert axis[0] <= fresh[0] and fresh[1] <= axis[1]
    for k in range(1, 6):   # kept, or made from the one before
        assert whole[k] == bar_range(bar_values(steps[k]), keep=whole[k - 1])
    assert len(set(whole)) < len(whole)   # kept at some step
