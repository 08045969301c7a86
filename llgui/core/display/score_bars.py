"""The score panel's drawing maths, Qt-free: figure 4 of the LREC paper (bars for S_base,
S_cor, S_imp and the penalised score drawn as S_adapt with the accumulated penalty hatched)
and the learning curve as a step function (figure 2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from llgui.core.display.layout import bar_range
from llgui.core.display.signed import signed

HEADROOM = 0.3
"""Share of the bars' value range added above it for the penalty marks (two, stacked)."""


@dataclass(frozen=True)
class PenaltyBars:
    """Where the bars of one step go (value units).

    `solid`: heights of the S_base, S_cor, S_imp bars and of the solid part of the penalised
    bar (the lower of S_adapt and S_pen), None for a missing score; `hatch`: (y0, height) of
    the accumulated penalty on the penalised bar (added on top for error rates, cut from the
    top for BLEU/chrF), None when there is none; `memorise`: the memorise-only S_pen bar;
    `ticks`: (x, text) under each bar, its name and its value (the values sit under their
    own bars: never beside another bar, never over one); `step_penalty`: (S_imp, S_cor,
    S_imp − S_cor), the step's penalty drawn as a bracket on the S_imp bar up to S_cor,
    None when there is none; `marks`: (x, y, text) of the penalties written above their bars
    (the step's on S_imp, the accumulated one on the penalised bar); `y_range`: the value
    axis (`bar_range`), `view`: it with room on top for the marks; `cut`: the axis does not
    start at 0 (the bars' feet are drawn broken, the axis says where it starts)."""

    solid: tuple[float | None, ...]
    hatch: tuple[float, float] | None
    memorise: float | None
    ticks: tuple[tuple[int, str], ...]
    step_penalty: tuple[float, float, float] | None
    marks: tuple[tuple[float, float, str], ...]
    y_range: tuple[float, float]
    view: tuple[float, float]
    cut: bool


NAMES = ("base", "cor", "imp", "pen", "mem.")


def penalty_bars(values: Mapping[str, float | None], digits: int = 2,
                 keep: tuple[float, float] | None = None) -> PenaltyBars:
    """The bars of a step from its `StepView.as_dict()` (s_base, s_cor, s_imp, s_adapt,
    s_pen, s_pen_memorise); the values under the bars with `digits` decimals (fewer where
    the bars are too narrow for two: the header has them all); `keep`: the value axis shown
    so far, kept while it fits (`bar_range`)."""
    v = values
    lo, hi = sorted((float(v["s_adapt"]), float(v["s_pen"])))  # numpy scalars -> float
    mem = v.get("s_pen_memorise")

    def text(name: str, value) -> str:
        return name if value is None else f"{name}\n{float(value):.{digits}f}"

    ticks = tuple((x, text(n, value)) for x, (n, value) in enumerate(zip(
        NAMES, (v["s_base"], v["s_cor"], v["s_imp"], v["s_pen"], mem))))
    marks = []
    step_penalty = None
    if v["s_cor"] is not None and v["s_imp"] is not None and v["s_cor"] != v["s_imp"]:
        cor, imp = float(v["s_cor"]), float(v["s_imp"])
        step_penalty = (imp, cor, imp - cor)
        marks.append((2.0, max(cor, imp), signed(imp - cor)))
    if hi > lo:
        marks.append((3.0, hi, "Σ" + signed(float(v['s_pen']) - float(v['s_adapt']))))
    # 1-3 point differences between scores of 30 must read as differences
    low, high = bar_range(bar_values(v), keep=keep)
    return PenaltyBars(
        solid=(v["s_base"], v["s_cor"], v["s_imp"], lo),
        hatch=(lo, hi - lo) if hi > lo else None,
        memorise=None if mem is None else float(mem),
        ticks=ticks, step_penalty=step_penalty, marks=tuple(marks),
        y_range=(low, high), view=(low, high + HEADROOM * (high - low)),
        cut=low > 0 or high < 0)


def bar_values(values: Mapping[str, float | None]) -> list[float]:
    """The values a step's bars show (`penalty_bars`), the value axis drawn for them."""
    return [x for x in (values["s_base"], values["s_cor"], values["s_imp"], values["s_adapt"],
                        values["s_pen"], values.get("s_pen_memorise")) if x is not None]


def step_axes(values: Sequence[Mapping[str, float | None]],
              axes: list[tuple[float, float]] | None = None) -> list[tuple[float, float]]:
    """The bars' value axis at steps 0, 1, ... of a document (`values`: each step's
    `StepView.as_dict()` from step len(axes) on), each step's kept from the step before while
    it fits (`bar_range`'s `keep`): the axis at step n is a function of steps 0..n, the same
    whether the user stepped there, jumped there or came back to it. `axes`: those already
    made for the first steps, extended in place and returned."""
    axes = [] if axes is None else axes
    for v in values:
        axes.append(bar_range(bar_values(v), keep=axes[-1] if axes else None))
    return axes


def step_curve_x(costs: Sequence[float]) -> np.ndarray:
    """The x edges of a learning curve drawn as a step function (each score holds from its
    cumulative cost until the next step): the costs, then an end 5 % past the last (at
    least 1)."""
    costs = np.asarray(costs, dtype=float)
    return np.append(costs, max(costs[-1] * 1.05, 1.0))
