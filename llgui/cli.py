"""The headless command line: the GUI's numbers for scripts (DESIGN.md section 7).

    llgui score BUNDLE [--metric M ...] [--policy P] [--format table|json|csv]
    llgui replay BUNDLE --doc ID [--metric M] [--mode paper|llmt] [--format table|json|csv]
    llgui lifelong BUNDLE [--policy A|B|C|POLICY.json] [--penalised] [--format table|json|csv]
    llgui det SCORES ... [--key KEY] [--dcf P_TARGET,C_MISS,C_FA] [--format table|json|csv]
    llgui campaign CAMPAIGN.toml [--workers N | --scheduler ADDRESS] [--out DIR] [--format ...]
    llgui compare BUNDLE ...|CAMPAIGN --baseline NAME [--test bs|ar] [--unit U] [--samples N]
    llgui simulate BUNDLE --system [NAME=]"COMMAND" ... [--oracle NAME ...] --out DIR

Exit codes: 0 success; 2 bad input (one `FILE:LINE: reason` line per problem on stderr, no
traceback); 1 internal error; 3 the system under evaluation failed (`simulate`). Runs on
llgui.core, llgui.io (and llgui.sim / llgui.dist for their commands) only: Qt is never imported.
"""
from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import Callable, Sequence

from llgui import __version__
from llgui.core.errors import LoadError, SystemFailed

SUBCOMMANDS = ("score", "replay", "lifelong", "det", "campaign", "compare", "simulate")
FORMATS = ("table", "json", "csv")


class UsageError(Exception):
    """A bad argument value: reported on stderr with exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llgui",
        description="Evaluate lifelong-learning systems that learn from a human expert.",
        epilog="Without a subcommand, `llgui [BUNDLE ... | --demo] [--screenshot PNG]` opens "
               "the window.",
    )
    parser.add_argument("--version", action="version", version=f"llgui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--format", choices=FORMATS, default="table",
                       help="output format (default: table)")

    p = sub.add_parser("score", help="score the hypotheses of a bundle, per document and pooled")
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--metric", action="append", metavar="M",
                   help="metric to compute (repeatable; default: the bundle's metrics)")
    p.add_argument("--policy", metavar="A|B|C|POLICY.json",
                   help="also give the policy-weighted mean over document times")
    common(p)

    p = sub.add_parser("replay", help="penalised scores of one document, step by step")
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--doc", required=True, metavar="ID", help="document id")
    p.add_argument("--metric", metavar="M", help="metric (default: the bundle's first)")
    p.add_argument("--mode", choices=("paper", "llmt"), default="paper",
                   help="paper: equation 1 summed over steps; llmt: the WMT 2020/21 lifelong "
                        "MT scorer (BLEU only)")
    common(p)

    p = sub.add_parser("lifelong", help="user-policy scores S_P of every model version")
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--policy", default="B", metavar="A|B|C|POLICY.json",
                   help="preset A (contemporary), B (uniform), C (past) or a policy file "
                        "(default: B)")
    p.add_argument("--penalised", action="store_true",
                   help="weigh the penalised scores (equation 3) as well as the raw ones")
    p.add_argument("--metric", metavar="M", help="metric of the score table (default: its first)")
    common(p)

    p = sub.add_parser("det", help="DET summary (EER, minDCF, actDCF) of detection scores")
    p.add_argument("scores", type=Path, nargs="+", metavar="SCORES")
    p.add_argument("--key", type=Path, metavar="KEY", help="NIST/Kaldi trial key")
    p.add_argument("--dcf", default="0.01,1,1", metavar="P_TARGET,C_MISS,C_FA",
                   help="DCF parameters (default: 0.01,1,1)")
    p.add_argument("--eer-method", choices=("rocch", "threshold"), default="rocch",
                   help="EER method (default: rocch, the ROC convex hull)")
    common(p)

    # ---- campaign (issue 14): cells on Dask; the command lives in cmd_campaign below
    p = sub.add_parser("campaign", help="score a campaign: systems x model versions x batches")
    p.add_argument("campaign", type=Path, metavar="CAMPAIGN")
    workers = p.add_mutually_exclusive_group()
    workers.add_argument("--workers", type=int, metavar="N",
                         help="local worker processes (default: every core, or this process "
                              "when the campaign is small; 0: this process)")
    workers.add_argument("--scheduler", metavar="ADDRESS",
                         help="run the cells on an existing Dask cluster")
    p.add_argument("--out", type=Path, metavar="DIR", help="write the reports into DIR")
    common(p)

    # ---- compare (issue 15): paired significance tests against a baseline
    p = sub.add_parser("compare", help="compare systems against a baseline, with intervals")
    p.add_argument("inputs", type=Path, nargs="+", metavar="BUNDLE|CAMPAIGN")
    p.add_argument("--baseline", required=True, metavar="NAME")
    p.add_argument("--test", choices=("bs", "ar"), default="bs",
                   help="paired bootstrap (bs) or approximate randomisation (ar)")
    p.add_argument("--unit", choices=("segment", "document", "trial", "speaker"),
                   default=None, help="resampling unit (default: segment for MT, document "
                                      "otherwise)")
    p.add_argument("--samples", type=int, default=None, metavar="N")
    p.add_argument("--seed", type=int, default=12345, metavar="S")
    p.add_argument("--metric", action="append", metavar="M")
    common(p)

    # ---- simulate (issue 12): drive a real system with a simulated human
    p = sub.add_parser("simulate", help="drive a system with a simulated human expert")
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--system", action="append", required=True, metavar='[NAME=]"COMMAND"')
    p.add_argument("--oracle", action="append", metavar="NAME")
    p.add_argument("--budget", type=float, metavar="X")
    p.add_argument("--mode", choices=("active", "interactive", "none"))
    p.add_argument("--interactive-ratio", type=float, metavar="R")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SEC")
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    common(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if not args.command:
        parser.print_help()
        return 0
    command: Callable = globals()[f"cmd_{args.command}"]
    try:
        text = command(args)
    except SystemFailed as error:   # the system under evaluation failed: exit 3
        print(f"llgui {args.command}: {error}", file=sys.stderr)
        return 3
    except LoadError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return 2
    except UsageError as error:
        print(f"llgui {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception:  # an internal error: say so, with the traceback for the bug report
        print(f"llgui {args.command}: internal error, please report:", file=sys.stderr)
        traceback.print_exc()
        return 1
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


# --------------------------------------------------------------------------------------------
# Commands: each returns the text to print


def _load(path: Path):
    from llgui.io.bundle import load_bundle

    return load_bundle(path)


def _policy(spec: str):
    """A preset letter or a policy file."""
    from llgui.core.policy import PRESETS, load_policy

    if spec.upper() in PRESETS:
        return spec.upper(), PRESETS[spec.upper()]
    path = Path(spec)
    if not path.exists():
        raise UsageError(f"policy {spec!r} is neither A, B, C nor an existing policy file")
    return str(path), load_policy(path)


def cmd_score(args) -> str:
    from llgui.io import export

    bundle = _load(args.bundle)
    if bundle.task == "detection":
        return _det_output(bundle.detection, (0.01, 1.0, 1.0), "rocch", args.format)
    metrics = tuple(args.metric) if args.metric else bundle.metrics
    _check_metrics(bundle.task, metrics)
    policy = _policy(args.policy) if args.policy else None
    report = export.score_report(bundle, metrics, policy)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.score_csv(report)
    return export.score_table(report)


def _check_metrics(task: str, metrics: Sequence[str]) -> None:
    from llgui.core.types import KNOWN_METRICS

    for m in metrics:
        if m not in KNOWN_METRICS[task]:
            raise UsageError(f"metric {m!r} does not apply to {task} bundles "
                             f"(known: {', '.join(KNOWN_METRICS[task])})")


def cmd_replay(args) -> str:
    from llgui.core.penalty import make_track, replay
    from llgui.io import export

    bundle = _load(args.bundle)
    if bundle.task == "detection":
        raise UsageError("detection bundles have no interaction log to replay")
    metric = args.metric or bundle.metrics[0]
    _check_metrics(bundle.task, [metric])
    try:
        document = bundle.document(args.doc)
    except KeyError:
        known = ", ".join(d.id for d in bundle.documents[:10])
        raise UsageError(f"no document {args.doc!r} in {args.bundle} (documents: {known}"
                         + (", ..." if len(bundle.documents) > 10 else "") + ")") from None
    if args.mode == "llmt" and metric != "bleu":
        raise UsageError("mode llmt is the WMT lifelong MT scorer: it is defined for bleu only")
    track = make_track(document, metric, bundle.settings, bundle.cost, bundle.documents)
    result = replay(track, bundle.steps_of(document.id), bundle.cost, doc=document.id,
                    mode=args.mode)
    report = export.replay_report(result)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.replay_csv(report)
    return export.replay_table(report)


def cmd_lifelong(args) -> str:
    from llgui.io import export

    bundle = _load(args.bundle)
    if bundle.lifelong is None:
        raise UsageError(f"{args.bundle} has no [lifelong] score table")
    table = bundle.lifelong
    metric = args.metric or table.metrics[0]
    if metric not in table.metrics:
        raise UsageError(f"the score table has no metric {metric!r} "
                         f"(it has: {', '.join(table.metrics)})")
    if args.penalised and metric not in table.values_pen:
        raise UsageError("--penalised needs a value_pen column in the score table")
    name, policy = _policy(args.policy)
    report = export.lifelong_report(table, metric, name, policy, penalised=args.penalised)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.lifelong_csv(report)
    return export.lifelong_table(report)


def cmd_det(args) -> str:
    from llgui.core.errors import Problem
    from llgui.io.detection import load_key, load_scores

    dcf = _parse_dcf(args.dcf)
    key = load_key(args.key) if args.key is not None else None   # read once for all systems
    trials, problems = [], []
    for path in args.scores:
        try:
            trials.append(load_scores(path, key=key))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    names = [t.name for t in trials]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise LoadError([Problem(str(args.scores[names.index(dup)]), 0,
                                 f"two score files are named {dup!r}: systems are named by "
                                 "file stem, rename one")])
    return _det_output(trials, dcf, args.eer_method, args.format)


def _det_output(trials, dcf, method: str, fmt: str) -> str:
    from llgui.io import export

    report = export.det_report(trials, dcf, method)
    if fmt == "json":
        return export.to_json(report)
    if fmt == "csv":
        return export.det_csv(report)
    return export.det_table(report)


def _parse_dcf(text: str) -> tuple[float, float, float]:
    parts = text.split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise UsageError(f"--dcf {text!r}: expected three numbers P_TARGET,C_MISS,C_FA")
    p, c_miss, c_fa = values
    if not 0 < p < 1 or c_miss <= 0 or c_fa <= 0:
        raise UsageError(f"--dcf {text!r}: need 0 < P_TARGET < 1, C_MISS > 0 and C_FA > 0")
    return values  # type: ignore[return-value]



# --------------------------------------------------------------------------------------------
# Campaign (issue 14)


def cmd_campaign(args) -> str:
    """Score a campaign on Dask (llgui.dist); exit 2 after writing partial results when any
    file was wrong (every problem listed on stderr)."""
    from llgui.dist.progress import CellProgress
    from llgui.dist.run import run_campaign
    from llgui.io.campaign import load_campaign
    from llgui.io.campaign_export import campaign_csv, campaign_table, to_json, write_campaign

    if args.workers is not None and args.workers < 0:
        raise UsageError(f"--workers {args.workers}: expected 0 (in this process) or more")
    campaign = load_campaign(args.campaign)
    from llgui.dist.executor import SchedulerUnreachable

    progress = CellProgress()
    try:
        run = run_campaign(campaign, workers=args.workers, scheduler=args.scheduler,
                           progress=progress,
                           announce=lambda text: print(f"llgui campaign: running {text}",
                                                       file=sys.stderr, flush=True))
    except SchedulerUnreachable as error:
        raise UsageError(str(error)) from None
    finally:
        progress.close()
    print(f"llgui campaign: {len(campaign.cells)} cells: {run.cached} from the cache, "
          f"{run.computed} computed"
          + (f", {run.corrupt} damaged cache entries recomputed" if run.corrupt else "")
          + (f"; {len(campaign.gaps)} missing (no hypothesis file)" if campaign.gaps else ""),
          file=sys.stderr, flush=True)
    if args.out is not None:
        write_campaign(run.report, args.out)
    if args.format == "json":
        text = to_json(run.report)
    elif args.format == "csv":
        text = campaign_csv(run.report)
    else:
        text = campaign_table(run.report)
    if run.partial:
        sys.stdout.write(text)  # the partial results, marked partial; the problems follow
        sys.stdout.flush()
        problems = [p for p in campaign.problems] + list(run.scores.problems)
        raise LoadError(sorted(set(problems), key=lambda p: (p.file, p.line == 0, p.line)))
    return text


# --------------------------------------------------------------------------------------------
# Compare (issue 15)


def cmd_compare(args) -> str:
    raise UsageError("compare: not implemented yet")


# --------------------------------------------------------------------------------------------
# Simulate (issue 12)


def cmd_simulate(args) -> str:
    raise UsageError("simulate: not implemented yet")


if __name__ == "__main__":
    sys.exit(main())
