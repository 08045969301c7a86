"""The headless command line: the GUI's numbers for scripts (DESIGN.md section 7).

    llgui score BUNDLE | --ref REF ... [--hyp HYP|-] [--log LOG] [settings] [--metric M ...]
    llgui replay BUNDLE | --ref REF ... --hyp HYP --log LOG|- [--doc ID] [--metric M] [--mode ...]
    llgui lifelong BUNDLE [--policy A|B|C|POLICY.json] [--penalised] [--format table|json|csv]
    llgui det SCORES ... | BUNDLE [--key KEY] [--dcf P_TARGET,C_MISS,C_FA] [--format table|json|csv]
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
from llgui.cli.campaigns import _arguments_campaign, _arguments_compare, cmd_campaign, cmd_compare
from llgui.cli.inputs import FORMATS, _format_flag  # noqa: F401 - FORMATS: re-exported
from llgui.cli.scoring import (
    _arguments_det, _arguments_lifelong, _arguments_replay, _arguments_score, cmd_det,
    cmd_lifelong, cmd_replay, cmd_score,
)
from llgui.core.errors import LoadError, SystemFailed, UsageError

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


PLAIN_FILE_OPTIONS = ("--ref", "--hyp", "--key", "--uem", "--src", "--log")
"""`score`'s and `det`'s options for plain files: a command without them is told where they
go."""


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """argparse's parse, with the option meant for an unknown one (`--colar`: did you mean
    `--collar`?); exit 2 as argparse's own errors."""
    import difflib

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    def known_options(command: argparse.ArgumentParser | None) -> list[str]:
        return [o for a in (command or parser)._actions for o in a.option_strings]

    def hint(unknown: str, known: list[str]) -> str:
        takes_files = any(o in known for o in PLAIN_FILE_OPTIONS)   # (score, replay, det)
        if unknown.split("=")[0] in PLAIN_FILE_OPTIONS and known and not takes_files:
            # (compare said --dcf)
            return ("; this command takes bundles or a campaign, not plain files: score "
                    "plain files with `llgui score --ref REF --hyp HYP` (detection: `llgui "
                    "det SCORES --key KEY`), or make a bundle of them (docs/formats.md)")
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
        from llgui.core.errors import summarised

        for problem in summarised(error.problems):   # (one line for a reason on every line)
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
# Commands: each returns the text to print. score, replay, lifelong, det: llgui.cli.scoring;
# campaign, compare: llgui.cli.campaigns; what they share: llgui.cli.inputs.


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
