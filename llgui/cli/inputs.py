"""What the headless commands share: the input arguments (a bundle, or plain files as sacrebleu
and pyannote-metrics take them, and the setting flags), reading them (one input from standard
input too), and the --format and --no-cache flags. Bad input is LoadError or UsageError: exit 2
by llgui.cli.main."""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Sequence

from llgui.core.errors import LoadError, UsageError

FORMATS = ("table", "json", "csv")


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


def _cache_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="compute every segment's statistics afresh and write no cache "
                        "(cache: $LLGUI_CACHE_DIR, default the platform cache folder; size "
                        "limit $LLGUI_CACHE_MAX_MB, default 512)")


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
    from llgui.core.errors import Problem
    from llgui.utils.names import meant_file

    problems = []
    for path in paths:
        if path.exists() or str(path) == "-":
            continue
        close = meant_file(path)
        hint = f"; did you mean {str(close)!r}?" if close is not None else ""
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

            # (a reason may name it too: "the hypothesis /tmp/llgui-stdin-…/stdin.txt has 5")
            raise LoadError([Problem("<stdin>" if p.file == str(path) else p.file, p.line,
                                     p.reason.replace(str(path), "<stdin>"))
                             for p in error.problems]) from None


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
                                task=args.task, warn=False,
                                log_base=Path.cwd() if piped and piped == args.log else None)
        if piped is not None and piped == args.hyp:
            import dataclasses

            bundle = dataclasses.replace(bundle, name="<stdin>")
        flagged = _with_flags(bundle, args)   # (a bad flag: its one line, nothing before)
        for warning in bundle.warnings:   # as a bundle file's (`_load`)
            said = str(warning)
            print(said.replace(str(piped), "<stdin>") if piped is not None else said,
                  file=sys.stderr)
        yield flagged


def _with_flags(bundle, args):
    from llgui import api

    settings = _flag_settings(args)
    if args.bundle is not None and settings and bundle.task in ("detection", "classification"):
        raise UsageError(f"{', '.join(SETTING_FLAGS[k] for k in settings)}: no setting flag "
                         f"applies to {bundle.task} bundles")
    return api.with_settings(bundle, **settings)
