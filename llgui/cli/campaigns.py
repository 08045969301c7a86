"""The commands over many systems: `llgui campaign` (issue 14: score a campaign on Dask, by
llgui.campaign through the API) and `llgui compare` (issue 15: systems against a baseline, or
all pairs, with intervals), their arguments and what runs them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from llgui.cli import options
from llgui.cli.compare_pairs import _pairs_arguments, campaign_cells, pairs_options, pairs_output
from llgui.cli.inputs import _check_input, _format_flag, _load
from llgui.core.errors import LoadError, UsageError


def _arguments_campaign(p: argparse.ArgumentParser) -> None:
    p.add_argument("campaign", type=Path, metavar="CAMPAIGN", help="the campaign file (.toml)")
    workers = p.add_mutually_exclusive_group()
    workers.add_argument("--workers", type=options.bounded("workers"),
                         metavar="N",
                         help="local worker processes (default: measured: the first cells "
                              "are timed in this process, and workers start only when they "
                              "would finish the rest sooner; 0: this process)")
    workers.add_argument("--scheduler", metavar="ADDRESS", type=options.non_empty("--scheduler"),
                         help="run the cells on an existing Dask cluster, e.g. "
                              "tcp://HOST:8786 (default: $DASK_SCHEDULER_ADDRESS, Dask's "
                              "scheduler-address setting, when set)")
    workers.add_argument("--scheduler-file", metavar="FILE",
                         type=options.non_empty("--scheduler-file"),
                         help="the cluster whose scheduler wrote FILE (`dask scheduler "
                              "--scheduler-file FILE`, dask-jobqueue; default: none)")
    p.add_argument("--threads", type=options.bounded("threads"), metavar="N",
                   help="threads per local worker process (default: 1; scoring is pure "
                        "Python: more processes, not threads)")
    p.add_argument("--memory-limit", metavar="BYTES", type=options.byte_size("--memory-limit"),
                   help="memory limit per local worker process, 64MB to 1PB, e.g. 2GB "
                        "(default: Dask's, the machine's memory shared among the workers)")
    p.add_argument("--cell-timeout", type=options.bounded("cell_timeout"),
                   metavar="SECONDS", default=600.0,
                   help="a cell running longer than this on a worker process is given up "
                        "as a problem naming it (default: 600)")
    p.add_argument("--connect-timeout", metavar="SECONDS", default=20.0,
                   type=options.bounded("connect_timeout"),
                   help="how long a scheduler has to answer (default: 20)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write the reports into DIR (default: standard output only)")
    _format_flag(p)


def _arguments_compare(p: argparse.ArgumentParser) -> None:
    p.add_argument("inputs", type=Path, nargs="+", metavar="BUNDLE|CAMPAIGN",
                   help="one bundle per system, all on the same documents (or one detection "
                        "bundle with several score files, or a campaign file: its online runs)")
    p.add_argument("--baseline", metavar="NAME",
                   help="the system the others are tested against (a bundle's name, or its "
                        "file stem; default: none, then --all-pairs is needed)")
    _pairs_arguments(p)
    p.add_argument("--test", choices=("bs", "ar"), default="bs",
                   help="paired bootstrap (bs) or approximate randomisation (ar); exact "
                        "randomisation on few units (default: bs)")
    p.add_argument("--unit", choices=("segment", "document", "trial", "speaker"),
                   default=None, help="resampling unit (default: segment for MT, document "
                                      "otherwise)")
    p.add_argument("--samples", type=options.bounded("samples"), default=None,
                   metavar="N", help=f"resamples (default: 1000 for bs, 10000 for ar; at "
                                     f"most {options.MAX_SAMPLES:,})")
    p.add_argument("--seed", type=options.bounded("seed"), default=12345,
                   metavar="S", help="seed of the resampling, as sacrebleu's (default: 12345)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="metric to compare (repeatable; default: the bundles' metrics)")
    p.add_argument("--dcf", metavar="P_TARGET,C_MISS,C_FA",
                   help="detection: the operating point of minDCF and actDCF, as in `det` "
                        "(default: 0.01,1,1)")
    _format_flag(p)


def damaged_note(paths, shown: int = 3) -> str:
    """The damaged cache entries a run or a compare found (`paths`, each with what it held):
    how many, and which (the first `shown`), removed and recomputed."""
    paths = list(paths)
    names = ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more"
                                        if len(paths) > shown else "")
    return (f"{len(paths)} damaged cache entr{'y' if len(paths) == 1 else 'ies'} "
            f"recomputed" + (f" ({names})" if names else ""))


def _announce(text: str, progress) -> None:
    """The line saying how the cells run; when workers take over from the cells timed here,
    the progress rate starts again from their first (`CellProgress.rebase`)."""
    if text.startswith("running ") and "Dask cluster" in text.split("(")[0]:
        progress.rebase()
    if progress.bar is not None:   # on a terminal: a line of its own, above the bar
        progress.bar.write(f"llgui campaign: {text}", file=sys.stderr)
        return
    print(f"llgui campaign: {text}", file=sys.stderr, flush=True)


def cmd_campaign(args) -> str:
    """Score a campaign on Dask (llgui.campaign); exit 2 after writing partial results when any
    file was wrong (every problem listed on stderr)."""
    from llgui.cli.progress import CellProgress, fraction_progress
    from llgui.io.campaign import load_campaign
    from llgui.io.campaign_export import campaign_csv, campaign_table, to_json, write_campaign

    if (args.threads or args.memory_limit) and (args.scheduler or args.scheduler_file):
        raise UsageError("--threads and --memory-limit set the workers of a local cluster; "
                         "a running cluster's workers take theirs from `dask worker "
                         "--nthreads N --memory-limit BYTES`")
    if (args.threads or args.memory_limit) and args.workers == 0:   # (outsider helper-53)
        print("llgui campaign: note: --threads and --memory-limit set local worker processes; "
              "--workers 0 scores the cells in this process, without them", file=sys.stderr,
              flush=True)
    _check_input(args.campaign)
    shown, close = fraction_progress("reading the campaign")
    if shown is None:   # piped: a line per long phase (a bar on a terminal)
        print(f"llgui campaign: reading {args.campaign}", file=sys.stderr, flush=True)
    try:
        campaign = load_campaign(args.campaign, progress=shown)
    finally:
        close()
    for warning in campaign.warnings:   # as a bundle's (`_load`): the run goes on
        print(warning, file=sys.stderr)
    if args.out is not None:   # before any work: a run must not end in a write that fails
        inputs = [campaign.path] + [r for b in campaign.batches for r in b.references] + [
            c.hypothesis for c in campaign.cells] + [s.bundle for s in campaign.systems
                                                     if s.bundle]
        try:
            options.output_folder(args.out, "--out", inputs, writes=("campaign.json",
                                                                      "lifelong"))
        except ValueError as error:
            raise UsageError(str(error)) from None
    from llgui import api

    online = sum(1 for s in campaign.systems if getattr(s, "bundle", None))
    # the online runs are scored too, and counted: said on every line (issue 35; outsider:
    # "18/18 cells" beside "16 cells and 2 online runs")
    progress = CellProgress(unit="cells and online runs" if online else "cells")
    try:
        run = api.campaign_run(campaign, workers=args.workers, scheduler=args.scheduler,
                               scheduler_file=args.scheduler_file, threads=args.threads or 1,
                               memory_limit=args.memory_limit, cell_seconds=args.cell_timeout,
                               connect_seconds=args.connect_timeout,
                               progress=progress, waiting=progress.note,
                               failures=progress.failed,
                               announce=lambda text: _announce(text, progress))
    except KeyboardInterrupt as stop:   # Ctrl-C, SIGTERM: say what the stopped run left
        kept = progress.kept(cached=options.check_environment() is None)
        if kept:
            stop.args = (f"{str(stop) or 'interrupted'}; {kept}",)
        raise
    finally:
        progress.close()
    if ((args.threads or args.memory_limit) and args.workers is None and run.plan is not None
            and run.plan.kind == "in-process"):   # (outsider helper-54)
        print("llgui campaign: note: --threads and --memory-limit were not used: the cells "
              "were scored in this process (--workers N starts worker processes)",
              file=sys.stderr, flush=True)
    # cells whose output path could not be used (a FIFO, a folder: a problem of the file)
    left_out = (sum(len(s.models) for s in campaign.systems) * len(campaign.batches)
                - len(campaign.cells) - len(campaign.gaps))
    # the summary says the same: "18/18 cells and online runs", then "16 cells and 2 online
    # runs" (issue 35)
    print(f"llgui campaign: {len(campaign.cells)} cell{'s' * (len(campaign.cells) != 1)}"
          + (f" and {online} online run{'s' * (online != 1)}" if online else "")
          + f": {run.cached} {'cells ' if online else ''}from the cache, "
          f"{run.computed} computed"
          + (f" ({run.scored} file{'s' if run.scored != 1 else ''} scored: cells of the same "
             f"content are scored once)" if run.scored and run.scored < run.computed else "")
          + (f", {run.failed} not scored (problems below)" if run.failed else "")
          + (f", {damaged_note(run.damaged)}" if run.corrupt else "")
          + (f"; {len(campaign.gaps)} missing (no hypothesis file)" if campaign.gaps else "")
          + (f"; {left_out} left out (problems below)" if left_out else ""),
          file=sys.stderr, flush=True)
    for note in run.report.get("notes", ()):
        print(f"llgui campaign: note: {note}", file=sys.stderr, flush=True)
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
        if (run.report.get("human") or {}).get("metrics"):   # issue 32
            from llgui.io.compare_pairs_report import agreement_table

            text += "\n" + agreement_table(run.report["human"])
    if run.partial:   # the partial results, marked partial; the problems follow
        from llgui.cli.output import write_whole   # as llgui.cli.main.write_stdout

        if write_whole(text, "campaign") != 0:
            raise UsageError("the partial report could not be written (above)")
        problems = [p for p in campaign.problems] + list(run.scores.problems)
        raise LoadError(sorted(set(problems), key=lambda p: (p.file, p.line == 0, p.line)))
    return text


def cmd_compare(args) -> str:
    from llgui import api
    from llgui.io import export
    from llgui.io.compare_report import compare_csv, compare_table

    problems, bundles = [], []
    if campaign_cells(args, api):   # a campaign's scored outputs: read by compare_report
        bundles = list(args.inputs)
    for path in [] if bundles else args.inputs:
        try:
            if api.is_campaign(path):
                bundles.extend(api.campaign_bundles(path, reader=_load))
            else:
                bundles.append(_load(path))
        except LoadError as error:
            problems.extend(error.problems)
    if problems:
        raise LoadError(problems)
    from llgui.cli.progress import fraction_progress

    progress, close = fraction_progress("llgui compare")
    try:
        dcf = api.parse_dcf(args.dcf, "--dcf") if args.dcf is not None else None
        report = api.compare_report(bundles, args.baseline, args.test, args.unit, args.samples,
                                    args.seed, args.metric, dcf, progress=progress,
                                    **pairs_options(args))
    finally:
        close()
    damaged = (report.get("source") or {}).get("damaged_cache_entries")
    if damaged:   # as `llgui campaign` names them (outsider helper-50: compare was silent)
        print(f"llgui compare: {damaged_note(damaged)}", file=sys.stderr)
    if args.format == "json":
        return export.to_json(report)
    if report.get("mode") == "all-pairs" or "human" in report:
        return pairs_output(report, args.format, compare_csv, compare_table)
    if args.format == "csv":
        return compare_csv(report)
    return compare_table(report)
