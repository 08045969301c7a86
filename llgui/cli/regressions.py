"""`llgui regressions CAMPAIGN|BUNDLE`: negative flips between model versions and relapses of
corrected errors (DESIGN.md section 1.9), one row per flip / relapse."""
from __future__ import annotations

import argparse
from pathlib import Path

from llgui.cli import options


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, metavar="CAMPAIGN|BUNDLE",
                   help="a campaign (flips between each system's consecutive model versions, "
                        "relapses of its online runs), a bundle with a log (relapses), or a "
                        "detection / classification bundle (its score files or documents as "
                        "consecutive versions: exact flips)")
    p.add_argument("--metric", metavar="M",
                   help="the unit score of flips (default: chrf for MT, der for diarization)")
    p.add_argument("--tolerance", type=options.number(0.0, 100.0), default=0.0, metavar="X",
                   help="a unit regressed when its score is worse by more than X (in the "
                        "score's units, e.g. chrF points; default: 0)")
    p.add_argument("--threshold", type=options.number(-1e6, 1e6), default=0.0, metavar="T",
                   help="detection: a trial is decided target when its score is above T "
                        "(default: 0, the Bayes threshold of log-likelihood ratios)")
    p.add_argument("--top", type=options.integer(0, 10**6), default=20, metavar="N",
                   help="units listed per version pair (and per online run's relapses) in "
                        "the table, the rest counted on a '… N more' row, and in the JSON "
                        "summary's 'regressed' (default: 20; the JSON's rows and the CSV keep "
                        "every one)")
    p.add_argument("--samples", type=options.integer(1, options.MAX_SAMPLES), default=1000,
                   metavar="N", help="bootstrap resamples of NFR / NFI (default: 1000)")
    p.add_argument("--seed", type=options.integer(0, options.MAX_SEED), default=12345,
                   metavar="S", help="seed of the bootstrap (default: 12345)")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="output format (default: table)")


def run(args) -> str:
    from llgui import api
    from llgui.io.export import to_json
    from llgui.io.regressions_report import regressions_csv, regressions_table

    report = api.regressions_report(args.input, metric=args.metric, tolerance=args.tolerance,
                                    samples=args.samples, seed=args.seed, top=args.top,
                                    threshold=args.threshold)
    if args.format == "json":
        return to_json(report)
    if args.format == "csv":
        return regressions_csv(report)
    return regressions_table(report, top=args.top)
