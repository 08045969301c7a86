"""`llgui compare` output: the report of `llgui.core.reports.compare.Comparison` as a table or CSV.

The JSON is `Comparison.report()` through `export.to_json`. The table has one row per metric
and system, the baseline first in each block, in sacrebleu's style: score, (mean +- half-width
of the 95 % interval), p-value, and a `*` where p < 0.05; the signatures follow.
"""
from __future__ import annotations

from typing import Mapping

from llgui.io.export import fmt, render_table, to_csv


def _rows(report: Mapping):
    for key, meta in report["metric_signatures"].items():
        for system in report["systems"]:
            entry = system["metrics"][key]
            yield key, meta, system["name"], entry


def compare_table(report: Mapping) -> str:
    rows = []
    previous = None
    for key, meta, name, e in _rows(report):
        if previous is not None and key != previous:
            rows.append(("", "", "", "", ""))
        label = meta["label"] if key != previous else ""
        previous = key
        prefix = "Baseline: " if name == report["baseline"] else ""
        interval = "-" if e["mean"] is None else f"({fmt(e['mean'], 4)} ± {fmt(e['ci'], 4)})"
        p = "" if e["p_value"] is None else f"{e['p_value']:.4f}" + (
            "*" if e["p_value"] < 0.05 else "")
        rows.append((label, prefix + name, fmt(e["score"], 4), interval, p))
    text = render_table(("metric", "system", "score", "(mean ± 95% CI)", "p-value"), rows,
                        align_left=2)
    lines = [text, f"resampling: {report['signature']}",
             "* p < 0.05 against the baseline (paired test)"]
    for meta in report["metric_signatures"].values():
        note = "" if meta["resampling"] == report["signature"] else \
            f"  [resampled: {meta['resampling']}]"
        lines.append(f"{meta['label']}: {meta['signature']}{note}")
    return "\n".join(lines) + "\n"


def compare_csv(report: Mapping) -> str:
    rows = [(key, name, name == report["baseline"], e["score"], e["mean"], e["ci"],
             e["p_value"], meta["resampling"], meta["signature"])
            for key, meta, name, e in _rows(report)]
    return to_csv(("metric", "system", "baseline", "score", "mean", "ci", "p_value",
                   "resampling", "signature"), rows)
