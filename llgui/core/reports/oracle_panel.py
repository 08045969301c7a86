"""The panel of evaluated oracles (Geoffrois 2016, section 3.2.1; DESIGN.md section 8).

Several systems are each run with several simulated humans (oracles). An oracle's performance
is the best Minimal Supervision Rate it reaches with any system, min_sys MSR(oracle, system);
its weight is 1 - that (MSR as a fraction), floored at 0: an oracle with which no system needs
less supervision than doing all the work by hand says nothing and weighs nothing. A system's
panel MSR is the weighted mean of its MSR over the oracles; the same weights give a panel S_pen.

Input: a table of runs (system, oracle, msr in percent, s_pen, ...); a missing or undefined
MSR leaves the run out of the minimum and its system's mean. Output: plain data, for the CLI's
table, panel.json and the window.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class PanelRun:
    system: str
    oracle: str
    s_base: float | None
    s_adapt: float | None
    s_pen: float | None
    msr: float | None      # percent
    cost: float
    exit: int = 0
    ipmt: Mapping | None = None   # interactive-predictive MT effort (run.json's `ipmt`)


@dataclass(frozen=True)
class Panel:
    metric: str             # the metric of S_base, S_adapt, S_pen
    msr_metric: str | None  # the error-count metric of the MSR
    systems: tuple[str, ...]
    oracles: tuple[str, ...]
    runs: tuple[PanelRun, ...]
    best_msr: Mapping[str, float | None]     # oracle -> min over systems, percent
    weights: Mapping[str, float]             # oracle -> 1 - min MSR (fraction), floored at 0
    panel_msr: Mapping[str, float | None]    # system -> weighted mean MSR, percent
    panel_s_pen: Mapping[str, float | None]  # system -> weighted mean S_pen

    def run(self, system: str, oracle: str) -> PanelRun | None:
        for r in self.runs:
            if r.system == system and r.oracle == oracle:
                return r
        return None

    def to_dict(self) -> dict:
        def clean(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {
            "metric": self.metric, "msr_metric": self.msr_metric,
            "systems": list(self.systems), "oracles": list(self.oracles),
            "runs": [{k: clean(v) for k, v in r.__dict__.items()
                      if not (k == "ipmt" and v is None)} for r in self.runs],
            "best_msr": {k: clean(v) for k, v in self.best_msr.items()},
            "weights": dict(self.weights),
            "panel_msr": {k: clean(v) for k, v in self.panel_msr.items()},
            "panel_s_pen": {k: clean(v) for k, v in self.panel_s_pen.items()},
        }


def _ok(value) -> bool:
    return value is not None and math.isfinite(value)


def oracle_weights(runs: Sequence[PanelRun], oracles: Sequence[str]
                   ) -> tuple[dict[str, float | None], dict[str, float]]:
    """(best MSR per oracle in percent, weight per oracle = max(0, 1 - best/100))."""
    best: dict[str, float | None] = {}
    weights: dict[str, float] = {}
    for oracle in oracles:
        values = [r.msr for r in runs if r.oracle == oracle and _ok(r.msr)]
        best[oracle] = min(values) if values else None
        weights[oracle] = max(0.0, 1.0 - best[oracle] / 100.0) if values else 0.0
    return best, weights


def _weighted(runs: Sequence[PanelRun], system: str, weights: Mapping[str, float],
              attribute: str) -> float | None:
    total = weight = 0.0
    for r in runs:
        value = getattr(r, attribute)
        if r.system != system or not _ok(value):
            continue
        total += weights.get(r.oracle, 0.0) * value
        weight += weights.get(r.oracle, 0.0)
    return total / weight if weight > 0 else None


def make_panel(runs: Sequence[PanelRun], metric: str, msr_metric: str | None) -> Panel:
    systems = tuple(dict.fromkeys(r.system for r in runs))
    oracles = tuple(dict.fromkeys(r.oracle for r in runs))
    best, weights = oracle_weights(runs, oracles)
    return Panel(metric, msr_metric, systems, oracles, tuple(runs), best, weights,
                 {s: _weighted(runs, s, weights, "msr") for s in systems},
                 {s: _weighted(runs, s, weights, "s_pen") for s in systems})


def panel_rows(panel: Panel) -> tuple[list[str], list[list[object]]]:
    """The panel as a table: one row per (system, oracle), then one per system's panel
    figures. Header: system, oracle, weight, S_base, S_adapt, S_pen, MSR, cost."""
    header = ["system", "oracle", "weight", "S_base", "S_adapt", "S_pen", "MSR", "cost"]
    rows: list[list[object]] = []
    for r in panel.runs:
        rows.append([r.system, r.oracle, panel.weights.get(r.oracle), r.s_base, r.s_adapt,
                     r.s_pen, r.msr, r.cost])
    for s in panel.systems:
        rows.append([s, "panel (weighted)", None, None, None, panel.panel_s_pen[s],
                     panel.panel_msr[s], None])
    if any(r.ipmt for r in panel.runs):   # WSR, KSR, MAR, KSMR beside S_pen (prefix oracles)
        from llgui.core.mt.ipmt import IPMT_COLUMNS

        header += [title for _, title in IPMT_COLUMNS]
        for row, r in zip(rows, panel.runs):
            row += [(r.ipmt or {}).get(key) for key, _ in IPMT_COLUMNS]
        for row in rows[len(panel.runs):]:
            row += [None] * len(IPMT_COLUMNS)
    return header, rows
