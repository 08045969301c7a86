"""The headless command line: the GUI's numbers for scripts (DESIGN.md section 7).

    llgui score BUNDLE | --ref REF ... [--hyp HYP|-] [--log LOG] [settings] [--metric M ...]
    llgui replay BUNDLE | --ref REF ... --hyp HYP --log LOG|- [--doc ID] [--metric M] [--mode ...]
    llgui lifelong BUNDLE [--policy A|B|C|POLICY.json] [--penalised] [--format table|json|csv]
    llgui det SCORES ... [--key KEY] [--dcf P_TARGET,C_MISS,C_FA] [--format table|json|csv]
    llgui campaign CAMPAIGN.toml [--workers N | --scheduler ADDRESS | --scheduler-file FILE]
                   [--out DIR] [--format ...]
    llgui compare BUNDLE ...|CAMPAIGN --baseline NAME | --all-pairs [--correction holm|none]
                  [--test bs|ar] [--unit U] [--samples N] [--cells] [--human FILE]
    llgui simulate BUNDLE --system [NAME=]"COMMAND" ... [--oracle NAME ...] --out DIR
    llgui effort INPUT ... [--simulated DIR ...] [--cost-out FILE] [--format ...]

Exit codes: 0 success; 2 bad input (one `FILE:LINE: reason` line per problem on stderr, no
traceback); 1 internal error; 3 the system under evaluation failed (`simulate`). A thin layer
over the Python API (llgui.api: the same reports, printed as tables, JSON or CSV); Qt is never
imported.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from llgui._version import __version__
from llgui.cli import options
from llgui.cli.compare_pairs import _pairs_arguments, campaign_cells, pairs_options, pairs_output
from llgui.core.errors import LoadError, SystemFailed, UsageError

FORMATS = ("table", "json", "csv")
# Named in `simulate --help` without importing the simulation (numpy, ~90 ms on every command):
# tests/cli/test_main.py holds them equal to llgui.sim.oracles.ORACLES and
# llgui.sim.run.REFERENCE_SYSTEMS.
ORACLE_NAMES = ("allies", "worst-first", "in-order", "random", "noisy:P", "prefix",
                "prefix-char")
SYSTEM_NAMES = ("static", "mt_memory", "diar_clusters", "diar_audio",
                "mt_complete")


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
    parser.add_argument("-q", "--quiet", action="store_true", dest="silent",
                        help="print only the report and errors: no progress, notes or "
                             "warnings on stderr (as sacrebleu's -q)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help)
        command.arguments(p)
        taken = {o for a in p._actions for o in a.option_strings}
        # after the command too (`llgui score B -q`); SUPPRESS keeps `llgui -q score B`'s value.
        # simulate's own --quiet (no progress bar, warnings still said) keeps its meaning.
        p.add_argument(*[o for o in ("-q", "--quiet") if o not in taken], dest="silent",
                       action="store_true", default=argparse.SUPPRESS,
                       help="print only the report and errors on stderr")
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """argparse's parse, with the option meant for an unknown one (`--colar`: did you mean
    `--collar`?); exit 2 as argparse's own errors."""
    import difflib

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    def known_options(command: argparse.ArgumentParser | None) -> list[str]:
        return [o for a in (command or parser)._actions for o in a.option_strings]

    def hint(unknown: str, known: list[str]) -> str:
        close = difflib.get_close_matches(unknown.split("=")[0], known, n=1, cutoff=0.6)
        return f"; did you mean {close[0]}?" if close and unknown.startswith("-") else ""

    class Refused(Exception):
        """argparse's error, held back until we know whether a mistyped option caused it."""

    def held(self, message):
        raise Refused(self, message)

    parsers = [parser, *action.choices.values()]
    for each in parsers:
        each.error = held.__get__(each)
    try:
        args, extra = parser.parse_known_args(argv)
    except Refused as refused:
        failed, message = refused.args
        # A mistyped long option is named before what argparse missed because of it: `compare
        # B --baseine X` said only that --baseline is required.
        first = next((i for i, word in enumerate(argv) if not word.startswith("-")), None)
        command = action.choices.get(argv[first]) if first is not None else None
        known = known_options(command) if command is not None else []
        for word in argv[first + 1:] if command is not None else ():
            if word == "--":
                break
            name = word.split("=", 1)[0]
            if (word.startswith("--") and name not in known
                    and not [o for o in known if o.startswith(name)]):   # abbreviations
                message = f"unrecognized arguments: {word}{hint(word, known)}"
                failed = command
                break
        for each in parsers:
            del each.error
        failed.error(message)
        raise AssertionError("unreachable") from None   # argparse's error exits
    for each in parsers:
        del each.error
    if not extra:
        return args
    command = action.choices.get(args.command) if args.command else None
    unknown = next((e for e in extra if e.startswith("-")), extra[0])
    (command or parser).error(f"unrecognized arguments: {' '.join(extra)}"
                              f"{hint(unknown, known_options(command))}")
    raise AssertionError("unreachable")   # argparse's error exits


def _format_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="output format (default: table)")


def _input_arguments(p: argparse.ArgumentParser, log_help: str) -> None:
    """A bundle, or plain files as sacrebleu and pyannote-metrics take them, and the common
    settings as flags over the bundle's [settings]."""
    p.add_argument("bundle", type=Path, nargs="?", metavar="BUNDLE",
                   help="the bundle file (.toml); or give plain files with --ref and --hyp")
    files = p.add_argument_group(
        "plain files (instead of a bundle)",
        "MT: text files, one segment a line, scored as one document named after the "
        "hypothesis; diarization: RTTM/MDTM, one document per recording. '-' reads one of "
        "them from standard input.")
    files.add_argument("--ref", type=Path, nargs="+", action="extend", metavar="FILE",
                       help="reference file(s) (MT: several for several references; "
                            "diarization: one) (default: none, a bundle is read)")
    files.add_argument("--hyp", type=Path, metavar="FILE",
                       help="hypothesis file (default: standard input, as `sacrebleu REF < "
                            "HYP`)")
    files.add_argument("--log", type=Path, metavar="FILE", help=log_help)
    files.add_argument("--src", type=Path, metavar="FILE",
                       help="MT source text, line-aligned with the hypothesis (default: none)")
    files.add_argument("--uem", type=Path, metavar="FILE",
                       help="diarization: the scored regions of each recording (default: the "
                            "union of the reference and hypothesis extents, as pyannote.metrics)")
    files.add_argument("--task", choices=("mt", "diarization"),
                       help="the task of the plain files (default: diarization for .rttm/.mdtm "
                            "files, else mt)")
    settings = p.add_argument_group(
        "settings (over the bundle's [settings]; default: the bundle's value, else the "
        "library's default)")
    settings.add_argument("--collar", metavar="SEC",
                          help="diarization: total width around each reference boundary not "
                               "scored (default: 0, pyannote's)")
    settings.add_argument("--skip-overlap", action=argparse.BooleanOptionalAction,
                          help="diarization: do not score overlapped speech (default: scored, "
                               "pyannote's)")
    settings.add_argument("-tok", "--tokenize", metavar="TOK",
                          help="MT: sacrebleu's BLEU tokenizer (default: 13a; zh/ja-mecab/"
                               "ko-mecab with --trg-lang zh/ja/ko)")
    settings.add_argument("-lc", "--lowercase", action=argparse.BooleanOptionalAction,
                          help="MT: case-insensitive BLEU, chrF and WER (default: "
                               "case-sensitive)")
    settings.add_argument("--trg-lang", metavar="LANG",
                          help="MT: the target language, as sacrebleu's (default: unset)")


def _arguments_score(p: argparse.ArgumentParser) -> None:
    _input_arguments(p, "an interaction log: also the penalised scores (default: none)")
    p.add_argument("--metric", action="append", metavar="M",
                   help="metric to compute (repeatable; default: the bundle's metrics)")
    p.add_argument("--policy", metavar="A|B|C|POLICY.json",
                   help="also give the policy-weighted mean over document times (default: "
                        "none)")
    _cache_flag(p)
    p.add_argument("--mode", choices=("paper", "llmt"), default="paper",
                   help="penalised scores: paper (equation 1 summed over steps) or llmt (the "
                        "WMT 2020/21 lifelong MT scorer, BLEU only, pooled over the stream) "
                        "(default: paper)")
    p.add_argument("--include-partial", action="store_true",
                   help="count documents cut short (a run stopped in them, `partial = true`) "
                        "in the pooled scores and means (default: listed, marked, left out)")
    _format_flag(p)


def _arguments_replay(p: argparse.ArgumentParser) -> None:
    _input_arguments(p, "the interaction log to replay (required with plain files; default: "
                        "the bundle's)")
    p.add_argument("--doc", metavar="ID",
                   help="document id (default: the only document, when there is one)")
    p.add_argument("--metric", metavar="M", help="metric (default: the bundle's first)")
    p.add_argument("--mode", choices=("paper", "llmt"), default="paper",
                   help="paper: equation 1 summed over steps; llmt: the WMT 2020/21 lifelong "
                        "MT scorer (BLEU only) (default: paper)")
    _cache_flag(p)
    _format_flag(p)


def _arguments_lifelong(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", type=Path, metavar="BUNDLE",
                   help="a bundle with a [lifelong] score table")
    p.add_argument("--policy", default="B", metavar="A|B|C|POLICY.json",
                   help="preset A (contemporary), B (uniform), C (past) or a policy file "
                        "(default: B)")
    p.add_argument("--penalised", action="store_true",
                   help="weigh the penalised scores (equation 3) as well as the raw ones "
                        "(default: the raw ones only)")
    p.add_argument("--metric", metavar="M", help="metric of the score table (default: its first)")
    _format_flag(p)


def _arguments_det(p: argparse.ArgumentParser) -> None:
    p.add_argument("scores", type=Path, nargs="*", metavar="SCORES",
                   help="score files, one system each, named by file stem (`score label` "
                        "lines, or `enroll test score` with --key)")
    p.add_argument("--pair", type=Path, nargs=2, action="append", default=[],
                   metavar=("TARGETS", "NONTARGETS"),
                   help="a system as a file of target scores and one of non-target scores, one "
                        "score per line (bob.measure, pyeer); repeatable (default: none)")
    p.add_argument("--key", type=Path, metavar="KEY",
                   help="NIST/Kaldi trial key (default: labels in the score files)")
    p.add_argument("--dcf", default="0.01,1,1", metavar="P_TARGET,C_MISS,C_FA",
                   help="DCF parameters (default: 0.01,1,1)")
    p.add_argument("--threshold", type=options.bounded("threshold"), metavar="T",
                   help="also give counts, precision, recall, F1 and error rate when accepting "
                        "score >= T (default: none)")
    p.add_argument("--eer-method", choices=("rocch", "threshold"), default="rocch",
                   help="EER method (default: rocch, the ROC convex hull)")
    p.add_argument("--calibrated", action="append", default=[], metavar="SYSTEM",
                   help="the scores of SYSTEM are calibrated log-likelihood ratios: no warning "
                        "on its actDCF (repeatable; '*' for every system; default: none)")
    _format_flag(p)


def _arguments_campaign(p: argparse.ArgumentParser) -> None:
    p.add_argument("campaign", type=Path, metavar="CAMPAIGN", help="the campaign file (.toml)")
    workers = p.add_mutually_exclusive_group()
    workers.add_argument("--workers", type=options.bounded("workers"),
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
                              "--scheduler-file FILE`, dask-jobqueue; default: none)")
    p.add_argument("--threads", type=options.bounded("threads"), metavar="N",
                   help="threads per local worker process (default: 1; scoring is pure "
                        "Python: more processes, not threads)")
    p.add_argument("--memory-limit", metavar="BYTES", type=options.byte_size("--memory-limit"),
                   help="memory limit per local worker process, e.g. 2GB (default: Dask's, "
                        "the machine's memory shared among the workers)")
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
    p.add_argument("--budget", type=options.bounded("budget"), metavar="X",
                   help="per document, in cost-model units (MT: reference words, or characters "
                        "for scripts without spaces, and word edits; diarization: seconds "
                        "listened) (default: 60 %% of the document's reference for MT, 60 s for "
                        "diarization). Active mode: a request costing more than what is left is "
                        "refused and the document ends (ask its cost first with a quote); "
                        "interactive: the oracle volunteers only corrections that fit")
    p.add_argument("--mode", choices=("active", "interactive", "none"),
                   help="every document's mode: active (the system asks, the oracle answers), "
                        "interactive (the oracle volunteers corrections), none (h0 only, no "
                        "steps) (default: the oracle's: allies is active, the others "
                        "interactive)")
    p.add_argument("--interactive-ratio", type=options.bounded("interactive_ratio"), metavar="R",
                   help="each document is interactive with probability R, else active, drawn "
                        "per document from the seed, as ALLIES; --mode wins when both are "
                        "given (default: unset)")
    p.add_argument("--seed", type=options.bounded("seed"), default=0, metavar="S",
                   help="seed of the oracles and of the system's hello (default: 0)")
    p.add_argument("--timeout", type=options.bounded("timeout"),
                   default=30.0, metavar="SEC",
                   help="seconds the system may take for each message it owes: its hello "
                        "(start-up included), each hypothesis, request and adapted, and its "
                        "exit after bye; past it the run ends with exit 3 (default: 30). A "
                        "message is at most 16 MiB. SIGTERM, SIGINT or SIGHUP end the system's "
                        "process group and write run.json marked partial")
    p.add_argument("--startup-timeout", type=options.number(above=0,
                                                            maximum=options.MAX_SECONDS),
                   default=None, metavar="SEC",
                   help="seconds the system may take to start and send its hello (loading a "
                        "model), instead of --timeout (default: --timeout)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="the run folder: bundle.toml, hyp/, logs/system.jsonl, run.json, "
                        "system.stderr, and ref/ src/ for documents cut by lines or docids "
                        "(DIR/SYSTEM/ORACLE/ with several)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (default: a progress bar on a terminal)")
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
    """SIGTERM, SIGINT or SIGHUP, raised in the main thread so every `finally` runs (a
    system's process group is ended, run.json is written, files are closed) as for Ctrl-C;
    `signum` says which."""

    def __init__(self, signum: int):
        import signal

        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


@contextlib.contextmanager
def _terminate_as_interrupt():
    """The first of SIGTERM, SIGINT, SIGHUP raises `_Terminated`; later ones are ignored
    until the command has cleaned up (a second Ctrl-C cannot cut the cleanup short)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    numbers = [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]

    def handler(signum, frame):
        for number in numbers:
            try:
                signal.signal(number, signal.SIG_IGN)
            except (ValueError, OSError):   # pragma: no cover
                pass
        raise _Terminated(signum)

    previous = {}
    try:
        for number in numbers:
            previous[number] = signal.signal(number, handler)
    except (ValueError, OSError):   # pragma: no cover - not settable here
        pass
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


@contextlib.contextmanager
def _quiet_stderr(quiet: bool):
    """-q: what a command says on stderr while it works (progress, notes, warnings) goes
    nowhere; its errors are printed by main() after it, as always."""
    if not quiet:
        yield
        return
    previous, sys.stderr = sys.stderr, open(os.devnull, "w", encoding="utf-8")
    try:
        yield
    finally:
        sys.stderr.close()
        sys.stderr = previous


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = _parse(parser, list(sys.argv[1:] if argv is None else argv))
    if not args.command:
        parser.print_help()
        return 0
    try:
        with _terminate_as_interrupt():
            if not getattr(args, "no_cache", False):
                try:
                    unusable = options.check_environment()
                except ValueError as error:
                    raise UsageError(str(error)) from None
                if unusable and not args.silent:   # skipped, as a read-only cache is
                    print(f"llgui {args.command}: the cache is not used ({unusable})",
                          file=sys.stderr)
            with _quiet_stderr(args.silent):
                text = COMMANDS[args.command].run(args)
    except KeyboardInterrupt as stop:   # Ctrl-C, SIGTERM, SIGHUP: the job was stopped, its
        # children ended (simulate: the system's process group, run.json marked partial)
        what = str(stop) or "interrupted"
        print(f"llgui {args.command}: {what}; nothing more was done", file=sys.stderr)
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
    return write_stdout(text, args.command)


def write_stdout(text: str, command: str) -> int:
    """Print a command's report: 0 when it was written whole, else 2 with the reason (a full
    disk, a file-size limit, /dev/full), never exit 0 over a truncated report (issue 38.3)."""
    from llgui.cli.output import write_whole

    return write_whole(text, command)


# --------------------------------------------------------------------------------------------
# Commands: each returns the text to print


def _load(path: Path):
    from llgui import api

    _check_input(path)
    bundle = api.load(path, warn=False)
    for warning in bundle.warnings:   # the load goes on; the numbers they concern say so
        print(warning, file=sys.stderr)
    return bundle


def _check_input(*paths: Path) -> None:
    """Inputs that cannot be opened are exit 2 before any work, each with the file of its
    folder it was probably meant to be."""
    import difflib

    from llgui.core.errors import Problem

    problems = []
    for path in paths:
        if path.exists() or str(path) == "-":
            continue
        folder = path.parent
        try:
            names = [entry.name for _, entry in zip(range(5000), folder.iterdir())]
        except OSError:
            names = []
        folded = {name.casefold(): name for name in names}   # sysa.txt: sysA.txt
        close = difflib.get_close_matches(path.name.casefold(), folded, n=1, cutoff=0.6)
        hint = f"; did you mean {str(folder / folded[close[0]])!r}?" if close else ""
        problems.append(Problem(str(path), 0, f"no such file{hint}"))
    if problems:
        raise LoadError(problems)


SETTING_FLAGS = {"collar": "--collar", "skip_overlap": "--skip-overlap",
                 "tokenize": "--tokenize", "lowercase": "--lowercase", "trg_lang": "--trg-lang"}


def _flag_settings(args) -> dict:
    """The settings given as flags, as the bundle loader would read them from TOML: a number
    for --collar (checked by the same rules as `[settings] collar`), booleans, strings."""
    from llgui.core.numbers import parse_number

    settings = {}
    for key, flag in SETTING_FLAGS.items():
        value = getattr(args, key, None)
        if value is None:
            continue
        if key == "collar":
            try:
                value = parse_number(value.strip())
            except ValueError as error:
                raise UsageError(f"{flag} {value[:40]!r}: {error}") from None
        settings[key] = value
    return settings


@contextlib.contextmanager
def _stdin_file(args, names: Sequence[str], labels: dict[str, str] | None = None):
    """The one input given as '-' (a plain-file option in `names`), read from standard input
    into a temporary regular file, so that it is read, bounded and checked as any file is.
    Problems in it are reported as `<stdin>:LINE: reason`. `labels` names an input that is
    not a `--NAME` option in messages (det's positional SCORES)."""
    import tempfile

    labels = labels or {}
    dashes = [n for n in names if _is_dash(getattr(args, n, None))]
    if len(dashes) > 1:
        raise UsageError(f"only one input can be read from standard input, not "
                         f"{' and '.join(labels.get(n, '--' + n) for n in dashes)}")
    if not dashes:
        yield None
        return
    from llgui.utils.regular import MAX_INPUT_BYTES

    label = labels.get(dashes[0], f"--{dashes[0]}")
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(f"{label} -: standard input is a terminal; pipe the file in "
                         f"(llgui {args.command} ... < FILE) or name it")
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{label} -: standard input is larger than the largest input "
                         f"read ({MAX_INPUT_BYTES >> 20} MiB)")
    name = dashes[0]
    with tempfile.TemporaryDirectory(prefix="llgui-stdin-") as folder:
        suffix = _stdin_suffix(args, name)
        path = Path(folder) / f"stdin{suffix}"
        path.write_bytes(data)
        setattr(args, name, path)
        try:
            yield path
        except LoadError as error:
            from llgui.core.errors import Problem

            raise LoadError([Problem("<stdin>" if p.file == str(path) else p.file, p.line,
                                     p.reason) for p in error.problems]) from None


def _is_dash(value) -> bool:
    return value is not None and str(value) == "-"


def _stdin_suffix(args, name: str) -> str:
    """The name the input read from standard input gets: a hypothesis of a diarization task
    takes the reference's extension (RTTM or MDTM is told by it)."""
    from llgui.io.loose import DIARIZATION_SUFFIXES

    if name == "log":
        return ".jsonl"
    suffixes = [r.suffix.lower() for r in getattr(args, "ref", None) or ()]
    diarization = getattr(args, "task", None) == "diarization" or any(s in DIARIZATION_SUFFIXES for s in suffixes)
    if diarization and name == "hyp":
        return next((s for s in suffixes if s in DIARIZATION_SUFFIXES), ".rttm")
    return ".txt"


PLAIN_FILES = ("ref", "hyp", "log", "src", "uem", "task")


@contextlib.contextmanager
def _input(args, need_log: bool = False):
    """The bundle of a scoring command: the BUNDLE file, or the plain files of --ref, --hyp,
    --log...; the setting flags laid over its settings (UsageError on a bad value)."""
    from llgui import api

    plain = [n for n in PLAIN_FILES if getattr(args, n, None) is not None]
    if args.bundle is not None and plain:
        raise UsageError(f"give a bundle or plain files, not both (--{plain[0]} with "
                         f"{args.bundle})")
    if args.bundle is None and not plain:
        raise UsageError("give a bundle file, or plain files: --ref REF [--hyp HYP]")
    if args.bundle is not None:
        bundle = _load(args.bundle)
        yield _with_flags(bundle, args)
        return
    if not args.ref:
        raise UsageError("plain files need --ref (the reference file or files)")
    if any(_is_dash(r) for r in args.ref):
        raise UsageError("--ref -: give the references as files (the hypothesis, the log "
                         "or another input may come from standard input)")
    if args.hyp is None:
        args.hyp = Path("-")   # as sacrebleu: the hypothesis on standard input
    if need_log and args.log is None:
        raise UsageError("replay needs the interaction log: --log FILE")
    with _stdin_file(args, ("hyp", "log", "src", "uem")) as piped:
        _check_input(*(p for p in (*args.ref, args.hyp, args.log, args.src, args.uem)
                       if p is not None))
        bundle = api.load_files(args.ref, args.hyp, log=args.log, src=args.src, uem=args.uem,
                                task=args.task,
                                log_base=Path.cwd() if piped and piped == args.log else None)
        if piped is not None and piped == args.hyp:
            import dataclasses

            bundle = dataclasses.replace(bundle, name="<stdin>")
        yield _with_flags(bundle, args)


def _with_flags(bundle, args):
    from llgui import api

    settings = _flag_settings(args)
    if args.bundle is not None and settings and bundle.task in ("detection", "classification"):
        raise UsageError(f"{', '.join(SETTING_FLAGS[k] for k in settings)}: no setting flag "
                         f"applies to {bundle.task} bundles")
    return api.with_settings(bundle, **settings)


def cmd_score(args) -> str:
    from llgui import api
    from llgui.io import export

    with _input(args) as bundle:
        if bundle.task == "detection":
            return _det_output(api.det_report(bundle), args.format)
        with _scoring(args):
            report = api.score_report(bundle, args.metric, args.policy, mode=args.mode,
                                      include_partial=args.include_partial)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.score_csv(report)
    return export.score_table(report)


def cmd_replay(args) -> str:
    from llgui import api
    from llgui.io import export

    with _input(args, need_log=True) as bundle:
        with _scoring(args):
            report = api.replay_report(bundle, args.doc, args.metric, mode=args.mode)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.replay_csv(report)
    return export.replay_table(report)


def cmd_lifelong(args) -> str:
    from llgui import api
    from llgui.io import export

    report = api.lifelong_report(_load(args.bundle), args.policy, args.penalised, args.metric)
    if args.format == "json":
        return export.to_json(report)
    if args.format == "csv":
        return export.lifelong_csv(report)
    return export.lifelong_table(report)


def cmd_det(args) -> str:
    from llgui import api

    dcf = api.parse_dcf(args.dcf, "--dcf")
    if not args.scores and not args.pair and args.key is not None and sys.stdin is not None \
            and not sys.stdin.isatty():
        args.scores = [Path("-")]   # `llgui det --key KEY < scores`, as score reads a hypothesis
    if not args.scores and not args.pair:
        raise UsageError("give score files, or --pair TARGETS NONTARGETS")
    dashes = [i for i, path in enumerate(args.scores) if _is_dash(path)]
    if len(dashes) > 1:
        raise UsageError("only one score file can be read from standard input ('-')")
    if dashes:   # `llgui det - --key KEY < scores.txt`: the system is named 'stdin'
        args.stdin_scores = args.scores[dashes[0]]
        with _stdin_file(args, ("stdin_scores",), {"stdin_scores": "SCORES"}):
            args.scores[dashes[0]] = args.stdin_scores
            return _det_report_text(args, dcf)
    return _det_report_text(args, dcf)


def _det_report_text(args, dcf) -> str:
    from llgui import api

    _check_input(*args.scores, *(p for pair in args.pair for p in pair),
                 *([args.key] if args.key is not None else []))
    trials = api.det_trials(args.scores, args.key, args.pair)
    report = api.det_report(trials, None, (), dcf, args.eer_method, args.calibrated,
                            args.threshold)
    return _det_output(report, args.format)


def _det_output(report: dict, fmt: str) -> str:
    from llgui.io import export

    if fmt == "json":
        return export.to_json(report)
    if fmt == "csv":
        return export.det_csv(report)
    return export.det_table(report)


# --------------------------------------------------------------------------------------------
# Campaign (issue 14)


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
    _check_input(args.campaign)
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
    from llgui import api

    progress = CellProgress()
    try:
        run = api.campaign_run(campaign, workers=args.workers, scheduler=args.scheduler,
                               scheduler_file=args.scheduler_file, threads=args.threads or 1,
                               memory_limit=args.memory_limit, cell_seconds=args.cell_timeout,
                               connect_seconds=args.connect_timeout,
                               progress=progress, waiting=progress.note,
                               announce=lambda text: print(f"llgui campaign: {text}",
                                                           file=sys.stderr, flush=True))
    finally:
        progress.close()
    # the online runs are scored too (the progress line counted them): said, so that
    # "18/18 cells" is not followed by "16 cells" (issue 35)
    online = sum(1 for s in campaign.systems if getattr(s, "bundle", None))
    print(f"llgui campaign: {len(campaign.cells)} cells"
          + (f" and {online} online run{'s' * (online != 1)}" if online else "")
          + f": {run.cached} {'cells ' if online else ''}from the cache, "
          f"{run.computed} computed"
          + (f" ({run.scored} file{'s' if run.scored != 1 else ''} scored: cells of the same "
             f"content are scored once)" if run.scored and run.scored < run.computed else "")
          + (f", {run.failed} not scored (problems below)" if run.failed else "")
          + (f", {run.corrupt} damaged cache entries recomputed" if run.corrupt else "")
          + (f"; {len(campaign.gaps)} missing (no hypothesis file)" if campaign.gaps else ""),
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
        if write_stdout(text, "campaign") != 0:
            raise UsageError("the partial report could not be written (above)")
        problems = [p for p in campaign.problems] + list(run.scores.problems)
        raise LoadError(sorted(set(problems), key=lambda p: (p.file, p.line == 0, p.line)))
    return text


# --------------------------------------------------------------------------------------------
# Compare (issue 15)


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
    if args.format == "json":
        return export.to_json(report)
    if report.get("mode") == "all-pairs" or "human" in report:
        return pairs_output(report, args.format, compare_csv, compare_table)
    if args.format == "csv":
        return compare_csv(report)
    return compare_table(report)


# --------------------------------------------------------------------------------------------
# Simulate (issue 12)


def cmd_simulate(args) -> str:
    from llgui.cli.simulate import simulate_command

    try:
        return simulate_command(args)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _regressions():
    from llgui.cli import regressions

    return regressions


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
    "effort": Command("question value; a live expert against the oracle; the fitted cost model",
        lambda p: _effort().arguments(p), lambda args: _effort().run(args)),
    "regressions": Command("negative flips between model versions, relapses of corrections",
        lambda p: _regressions().arguments(p), lambda a: _regressions().run(a)),
}


def _effort():
    from llgui.cli import effort   # issue 34

    return effort
SUBCOMMANDS = tuple(COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
