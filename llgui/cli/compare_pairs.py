"""`llgui compare` options of issue 32: every pair of systems (`--all-pairs`, `--correction`),
a campaign's scored outputs (`--cells`) and human scores beside the metrics (`--human`)."""
from __future__ import annotations

import argparse

from llgui.core.errors import UsageError


def _pairs_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all-pairs", action="store_true",
                   help="test every pair of systems instead of each against a baseline; "
                        "p-values adjusted for the number of pairs (--correction; default: "
                        "against --baseline)")
    p.add_argument("--correction", choices=("holm", "none"), default="holm",
                   help="with --all-pairs: Holm's step-down adjustment of the p-values over "
                        "each metric's pairs (Holm 1979), or none (default: holm)")
    p.add_argument("--cells", action="store_true",
                   help="a campaign: compare its scored outputs (each system's last model "
                        "version over the batches all of them have) rather than its online "
                        "runs (default: the online runs, the outputs when no system has one)")
    p.add_argument("--human", metavar="FILE",
                   help="human scores of the systems (WMT's DA/ESA annotation CSV, "
                        "mt-metrics-eval's SYSTEM<TAB>SCORE, or WMT23's results): each "
                        "metric's agreement with them (default: a campaign's [human] scores, "
                        "else none)")
    p.add_argument("--human-pair", metavar="SRC-TGT",
                   help="the language pair to read from a human-score file holding several, "
                        "e.g. deu-eng (default: the file's only one)")


def campaign_cells(args, api) -> bool:
    """Whether `args` name one campaign to be compared on its scored outputs (read later by
    `api.compare_report`). Checks that a baseline or --all-pairs was asked for."""
    if not args.all_pairs and args.baseline is None:
        raise UsageError("compare: name a --baseline, or ask for --all-pairs")
    if args.all_pairs and args.baseline is not None:
        raise UsageError("compare: --baseline and --all-pairs do not go together")
    if len(args.inputs) != 1 or not api.is_campaign(args.inputs[0]):
        if args.cells:
            raise UsageError("--cells applies to one campaign file")
        return False
    if args.cells:
        return True
    from llgui.io.campaign import load_campaign

    loaded = load_campaign(args.inputs[0])
    return not loaded.problems and not any(s.bundle for s in loaded.systems)


def pairs_options(args) -> dict:
    human = None
    if args.human is not None:
        human = (args.human, args.human_pair)
    elif args.human_pair is not None:
        raise UsageError("--human-pair goes with --human")
    elif len(args.inputs) == 1:   # a campaign's [human] scores, whichever runs are compared
        from llgui.api import _campaign_human

        human = _campaign_human(args.inputs[0])
    return {"all_pairs": args.all_pairs, "correction": args.correction, "cells": args.cells,
            "human": human}


def pairs_output(report, fmt: str, compare_csv, compare_table) -> str:
    from llgui.io.compare_pairs_report import agreement_table, pairs_csv, pairs_table

    if report.get("mode") == "all-pairs":
        text = pairs_csv(report) if fmt == "csv" else pairs_table(report)
    else:
        text = compare_csv(report) if fmt == "csv" else compare_table(report)
    if "human" in report and fmt != "csv":
        text += "\n" + agreement_table(report["human"])
    return text
