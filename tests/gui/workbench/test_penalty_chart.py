"""The score bars' own drawing (`PenaltyChart`, issue 36): its value axis' round ticks and
their texts, and a chart drawn as the step's numbers say at any size."""
from __future__ import annotations

import pytest

from llgui.gui.workbench.penalty_chart import tick_text, value_ticks


@pytest.mark.parametrize("lo, hi, most, expected", [
    (46.0, 49.9, 8, [46.0, 46.5, 47.0, 47.5, 48.0, 48.5, 49.0, 49.5]),
    (35.0, 52.0, 4, [35.0, 40.0, 45.0, 50.0]),
    (0.0, 1.0, 5, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (0.0, 1.0, 4, [0.0, 0.25, 0.5, 0.75, 1.0]),
    (0.0, 100.0, 3, [0.0, 50.0, 100.0]),
    (-3.0, 3.0, 6, [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]),
])
def test_value_ticks_are_round_and_at_most_asked(lo, hi, most, expected):
    got = value_ticks(lo, hi, most)
    assert got == pytest.approx(expected)
    assert len(got) <= most + 1


def test_value_ticks_of_no_range_are_none():
    assert value_ticks(5.0, 5.0, 4) == [] and value_ticks(0.0, float("nan"), 4) == []


def test_tick_texts_have_the_decimals_of_their_spacing():
    values = [46.0, 46.5, 47.0]
    assert [tick_text(v, values) for v in values] == ["46", "46.5", "47"]
    quarters = [0.0, 0.25, 0.5]
    assert [tick_text(v, quarters) for v in quarters] == ["0", "0.25", "0.5"]
    assert tick_text(-0.0, [-1.0, 0.0]) == "0"


@pytest.mark.parametrize("size", [(300, 200), (420, 300), (900, 400)])
def test_the_chart_draws_each_bar_to_its_value_inside_its_plot(qtbot, size):
    from llgui.gui.workbench.penalty_chart import PenaltyChart

    chart = PenaltyChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    values = {"s_base": 20.0, "s_cor": 18.0, "s_imp": 22.0, "s_adapt": 17.0, "s_pen": 21.0,
              "s_pen_memorise": 19.0}
    chart.set_step(values, None, "DER", "%")
    layout = chart.layout_now()
    plot = layout.plot
    low, high = layout.geometry.view
    px = plot.height() / (high - low)
    # each solid bar's top at its value (error rate: S_adapt solid, the penalty on top)
    for name, key in (("base", "s_base"), ("cor", "s_cor"), ("imp", "s_imp"),
                      ("adapt", "s_adapt"), ("memorise", "s_pen_memorise")):
        assert layout.bars[name].top() == pytest.approx(
            plot.bottom() - (values[key] - low) * px, abs=1), name
        assert plot.contains(layout.bars[name])
    hatch = layout.bars["hatch"]
    assert hatch.top() == pytest.approx(plot.bottom() - (21.0 - low) * px, abs=1)
    assert hatch.bottom() == pytest.approx(plot.bottom() - (17.0 - low) * px, abs=1)
    # bars left to right in the order of their names under them
    centres = [layout.bars[n].center().x() for n in ("base", "cor", "imp", "adapt", "memorise")]
    assert centres == sorted(centres)
    assert [x for x, _ in layout.x_ticks] == pytest.approx(centres, abs=1)
    # the value axis' ticks inside the plot, their texts round numbers in its range
    assert len(layout.y_ticks) >= 2
    for y, text in layout.y_ticks:
        assert plot.top() - 1 <= y <= plot.bottom() + 1
        assert low - 1e-9 <= float(text) <= high + 1e-9
    # painted: the pixel at a bar's middle is the bar's colour
    image = chart.grab().toImage()
    middle = layout.bars["cor"].center().toPoint()
    assert image.pixelColor(middle).name() == "#2e86c1"


def test_tick_texts_of_float_sums_are_clean():
    values = value_ticks(0.0, 1.0, 5)   # 3 x 0.2 is 0.6000000000000001
    assert [tick_text(v, values) for v in values] == ["0", "0.2", "0.4", "0.6", "0.8", "1"]


@pytest.mark.parametrize("width", [250, 260, 300, 380, 700])
def test_a_penalty_mark_keeps_clear_of_the_bars_beside_it(qtbot, width):
    """A mark wider than its bar's slot keeps GAP pixels from a taller bar beside it (outsider
    helper-42: a purple "Σ+10.43" 3 px from the dashed purple mem. bar, at 1366x768, read as
    mem.'s), and still stands above its own bar and apart from the other mark."""
    from llgui.gui.workbench.penalty_chart import GAP, PenaltyChart

    chart = PenaltyChart()
    qtbot.addWidget(chart)
    chart.resize(width, 260)
    chart.show()
    qtbot.waitExposed(chart)
    # DER: the pen bar S_adapt 24.79 + Σ 10.43 = 35.22; the memorise-only S_pen taller beside it
    values = {"s_base": 25.55, "s_cor": 24.79, "s_imp": 25.6, "s_adapt": 24.79,
              "s_pen": 35.22, "s_pen_memorise": 38.9}
    chart.set_step(values, None, "DER", "%")
    layout = chart.layout_now()
    marks = {text: rect for text, rect, _ in layout.marks}
    sigma = marks["Σ+10.43"]
    own = layout.bars["hatch"]
    assert sigma.bottom() <= own.top()   # above its own bar
    for name, bar in layout.bars.items():
        if name in ("hatch", "adapt", "gap"):
            continue
        near = bar.adjusted(-GAP + 0.5, -GAP + 0.5, GAP - 0.5, 0)
        for text, rect in marks.items():
            if not rect.left() <= bar.center().x() <= rect.right() or name != "imp":
                assert not rect.intersects(near), (width, text, name, rect, bar)
    rects = list(marks.values())
    assert not rects[0].intersects(rects[1])
