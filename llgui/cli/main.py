"""The headless command line: the GUI's numbers for scripts (DESIGN.md section 7).

    llgui score BUNDLE [--metric M ...] [--policy P] [--format table|json|csv]
    llgui replay BUNDLE --doc ID [--metric M] [--mode paper|llmt] [--format table|json|csv]
    llgui lifelong BUNDLE [--policy A|B|C|POLICY.json] [--penalised] [--format table|json|csv]
    llgui det SCORES ... [--key KEY] [--dcf P_TARGET,C_MISS,C_FA] [--format table|json|csv]
    llgui campaign CAMPAIGN.toml [--workers N | --scheduler ADDRESS | --scheduler-file FILE]
                   [--out DIR] [--format ...]
    llgui compare BUNDLE ...|CAMPAIGN --baseline NAME [--test bs|ar] [--unit U] [--samples N]
    llgui simulate BUNDLE --system [NAME=]"COMMAND" ... [--oracle NAME ...] --out DIR

Exit codes: 0 success; 2 bad input (one `FILE:LINE: reason` line per problem on stderr, no
traceback); 1 internal error; 3 the system under evaluation failed (`simulate`). Runs on
llgui.core, llgui.io (and llgui.sim / llgui.campaign for their commands) only: Qt is never imported.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from llgui import __version__
from llgui.cli import options
from llgui.core.errors import LoadError, SystemFailed

FORMATS = ("table", "json", "csv")
# Named in `simulate --help` without importing the simulation (numpy, ~90 ms on every command):
# tests/cli/test_main.py holds them equal to llgui.sim.oracles.ORACLES and
# llgui.sim.run.REFERENCE_SYSTEMS.
ORACLE_NAMES = ("allies", "worst-first", "in-order", "random", "noisy:P")
SYSTEM_NAMES = ("static", "mt_memory", "diar_clusters")


class UsageError(Exception):
    """A bad argument value: reported on stderr with exit code 2."""


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, a function adding its arguments to its parser, and the
    function that runs it (returns the text for stdout; raises LoadError or UsageError for
    exit 2, SystemFailed for exit 3)."""

    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], str]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llgui",
        description="Evaluate lifelong-learning systems that learn from a human expert.",
        epilog="Without a subcommand, `llgui [BUNDLE ... | --demo] [--screenshot PNG]` opens "
               "the window.",
    )
    parser.add_argument("--version", action="version", version=f"llgui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.arguments(sub.add_parser(name, help=command.help))
    return parser


def _format_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="output format (default: table)")


def _arguments_score(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--metric", action="append", metavar="M",
                   help="metric to compute (repeatable; default: the bundle's metrics)")
    p.add_argument("--policy", metavar="A|B|C|POLICY.json",
                   help="also give the policy-weighted mean over document times")
    _cache_flag(p)
    p.add_argument("--mode", choices=("paper", "llmt"), default="paper",
                   help="penalised scores: paper (equation 1 summed over steps) or llmt (the "
                        "WMT 2020/21 lifelong MT scorer, BLEU only, pooled over the stream)")
    _format_flag(p)


def _arguments_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--doc", required=True, metavar="ID", help="document id")
    p.add_argument("--metric", metavar="M", help="metric (default: the bundle's first)")
    p.add_argument("--mode", choices=("paper", "llmt"), default="paper",
                   help="paper: equation 1 summed over steps; llmt: the WMT 2020/21 lifelong "
                        "MT scorer (BLEU only)")
    _cache_flag(p)
    _format_flag(p)


def _arguments_lifelong(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, metavar="BUNDLE")
    p.add_argument("--policy", default="B", metavar="A|B|C|POLICY.json",
                   help="preset A (contemporary), B (uniform), C (past) or a policy file "
                        "(default: B)")
    p.add_argument("--penalised", action="store_true",
                   help="weigh the penalised scores (equation 3) as well as the raw ones")
    p.add_argument("--metric", metavar="M", help="metric of the score table (default: its first)")
    _format_flag(p)


def _arguments_det(p: argparse.ArgumentParser) -> None:
    p.add_argument("scores", type=Path, nargs="*", metavar="SCORES")
    p.add_argument("--pair", type=Path, nargs=2, action="append", default=[],
                   metavar=("TARGETS", "NONTARGETS"),
                   help="a system as a file of target scores and one of non-target scores, one "
                        "score per line (bob.measure, pyeer); repeatable")
    p.add_argument("--key", type=Path, metavar="KEY", help="NIST/Kaldi trial key")
    p.add_argument("--dcf", default="0.01,1,1", metavar="P_TARGET,C_MISS,C_FA",
                   help="DCF parameters (default: 0.01,1,1)")
    p.add_argument("--threshold", type=options.number(), metavar="T",
                   help="also give counts, precision, recall, F1 and error rate when accepting "
                        "score >= T")
    p.add_argument("--eer-method", choices=("rocch", "threshold"), default="rocch",
                   help="EER method (default: rocch, the ROC convex hull)")
    p.add_argument("--calibrated", action="append", default=[], metavar="SYSTEM",
                   help="the scores of SYSTEM are calibrated log-likelihood ratios: no warning "
                        "on its actDCF (repeatable; '*' for every system)")
    _format_flag(p)


def _arguments_campaign(p: argparse.ArgumentParser) -> None:
    p.add_argument("campaign", type=Path, metavar="CAMPAIGN")
    workers = p.add_mutually_exclusive_group()
    workers.add_argument("--workers", type=options.integer(0, options.max_workers()),
                         metavar="N",
                         help="local worker processes (default: every core, or this process "
                              "when the campaign is small; 0: this process)")
    workers.add_argument("--scheduler", metavar="ADDRESS", type=options.non_empty("--scheduler"),
                         help="run the cells on an existing Dask cluster, e.g. "
                              "tcp://HOST:8786 (default: $DASK_SCHEDULER_ADDRESS, Dask's "
                              "scheduler-address setting, when set)")
    workers.add_argument("--scheduler-file", metavar="FILE",
                         type=options.non_empty("--scheduler-file"),
                         help="the cluster whose scheduler wrote FILE (`dask scheduler "
                              "--scheduler-file FILE`, dask-jobqueue)")
    p.add_argument("--threads", type=options.integer(1, 64), metavar="N",
                   help="threads per local worker process (default: 1; scoring is pure "
                        "Python: more processes, not threads)")
    p.add_argument("--memory-limit", metavar="BYTES", type=options.byte_size("--memory-limit"),
                   help="memory limit per local worker process, e.g. 2GB (default: Dask's, "
                        "the machine's memory shared among the workers)")
    p.add_argument("--cell-timeout", type=options.number(above=0, maximum=options.MAX_SECONDS),
                   metavar="SECONDS", default=600.0,
                   help="a cell running longer than this on a worker process is given up "
                        "as a problem naming it (default: 600)")
    p.add_argument("--connect-timeout", metavar="SECONDS", default=20.0,
                   type=options.number(above=0, maximum=3600),
                   help="how long a scheduler has to answer (default: 20)")
    p.add_argument("--out", type=Path, metavar="DIR", help="write the reports into DIR")
    _format_flag(p)


def _arguments_compare(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", type=Path, nargs="+", metavar="BUNDLE|CAMPAIGN",
                   help="one bundle per system, all on the same documents (or one detection "
                        "bundle with several score files, or a campaign file: its online runs)")
    p.add_argument("--baseline", required=True, metavar="NAME",
                   help="the system the others are tested against (a bundle's name, or its "
                        "file stem)")
    p.add_argument("--test", choices=("bs", "ar"), default="bs",
                   help="paired bootstrap (bs) or approximate randomisation (ar); exact "
                        "randomisation on few units (default: bs)")
    p.add_argument("--unit", choices=("segment", "document", "trial", "speaker"),
                   default=None, help="resampling unit (default: segment for MT, document "
                                      "otherwise)")
    p.add_argument("--samples", type=options.integer(1, options.MAX_SAMPLES), default=None,
                   metavar="N", help=f"resamples (default: 1000 for bs, 10000 for ar; at "
                                     f"most {options.MAX_SAMPLES:,})")
    p.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=12345,
                   metavar="S", help="seed of the resampling, as sacrebleu's (default: 12345)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="metric to compare (repeatable; default: the bundles' metrics)")
    p.add_argument("--dcf", metavar="P_TARGET,C_MISS,C_FA",
                   help="detection: the operating point of minDCF and actDCF, as in `det` "
                        "(default: 0.01,1,1)")
    _format_flag(p)


def _arguments_simulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, metavar="BUNDLE",
                   help="the documents, references and (optionally) the hypotheses to start from")
    p.add_argument("--system", action="append", required=True, metavar='[NAME=]"COMMAND"',
                   help="the system under evaluation: a command speaking the protocol, or a "
                        f"built-in reference system ({', '.join(SYSTEM_NAMES)}); "
                        "repeatable")
    p.add_argument("--oracle", action="append", metavar="NAME",
                   help=f"the simulated human: {', '.join(ORACLE_NAMES)} (noisy:P wraps another, "
                        "e.g. noisy:0.1:worst-first); repeatable (default: allies)")
    p.add_argument("--budget", type=options.number(0, 1e15), metavar="X",
                   help="per document, in cost-model units (MT: reference words, or characters "
                        "for scripts without spaces; diarization: seconds listened) (default: "
                        "60 %% of the reference for MT, 60 s for diarization)")
    p.add_argument("--mode", choices=("active", "interactive", "none"),
                   help="every document's mode (default: the oracle's: allies is active, the "
                        "others interactive)")
    p.add_argument("--interactive-ratio", type=options.number(0, 1), metavar="R",
                   help="share of documents in interactive mode, drawn per document with the "
                        "seed, as ALLIES (default: unset)")
    p.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=0, metavar="S",
                   help="seed of the oracles and of the system's hello (default: 0)")
    p.add_argument("--timeout", type=options.number(above=0, maximum=options.MAX_SECONDS),
                   default=30.0, metavar="SEC",
                   help="seconds the system may take for one reply before the run ends with "
                        "exit 3 (default: 30)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="the run folder: bundle.toml, hyp/, logs/system.jsonl, run.json "
                        "(DIR/SYSTEM/ORACLE/ with several)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _format_flag(p)


def _cache_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="compute every segment's statistics afresh and write no cache "
                        "(cache: $LLGUI_CACHE_DIR, default the platform cache folder; size "
                        "limit $LLGUI_CACHE_MAX_MB, default 512)")


@contextlib.contextmanager
def _scoring(args):
    """The context of a scoring command: the statistics cache on or off, a progress bar on a
    terminal's stderr (llgui.cli.progress)."""
    from llgui.cli.progress import scoring_progress
    from llgui.core.mt import stats_cache

    if getattr(args, "no_cache", False):
        stats_cache.configure(enabled=False)
    try:
        with scoring_progress(f"llgui {args.command}"):
            yield
    finally:
        stats_cache.configure(enabled=None)


def commands_help() -> str:
    """The subcommands, one line each, for the epilog of `llgui --help` (one usage, not two)."""
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    width = max(len(c.dest) for c in action._choices_actions)
    lines = [f"  llgui {c.dest.ljust(width)}  {c.help}" for c in action._choices_actions]
    return ("headless commands (no window; `llgui COMMAND --help` for their options):\n"
            + "\n".join(lines))


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so every `finally` runs (a system's process
    group is ended, files are closed) as for Ctrl-C."""


@contextlib.contextmanager
def _terminate_as_interrupt():
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):   # pragma: no cover - not settable here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if not args.command:
        parser.print_help()
        return 0
    try:
        with _terminate_as_interrupt():
            if not getattr(args, "no_cache", False):
                try:
                    options.check_environment()
                except ValueError as error:
                    raise UsageError(str(error)) from None
            text = COMMANDS[args.command].run(args)
    except KeyboardInterrupt:   # Ctrl-C or SIGTERM: the job was stopped, its children ended
        print(f"llgui {args.command}: interrupted; nothing more was done", file=sys.stderr)
        return 2
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

    bundle = load_bundle(path)
    for warning in bundle.warnings:   # the load goes on; the numbers they concern say so
        print(warning, file=sys.stderr)
    return bundle


def _policy(spec: str):
    """A preset letter or a policy file."""
    from llgui.core.across_time.policy import PRESETS
    from llgui.io.policy_file import load_policy

    if spec.upper() in PRESETS:
        return spec.upper(), PRESETS[spec.upper()]
    path = Path(spec)
    if not path.exists():
        raise UsageError(f"policy {spec!r} is neither A, B, C nor an existing policy file")
    return str(path), load_policy(path)


def cmd_score(args) -> str:
    from llgui.core.reports import commands as reports
    from llgui.io import export

    bundle = _load(args.bundle)
    if bundle.task == "detection":
        return _det_output(bundle.detection, (0.01, 1.0, 1.0), "rocch", args.format)
    metrics = tuple(args.metric) if args.metric else bundle.metrics
    _check_metrics(bundle.task, metrics)
    policy = _policy(args.policy) if args.policy else None
    if args.mode == "llmt" and (bundle.task != "mt" or "bleu" not in metrics):
        raise UsageError("mode llmt is the WMT lifelong MT scorer: it needs an MT bundle and "
                         "the bleu metric")
    with _scoring(args):
        report = reports.score_report(bundle, metrics, policy, mode=args.mode)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.score_csv(report)
    return export.score_table(report)


def _check_metrics(task: str, metrics: Sequence[str]) -> None:
    from llgui.core.metrics import metrics_for

    for m in metrics:
        if m not in metrics_for(task):
            raise UsageError(f"metric {m!r} does not apply to {task} bundles "
                             f"(known: {', '.join(metrics_for(task))})")


def cmd_replay(args) -> str:
    from llgui.core.metrics import default_replay, info, replay_metrics
    from llgui.core.penalty import make_track, replay
    from llgui.core.reports import commands as reports
    from llgui.io import export

    bundle = _load(args.bundle)
    if bundle.task == "detection" and not bundle.steps:
        raise UsageError(f"{args.bundle} has no interaction log to replay")
    metric = args.metric or bundle.metrics[0]
    _check_metrics(bundle.task, [metric])
    if not info(metric).replayable:   # a detection bundle's EER
        if args.metric is not None:
            options = [info(m).name_with_note for m in replay_metrics(bundle.task)]
            listed = " or ".join(filter(None, (", ".join(options[:-1]), options[-1])))
            raise UsageError(f"{metric} has no penalised form here: replay {listed}")
        metric = default_replay(bundle.task)
    try:
        document = bundle.document(args.doc)
    except KeyError:
        known = ", ".join(d.id for d in bundle.documents[:10])
        raise UsageError(f"no document {args.doc!r} in {args.bundle} (documents: {known}"
                         + (", ..." if len(bundle.documents) > 10 else "") + ")") from None
    if args.mode == "llmt" and metric != "bleu":
        raise UsageError("mode llmt is the WMT lifelong MT scorer: it is defined for bleu only")
    with _scoring(args):
        try:
            track = make_track(document, metric, bundle.settings, bundle.cost,
                               bundle.documents)
            # a second track for the memorise-only reference (figure 4 of the paper), where
            # the task has corrected hypotheses (MT, diarization)
            twin = (make_track(document, metric, bundle.settings, bundle.cost,
                               bundle.documents)
                    if hasattr(track, "corrected_hypothesis") else None)
        except ValueError as error:   # e.g. a detection operating point outside (0, 1)
            raise UsageError(str(error)) from None
        result = replay(track, bundle.steps_of(document.id), bundle.cost, doc=document.id,
                        mode=args.mode, memorise=twin)
    report = reports.replay_report(result)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.replay_csv(report)
    return export.replay_table(report)


def cmd_lifelong(args) -> str:
    from llgui.core.reports import commands as reports
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
    report = reports.lifelong_report(table, metric, name, policy, penalised=args.penalised)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.lifelong_csv(report)
    return export.lifelong_table(report)


def cmd_det(args) -> str:
    from llgui.core.errors import Problem
    from llgui.io.detection import load_key, load_scores

    dcf = _parse_dcf(args.dcf)
    if not args.scores and not args.pair:
        raise UsageError("give score files, or --pair TARGETS NONTARGETS")
    key = load_key(args.key) if args.key is not None else None   # read once for all systems
    trials, problems = [], []
    for path in args.scores:
        try:
            trials.append(load_scores(path, key=key))
        except LoadError as error:
            problems.extend(error.problems)
    for targets, nontargets in args.pair:   # bob.measure / pyeer layout
        from llgui.io.detection import load_score_pair

        try:
            trials.append(load_score_pair(targets, nontargets))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    names = [t.name for t in trials]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise LoadError([Problem(str(trials[names.index(dup)].path), 0,
                                 f"two score files are named {dup!r}: systems are named by "
                                 "file stem, rename one")])
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise UsageError(f"--threshold {args.threshold}: expected a finite number")
    return _det_output(trials, dcf, args.eer_method, args.format, args.calibrated,
                       args.threshold)


def _det_output(trials, dcf, method: str, fmt: str, calibrated=(),
                threshold: float | None = None) -> str:
    from llgui.core.reports import commands as reports
    from llgui.io import export

    report = reports.det_report(trials, dcf, method, calibrated, threshold)
    if fmt == "json":
        return export.to_json(report)
    if fmt == "csv":
        return export.det_csv(report)
    return export.det_table(report)


def _parse_dcf(text: str) -> tuple[float, float, float]:
    from llgui.core.numbers import parse_number

    parts = text.split(",")
    try:
        values = tuple(parse_number(p.strip()) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise UsageError(f"--dcf {text!r}: expected three finite numbers P_TARGET,C_MISS,C_FA")
    p, c_miss, c_fa = values
    if not 0 < p < 1 or c_miss <= 0 or c_fa <= 0:
        raise UsageError(f"--dcf {text!r}: need 0 < P_TARGET < 1, C_MISS > 0 and C_FA > 0")
    return values  # type: ignore[return-value]



# --------------------------------------------------------------------------------------------
# Campaign (issue 14)


def cmd_campaign(args) -> str:
    """Score a campaign on Dask (llgui.campaign); exit 2 after writing partial results when any
    file was wrong (every problem listed on stderr)."""
    from llgui.cli.progress import CellProgress, fraction_progress
    from llgui.campaign.run import run_campaign
    from llgui.io.campaign import load_campaign
    from llgui.io.campaign_export import campaign_csv, campaign_table, to_json, write_campaign

    if (args.threads or args.memory_limit) and (args.scheduler or args.scheduler_file):
        raise UsageError("--threads and --memory-limit set the workers of a local cluster; "
                         "a running cluster's workers take theirs from `dask worker "
                         "--nthreads N --memory-limit BYTES`")
    shown, close = fraction_progress("reading the campaign")
    if shown is None:   # piped: a line per long phase (a bar on a terminal)
        print(f"llgui campaign: reading {args.campaign}", file=sys.stderr, flush=True)
    try:
        campaign = load_campaign(args.campaign, progress=shown)
    finally:
        close()
    if args.out is not None:   # before any work: a run must not end in a write that fails
        inputs = [campaign.path] + [r for b in campaign.batches for r in b.references] + [
            c.hypothesis for c in campaign.cells] + [s.bundle for s in campaign.systems
                                                     if s.bundle]
        try:
            options.output_folder(args.out, "--out", inputs, writes=("campaign.json",
                                                                      "lifelong"))
        except ValueError as error:
            raise UsageError(str(error)) from None
    from llgui.campaign.executor import SchedulerUnreachable

    progress = CellProgress()
    try:
        run = run_campaign(campaign, workers=args.workers, scheduler=args.scheduler,
                           scheduler_file=args.scheduler_file, threads=args.threads or 1,
                           memory_limit=args.memory_limit, cell_seconds=args.cell_timeout,
                           connect_seconds=args.connect_timeout,
                           progress=progress, waiting=progress.note,
                           announce=lambda text: print(f"llgui campaign: {text}",
                                                       file=sys.stderr, flush=True))
    except SchedulerUnreachable as error:
        raise UsageError(str(error)) from None
    finally:
        progress.close()
    print(f"llgui campaign: {len(campaign.cells)} cells: {run.cached} from the cache, "
          f"{run.computed} computed"
          + (f", {run.failed} not scored (problems below)" if run.failed else "")
          + (f", {run.corrupt} damaged cache entries recomputed" if run.corrupt else "")
          + (f"; {len(campaign.gaps)} missing (no hypothesis file)" if campaign.gaps else ""),
          file=sys.stderr, flush=True)
    if run.unwritable:
        print(f"llgui campaign: the cell cache was not written ({run.unwritable})",
              file=sys.stderr, flush=True)
    if args.out is not None:
        print(f"llgui campaign: writing {args.out} ({len(run.report['systems'])} lifelong "
              f"tables and campaign.json)", file=sys.stderr, flush=True)
        shown, close = fraction_progress("writing")
        try:
            write_campaign(run.report, args.out, progress=shown)
        except OSError as error:
            raise UsageError(f"--out {args.out}: cannot write the reports "
                             f"({error.strerror or type(error).__name__})") from None
        finally:
            close()
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
    from llgui.core.reports.compare import DEFAULT_UNIT, compare_bundles
    from llgui.core.significance.resample import DEFAULT_SAMPLES, Plan
    from llgui.io import export
    from llgui.io.compare_report import compare_csv, compare_table

    if args.samples is not None and args.samples < 1:
        raise UsageError(f"--samples {args.samples}: need at least 1")
    problems, bundles = [], []
    for path in args.inputs:
        try:
            if _is_campaign(path):
                bundles.extend(_campaign_online_bundles(path))
            else:
                bundles.append(_load(path))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    task = bundles[0].task
    unit = args.unit or DEFAULT_UNIT.get(task, "document")
    samples = args.samples or DEFAULT_SAMPLES[args.test]
    if args.metric:
        _check_metrics(task, args.metric)
    if args.dcf is not None and task != "detection":
        raise UsageError(f"--dcf applies to detection bundles, not to {task}")
    dcf = _parse_dcf(args.dcf) if args.dcf is not None else (0.01, 1.0, 1.0)
    from llgui.cli.progress import fraction_progress

    progress, close = fraction_progress("llgui compare")
    try:
        plan = Plan(args.test, samples, args.seed, unit)
        comparison = compare_bundles(bundles, args.baseline, plan, args.metric, dcf=dcf,
                                     progress=progress)
    except ValueError as error:
        raise UsageError(str(error)) from None
    finally:
        close()
    report = comparison.report()
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return compare_csv(report)
    return compare_table(report)


def _campaign_online_bundles(path: Path) -> list:
    """The online runs (`bundle = ...`) of a campaign's systems, each named by its system:
    the runs a paired test compares on the same documents. Systems without an online run
    take no part (their cells are scored by `llgui campaign`)."""
    import dataclasses

    from llgui.io.campaign import load_campaign

    campaign = load_campaign(path)
    if campaign.problems:
        raise LoadError(campaign.problems)
    bundles = []
    for system in campaign.systems:
        if system.bundle is not None:
            bundles.append(dataclasses.replace(_load(Path(system.bundle)), name=system.name))
    if not bundles:
        raise UsageError(f"{path}: no system of this campaign has an online run (`bundle = "
                         "...`) to compare")
    return bundles


def _is_campaign(path: Path) -> bool:
    from llgui.io.campaign import is_campaign_file

    return is_campaign_file(path)


# --------------------------------------------------------------------------------------------
# Simulate (issue 12)


def cmd_simulate(args) -> str:
    from llgui.cli.simulate import simulate_command

    try:
        return simulate_command(args)
    except ValueError as error:
        raise UsageError(str(error)) from None


# --------------------------------------------------------------------------------------------
# The command table: every subcommand, its one-line help, its arguments, what runs it.

COMMANDS: dict[str, Command] = {
    "score": Command("score the hypotheses of a bundle, per document and pooled",
        _arguments_score, cmd_score),
    "replay": Command("penalised scores of one document, step by step",
        _arguments_replay, cmd_replay),
    "lifelong": Command("user-policy scores S_P of every model version",
        _arguments_lifelong, cmd_lifelong),
    "det": Command("DET summary (EER, minDCF, actDCF) of detection scores",
        _arguments_det, cmd_det),
    "campaign": Command("score a campaign: systems x model versions x batches",
        _arguments_campaign, cmd_campaign),
    "compare": Command("compare systems against a baseline, with intervals",
        _arguments_compare, cmd_compare),
    "simulate": Command("drive a system with a simulated human expert",
        _arguments_simulate, cmd_simulate),
}
SUBCOMMANDS = tuple(COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
