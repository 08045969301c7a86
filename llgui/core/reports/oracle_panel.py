"""The panel of evaluated oracles (Geoffrois 2016, section 3.2.1; DESIGN.md section 8).

Several systems are each run with several simulated humans (oracles). An oracle's performance
is the best Minimal Supervision Rate it reaches with any system, min_sys MSR(oracle, system);
its weight is 1 - that (MSR as a fraction), floored at 0 and capped at 1: an oracle with which
no system needs less supervision than doing all the work by hand says nothing and weighs
nothing; an MSR below 0 cannot be reached (the human's work is never negative), so it is a
defect of the run or of its feedback, said in `notes`, and weighs no more than an MSR of 0. A system's
panel MSR is the weighted mean of its MSR over the oracles; the same weights give a panel S_pen.

Input: a table of runs (system, oracle, msr in percent, s_pen, ...); a missing or undefined
MSR leaves the run out of the minimum and its system's mean. Output: plain data, for the CLI's
table, panel.json and the window.

Equal spend (issue 32). S_pen charges every correction a system is given (each step adds
S_imp − S_cor), so a system that asks nothing (`static` in active mode: cost 0, S_pen =
S_base) beats a learner that spent 120 s whenever the learner's generalisation does not pay
for its corrections, while the MSR, which counts the human's work, ranks the learner first.
The runs of one oracle are therefore also compared at equal spend: `s_pen_equal` is each
run's S_pen read on its documents' learning curves at the cost every system of that oracle
reached (per document, the least any of them spent; a system that stopped asking keeps its
final S_pen), so no system is charged for corrections another did not get. The panel
combines it over oracles with the same weights (`panel_s_pen_equal`). Where two panel figures
rank two systems in opposite orders, `notes` says so and why.
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
    s_pen_equal: float | None = None   # S_pen at the oracle's common cost (see the module)


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
    equal_cost: Mapping[str, float | None] = None  # oracle -> the common cost, summed over docs
    panel_s_pen_equal: Mapping[str, float | None] = None  # system -> weighted S_pen at it
    notes: tuple[str, ...] = ()   # what the figures combine; where two of them disagree

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
            "equal_cost": {k: clean(v) for k, v in (self.equal_cost or {}).items()},
            "panel_s_pen_equal": {k: clean(v)
                                  for k, v in (self.panel_s_pen_equal or {}).items()},
            "notes": list(self.notes),
        }


def _ok(value) -> bool:
    return value is not None and math.isfinite(value)


def oracle_weights(runs: Sequence[PanelRun], oracles: Sequence[str]
                   ) -> tuple[dict[str, float | None], dict[str, float]]:
    """(best MSR per oracle in percent, weight per oracle = min(1, max(0, 1 - best/100)))."""
    best: dict[str, float | None] = {}
    weights: dict[str, float] = {}
    for oracle in oracles:
        values = [r.msr for r in runs if r.oracle == oracle and _ok(r.msr)]
        best[oracle] = min(values) if values else None
        weights[oracle] = min(1.0, max(0.0, 1.0 - best[oracle] / 100.0)) if values else 0.0
    return best, weights


def weight_notes(best: Mapping[str, float | None], weights: Mapping[str, float],
                 msr_metric: str | None) -> list[str]:
    """Why a weight is not 1 - best MSR: a negative MSR (capped at 1), and a panel where every
    oracle weighs 0 (no panel row)."""
    notes = []
    for oracle, value in best.items():
        if _ok(value) and value < 0:
            notes.append(f"oracle {oracle}: best MSR {value:.1f} % is below 0, which no run can "
                         "reach (the human's work is never negative): a defect of the run or of "
                         "its feedback to report; its weight is capped at 1")
    if best and not any(weights.values()):
        if not any(_ok(v) for v in best.values()):
            why = (f"no run has an MSR ({msr_metric} counts no errors)" if msr_metric
                   else "no metric of the runs counts errors, so no run has an MSR")
        else:
            why = ("with every oracle, the best system's MSR is 100 % or more: no system needed "
                   "less supervision than doing all the work by hand")
        notes.append(f"every oracle weighs 0, so the panel rows are empty: {why}")
    return notes


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


def make_panel(runs: Sequence[PanelRun], metric: str, msr_metric: str | None,
               equal_cost: Mapping[str, float | None] | None = None) -> Panel:
    systems = tuple(dict.fromkeys(r.system for r in runs))
    oracles = tuple(dict.fromkeys(r.oracle for r in runs))
    best, weights = oracle_weights(runs, oracles)
    panel_msr = {s: _weighted(runs, s, weights, "msr") for s in systems}
    panel_s_pen = {s: _weighted(runs, s, weights, "s_pen") for s in systems}
    equal = {s: _weighted(runs, s, weights, "s_pen_equal") for s in systems}
    notes = weight_notes(best, weights, msr_metric) + panel_notes(
        runs, metric, msr_metric, panel_msr, panel_s_pen, equal)
    return Panel(metric, msr_metric, systems, oracles, tuple(runs), best, weights,
                 panel_msr, panel_s_pen, dict(equal_cost or {}), equal, tuple(notes))


def _order(a: float | None, b: float | None, higher_is_better: bool) -> int:
    """1 when a ranks above b, -1 below, 0 tied or unknown."""
    if not (_ok(a) and _ok(b)) or a == b:
        return 0
    return 1 if (a > b) == higher_is_better else -1


def panel_notes(runs: Sequence[PanelRun], metric: str, msr_metric: str | None,
                panel_msr: Mapping, panel_s_pen: Mapping, equal: Mapping) -> list[str]:
    """What the panel figures combine, and every pair of systems two of them rank in
    opposite orders, with the spend that explains it."""
    from llgui.core.metrics import higher_is_better

    better = higher_is_better(metric)
    notes = ["S_pen@equal: each run's S_pen read on its learning curves at the cost every "
             "system of its oracle spent (per document, the least of them), so no system is "
             "charged for corrections another did not get; panel rows: the oracles' figures "
             "weighted by min(1, max(0, 1 - best MSR)) (Geoffrois 2016)"]
    spend: dict[str, float] = {}
    for r in runs:
        if _ok(r.cost):
            spend[r.system] = spend.get(r.system, 0.0) + r.cost
    systems = list(panel_s_pen)
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            by_msr = _order(panel_msr.get(a), panel_msr.get(b), False)
            by_pen = _order(panel_s_pen.get(a), panel_s_pen.get(b), better)
            by_equal = _order(equal.get(a), equal.get(b), better)
            if by_msr and by_pen and by_msr != by_pen:
                first, second = (a, b) if by_pen > 0 else (b, a)
                notes.append(
                    f"panel S_pen ranks {first} above {second} but panel MSR ranks {second} "
                    f"above {first}: S_pen charges every correction given, and {first} spent "
                    f"{spend.get(first, 0.0):g} against {spend.get(second, 0.0):g}; at equal "
                    "spend (S_pen@equal) " + (
                        f"{first if by_equal == by_pen else second} ranks first"
                        if by_equal else "they tie"))
            if by_msr and by_equal and by_msr != by_equal:
                first, second = (a, b) if by_equal > 0 else (b, a)
                notes.append(
                    f"even at equal spend S_pen ranks {first} above {second} while MSR ranks "
                    f"{second} first: S_pen is the score the human sees, charged for its "
                    f"corrections; MSR ({msr_metric}) the share of the work the human does")
    return notes


def panel_rows(panel: Panel) -> tuple[list[str], list[list[object]]]:
    """The panel as a table: one row per (system, oracle), then one per system's panel
    figures. Header: system, oracle, weight, S_base, S_adapt, S_pen, MSR, cost."""
    header = ["system", "oracle", "weight", "S_base", "S_adapt", "S_pen", "S_pen@equal", "MSR",
              "cost"]
    rows: list[list[object]] = []
    for r in panel.runs:
        rows.append([r.system, r.oracle, panel.weights.get(r.oracle), r.s_base, r.s_adapt,
                     r.s_pen, r.s_pen_equal, r.msr, r.cost])
    for s in panel.systems:
        rows.append([s, "panel (weighted)", None, None, None, panel.panel_s_pen[s],
                     (panel.panel_s_pen_equal or {}).get(s), panel.panel_msr[s], None])
    if any(r.ipmt for r in panel.runs):   # WSR, KSR, MAR, KSMR beside S_pen (prefix oracles)
        from llgui.core.mt.ipmt import IPMT_COLUMNS

        header += [title for _, title in IPMT_COLUMNS]
        for row, r in zip(rows, panel.runs):
            row += [(r.ipmt or {}).get(key) for key, _ in IPMT_COLUMNS]
        for row in rows[len(panel.runs):]:
            row += [None] * len(IPMT_COLUMNS)
    return header, rows
