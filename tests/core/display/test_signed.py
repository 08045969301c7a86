"""llgui.core.display.signed: differences with their sign, never "-0.00"."""
from __future__ import annotations

import pytest

from llgui.core.display.score_bars import penalty_bars
from llgui.core.display.signed import signed


@pytest.mark.parametrize("value, text", [
    (0.354, "+0.35"), (-1.2, "-1.20"), (-0.004, "+0.00"), (-0.0, "+0.00"), (0.0, "+0.00"),
    (0.005000001, "+0.01"), (-0.006, "-0.01"), (12.0, "+12.00"),
])
def test_signed(value, text):
    assert signed(value) == text


def test_signed_places():
    assert signed(-0.0004, 3) == "+0.000" and signed(-0.0006, 3) == "-0.001"


def test_a_penalty_that_rounds_to_zero_is_not_negative():
    """A step whose S_imp is a hair below S_cor (an error rate's rounding) is marked +0.00,
    not -0.00."""
    bars = penalty_bars({"s_base": 30.0, "s_cor": 25.001, "s_imp": 25.0, "s_adapt": 26.0,
                         "s_pen": 25.9999, "s_pen_memorise": None})
    assert [text for _, _, text in bars.marks] == ["+0.00", "Σ+0.00"]
