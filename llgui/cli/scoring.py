"""The scoring commands: `llgui score`, `replay`, `lifelong` and `det`, their arguments and
what runs them (each returns the text to print; DESIGN.md section 7)."""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from llgui.cli import options
from llgui.cli.inputs import (
    _cache_flag, _check_input, _format_flag, _input, _input_arguments, _is_dash, _load,
    _stdin_file,
)
from llgui.core.errors import UsageError


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
                        "lines, or `enroll test score` with --key); or one detection bundle "
                        "(BUNDLE.toml: its systems' scores, at its [settings] operating point)")
    p.add_argument("--pair", type=Path, nargs=2, action="append", default=[],
                   metavar=("TARGETS", "NONTARGETS"),
                   help="a system as a file of target scores and one of non-target scores, one "
                        "score per line (bob.measure, pyeer); repeatable (default: none)")
    p.add_argument("--key", type=Path, metavar="KEY",
                   help="NIST/Kaldi trial key (default: labels in the score files)")
    p.add_argument("--dcf", default=None, metavar="P_TARGET,C_MISS,C_FA",
                   help="DCF parameters (default: a bundle's [settings], else 0.01,1,1)")
    p.add_argument("--threshold", type=options.bounded("threshold"), metavar="T",
                   help="also give counts, precision, recall, F1 and error rate when accepting "
                        "score >= T (default: none)")
    p.add_argument("--eer-method", choices=("rocch", "threshold"), default="rocch",
                   help="EER method (default: rocch, the ROC convex hull)")
    p.add_argument("--calibrated", action="append", default=[], metavar="SYSTEM",
                   help="the scores of SYSTEM are calibrated log-likelihood ratios: no warning "
                        "on its actDCF (repeatable; '*' for every system; default: none)")
    _format_flag(p)


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


def cmd_score(args) -> str:
    from llgui import api
    from llgui.io import export

    with _input(args) as bundle:
        if bundle.task == "detection" and not bundle.steps:
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

    dcf = api.parse_dcf(args.dcf, "--dcf") if args.dcf is not None else None
    bundle = _detection_bundle(args)
    if bundle is not None:   # `llgui det BUNDLE`: as `score` and `compare` read it
        _check_input(bundle)
        report = api.det_report(str(bundle), None, (), dcf, args.eer_method, args.calibrated,
                                args.threshold)
        return _det_output(report, args.format)
    dcf = dcf if dcf is not None else api.parse_dcf("0.01,1,1", "--dcf")
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


def _detection_bundle(args) -> Path | None:
    """The bundle of `llgui det BUNDLE.toml` (one path ending in .toml, no key or pairs)."""
    if len(args.scores) != 1 or args.pair or _is_dash(args.scores[0]):
        return None
    path = Path(args.scores[0])
    if path.suffix.lower() != ".toml":
        return None
    if args.key is not None:
        raise UsageError(f"{path}: a bundle names its own scores and labels: --key is for "
                         "score files")
    return path


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
