"""The score panel's drawing maths, Qt-free: figure 4 of the LREC paper (bars for S_base,
S_cor, S_imp and the penalised score drawn as S_adapt with the accumulated penalty hatched)
and the learning curve as a step function (figure 2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from llgui.core.display.layout import bar_range

HEADROOM = 0.12
"""Share of the bars' value range added above it for the labels on top of the bars."""


@dataclass(frozen=True)
class PenaltyBars:
    """Where the bars of one step go (value units).

    `solid`: heights of the S_base, S_cor, S_imp bars and of the solid part of the penalised
    bar (the lower of S_adapt and S_pen), None for a missing score; `hatch`: (y0, height) of
    the accumulated penalty on the penalised bar (added on top for error rates, cut from the
    top for BLEU/chrF), None when there is none; `memorise`: the memorise-only S_pen bar;
    `labels`: (bar, value, text) for each value label, text None for the value itself, ""
    for no label; `y_range`: the value axis (`bar_range`), `view`: it with room on top for
    the labels."""

    solid: tuple[float | None, ...]
    hatch: tuple[float, float] | None
    memorise: float | None
    labels: tuple[tuple[int, float | None, str | None], ...]
    y_range: tuple[float, float]
    view: tuple[float, float]


def penalty_bars(values: Mapping[str, float | None]) -> PenaltyBars:
    """The bars of a step from its `StepView.as_dict()` (s_base, s_cor, s_imp, s_adapt,
    s_pen, s_pen_memorise)."""
    v = values
    lo, hi = sorted((float(v["s_adapt"]), float(v["s_pen"])))  # numpy scalars -> float
    mem = v.get("s_pen_memorise")
    # one number per label; the inside one names what it is (adapt or pen)
    inside = ""
    if hi > lo:
        inside = (f"pen {v['s_pen']:.2f}" if lo == v["s_pen"]
                  else f"adapt {v['s_adapt']:.2f}")
    labels = ((0, v["s_base"], None), (1, v["s_cor"], None), (2, v["s_imp"], None),
              (3, hi, None), (3, lo, inside), (4, mem, None))
    shown = [x for x in (v["s_base"], v["s_cor"], v["s_imp"], v["s_adapt"], v["s_pen"], mem)
             if x is not None]
    # 1-3 point differences between scores of 30 must read as differences
    low, high = bar_range(shown)
    return PenaltyBars(
        solid=(v["s_base"], v["s_cor"], v["s_imp"], lo),
        hatch=(lo, hi - lo) if hi > lo else None,
        memorise=None if mem is None else float(mem),
        labels=labels, y_range=(low, high), view=(low, high + HEADROOM * (high - low)))


def step_curve_x(costs: Sequence[float]) -> np.ndarray:
    """The x edges of a learning curve drawn as a step function (each score holds from its
    cumulative cost until the next step): the costs, then an end 5 % past the last (at
    least 1)."""
    costs = np.asarray(costs, dtype=float)
    return np.append(costs, max(costs[-1] * 1.05, 1.0))
