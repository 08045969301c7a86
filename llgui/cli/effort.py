"""`llgui effort`: what the expert's time bought (issue 34; docs/cli.md).

    llgui effort INPUT ... [--simulated DIR ...] [--metric M] [--interval exact|wilson]
                 [--level L] [--tolerance S] [--cost-out FILE.toml] [--format table|json|csv]

Each INPUT is a bundle file or a run folder (`llgui simulate --out`, a live session's
folder). For each: the value of the system's questions (active steps). Over the live
sessions among them: the human's answers against the oracle's, the cost model fitted to the
logged seconds (written with --cost-out as a `[cost]` table), and with --simulated (run
folders of the same systems under a simulated oracle) Kendall's tau between the rankings.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from llgui.core.errors import UsageError


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", type=Path, nargs="+", metavar="INPUT",
                   help="a bundle file, or a run or live-session folder (several allowed)")
    p.add_argument("--simulated", type=Path, nargs="+", default=[], metavar="DIR",
                   help="simulated run folders of the same systems on the same bundle: "
                        "Kendall's tau between their ranking and the live sessions'")
    p.add_argument("--metric", metavar="M",
                   help="ranking metric (default: the bundle's first); MT question value "
                        "counts WER edits with wer, TER edits otherwise")
    p.add_argument("--interval", choices=("exact", "wilson"), default="exact",
                   help="interval of the human error rate: exact (Clopper-Pearson) or Wilson "
                        "(default: exact)")
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="confidence level of every interval (default: 0.95)")
    p.add_argument("--tolerance", type=float, default=0.5, metavar="S",
                   help="seconds: a boundary answer agrees with the oracle's when both edges "
                        "are this close (default: 0.5)")
    p.add_argument("--cost-out", type=Path, metavar="FILE",
                   help="write the fitted cost model as a [cost] table (TOML)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="output format (default: table)")


def run(args) -> str:
    import math

    from llgui import api
    from llgui.io import export
    from llgui.io.effort_report import effort_csv, effort_table

    if not (0 < args.level < 1):
        raise UsageError(f"--level {args.level}: a confidence level in (0, 1)")
    if not (math.isfinite(args.tolerance) and args.tolerance >= 0):
        raise UsageError(f"--tolerance {args.tolerance}: seconds >= 0")
    for path in [*args.inputs, *args.simulated]:
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder")
    for path in args.simulated:
        if not (path / "bundle.toml").is_file():
            raise UsageError(f"{path}: not a run folder (no bundle.toml)")
    report = api.effort_report(args.inputs, args.simulated, metric=args.metric,
                               interval=args.interval, level=args.level,
                               tolerance=args.tolerance)
    if args.cost_out is not None:
        from llgui.sim.human import fitted_cost_toml
        from llgui.utils.atomic import write_atomic

        if not report["human"]:
            raise UsageError("--cost-out: no live session among the inputs (no logged effort)")
        try:
            text = fitted_cost_toml(report["human"])
        except ValueError as error:
            raise UsageError(f"--cost-out: {error}") from None
        try:
            write_atomic(args.cost_out, text)
        except OSError as error:
            raise UsageError(f"--cost-out {args.cost_out}: cannot write "
                             f"({error.strerror or error})") from None
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return effort_csv(report)
    return effort_table(report)
