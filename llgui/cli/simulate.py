"""`llgui simulate`: the command's arguments to `run_simulation`, its report to text.

    llgui simulate BUNDLE --system [NAME=]"COMMAND" ... [--oracle NAME ...] [--budget X]
                   [--mode active|interactive|none] [--interactive-ratio R] [--seed S]
                   [--timeout SEC] [--startup-timeout SEC] --out DIR [--format table|json|csv] [--quiet]

One run: one row per document and metric (S_base, S_adapt, S_pen, MSR, cost); JSON is
run.json. Several systems or oracles: the panel of evaluated oracles; JSON is panel.json.
A progress bar (documents and steps) goes to stderr when it is a terminal.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from llgui.cli.progress import simulation_progress
from llgui.core.reports.oracle_panel import panel_rows
from llgui.sim.run import Simulation, run_simulation


def simulate_command(args) -> str:
    if args.timeout <= 0:
        raise ValueError("--timeout must be > 0 seconds")
    startup = getattr(args, "startup_timeout", None)
    if startup is not None and not startup > 0:
        raise ValueError("--startup-timeout must be > 0 seconds")
    if args.budget is not None and not args.budget >= 0:
        raise ValueError("--budget must be >= 0")
    if args.interactive_ratio is not None and not 0 <= args.interactive_ratio <= 1:
        raise ValueError("--interactive-ratio must be in [0, 1]")
    earlier = [name for name in ("run.json", "panel.json")
               if args.out is not None and (Path(args.out) / name).is_file()]
    progress, close = simulation_progress(getattr(args, "quiet", False))
    try:
        sim = run_simulation(
            args.bundle, args.system, args.oracle or ["allies"], args.out,
            budget=args.budget, mode=args.mode, interactive_ratio=args.interactive_ratio,
            seed=args.seed, timeout=args.timeout, startup_timeout=startup, progress=progress,
            on_step=getattr(progress, "on_step", None))
    finally:
        close()
    if earlier:   # (an earlier run's log in the same folder was replaced without a word)
        print(f"note: {args.out} held an earlier run ({earlier[0]}): this run replaced it",
              file=sys.stderr)
    return report(sim, args.format)


def run_rows(sim: Simulation) -> tuple[list[str], list[list[object]]]:
    header = ["doc", "metric", "mode", "steps", "cost", "budget", "S_base", "S_adapt", "S_pen",
              "MSR"]
    rows = []
    for doc in sim.outcomes[0].result.documents:
        for metric, s in doc.scores.items():
            rows.append([doc.doc + (" (cut short)" if doc.partial else ""), metric, doc.mode, doc.steps, doc.cost, doc.budget,
                         s["s_base"], s["s_adapt"], s["s_pen"], s.get("msr")])
    efforts = {d["doc"]: d.get("ipmt") for d in sim.outcomes[0].result.run["documents"]}
    if any(efforts.values()):   # interactive-predictive MT: WSR, KSR, MAR, KSMR beside S_pen
        from llgui.core.mt.ipmt import IPMT_COLUMNS

        header += [title for _, title in IPMT_COLUMNS]
        for row in rows:
            row += [(efforts.get(row[0]) or {}).get(key) for key, _ in IPMT_COLUMNS]
    return header, rows


def report(sim: Simulation, fmt: str) -> str:
    from llgui.io import export

    if sim.panel is None:
        if fmt == "json":
            return json.dumps(sim.outcomes[0].result.run, indent=2) + "\n"
        header, rows = run_rows(sim)
    else:
        if fmt == "json":
            return (sim.out / "panel.json").read_text(encoding="utf-8")
        header, rows = panel_rows(sim.panel)
    if fmt == "csv":
        return export.to_csv(header, rows)
    shown = [[export.fmt(v) if isinstance(v, float) or v is None else v for v in row]
             for row in rows]
    text = export.render_table(header, shown, align_left=3 if sim.panel is None else 2)
    what = (f"S_* are means over documents of {sim.metric}; MSR (pooled, %) from "
            f"{sim.panel.msr_metric}; weight = min(1, max(0, 1 - best MSR of the oracle))"
            if sim.panel is not None else "scores in %; MSR from error-count metrics")
    if sim.panel is not None and sim.panel.notes:
        what += "\n" + "\n".join(sim.panel.notes)
    where = (f"written to {sim.out}/SYSTEM/ORACLE/ and {sim.out}/panel.json"
             if sim.panel is not None
             else f"written to {sim.out} (open: llgui {sim.out}/bundle.toml)")
    return text + refusal_notes(sim) + f"{what}\n{where}\n"


def refusal_notes(sim: Simulation) -> str:
    """A line per document whose system's request llgui refused (over the budget `left`, or
    past the step limit): the reason a document may have ended early, even at 0 steps."""
    if sim.panel is not None:
        return ""
    lines = []
    for doc in sim.outcomes[0].result.run["documents"]:
        r = doc.get("refused")
        if not r:
            continue
        # a time as the system gave it, not its float's last digit (t1 530.0999999999999)
        target = ", ".join(f"{k} {v:.10g}" if isinstance(v, float) else f"{k} {v}"
                           for k, v in r["target"].items())
        steps = f"{doc['steps']} step" + ("" if doc["steps"] == 1 else "s")
        if r["reason"] == "budget":
            lines.append(f"note: {doc['doc']}: after {steps} the system asked "
                         f"{r['kind']} ({target}) costing {r['cost']:g} with {r['left']:g} "
                         f"of the budget left: refused, the document ended")
        else:
            lines.append(f"note: {doc['doc']}: the system's request {r['kind']} ({target}) "
                         f"was refused at the step limit ({steps})")
    return "".join(line + "\n" for line in lines)
