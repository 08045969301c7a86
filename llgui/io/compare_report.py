"""`llgui compare` output: the report of `llgui.core.reports.compare.Comparison` as a table or CSV.

The JSON is `Comparison.report()` through `export.to_json`. The table has one row per metric
and system, the baseline first in each block: the score with its 95 % percentile interval
[low, high] beside it, the number of resampling units, the p-value against the baseline with
the test that produced it (`bs`, `ar`, or `ar-exact`, the randomisation distribution
enumerated) and a `*` where p < 0.05 from a trusted test, and the probability that humans
agree with the difference's ranking (BLEU, chrF). Below `min_units` units the bootstrap
interval reads "too few units" and the p-value is the exact randomisation one. Where rows are
resampled by segment, sacrebleu's own "mean ± half-width" is printed too, labelled as
sacrebleu's (it equals `sacrebleu --paired-bs`). The signatures follow.
"""
from __future__ import annotations

from typing import Mapping

from llgui.io.export import fmt, render_table, to_csv

TOO_FEW = "too few units"


def _rows(report: Mapping):
    for key, meta in report["metric_signatures"].items():
        for system in report["systems"]:
            entry = system["metrics"][key]
            yield key, meta, system["name"], entry


def _interval(e: Mapping) -> str:
    if e.get("low") is None:
        return "-"
    if e.get("too_few"):
        return TOO_FEW
    return f"[{fmt(e['low'], 2)}, {fmt(e['high'], 2)}]"


def _p(e: Mapping) -> str:
    if e.get("p_value") is None:
        return ""
    return f"{e['p_value']:.4f}" + ("*" if e.get("significant") else "")


def _test(e: Mapping) -> str:
    test = e.get("test")
    if test is None:
        return ""
    if test == "ar-exact" and e.get("p_min") is not None:
        return f"ar-exact (p ≥ {e['p_min']:.4f})"
    return test


def _agreement(e: Mapping) -> str:
    effect = e.get("effect")
    if effect is None:
        return ""
    value = effect.get("human_agreement")
    if value is not None:
        return f"{100 * value:.1f}%"
    return effect.get("reading") or "none known"


def _human_curve(report: Mapping) -> bool:
    """Whether any metric compared has a known human-agreement curve (BLEU, chrF): without
    one the column and its note (MT's, Kocmi et al.) say nothing of diarization or
    detection."""
    for _k, _m, _n, e in _rows(report):
        effect = e.get("effect") or {}
        if effect.get("human_agreement") is not None or \
                effect.get("reading") not in (None, "none known"):
            return True
    return False


def compare_table(report: Mapping) -> str:
    sacrebleu = any(e.get("unit") == "segment" and e.get("mean") is not None
                    for _k, _m, _n, e in _rows(report))
    humans = _human_curve(report)
    header = ["metric", "system", "score", "95% interval", "units", "p-value", "test"]
    if humans:
        header.append("humans agree")
    if sacrebleu:
        header.append("sacrebleu mean ± 95% CI")
    rows = []
    previous = None
    for key, meta, name, e in _rows(report):
        if previous is not None and key != previous:
            rows.append(("",) * len(header))
        label = meta["label"] if key != previous else ""
        previous = key
        prefix = "Baseline: " if name == report["baseline"] else ""
        units = "-" if e.get("n_units") is None else f"{e['n_units']} {e.get('unit', '')}"
        row = [label, prefix + name, fmt(e["score"], 4), _interval(e), units, _p(e),
               _test(e)]
        if humans:
            row.append(_agreement(e))
        if sacrebleu:
            row.append(f"({fmt(e['mean'], 4)} ± {fmt(e['ci'], 4)})"
                       if e.get("unit") == "segment" and e.get("mean") is not None else "")
        rows.append(tuple(row))
    text = render_table(tuple(header), rows, align_left=2)
    min_units = report.get("min_units")
    lines = [text, f"resampling: {report['signature']}",
             "* p < 0.05 against the baseline (paired test); never from a bootstrap on too "
             "few units"]
    few = [e for _k, _m, _n, e in _rows(report) if e.get("too_few")]
    if few and min_units is not None:
        n = min(e["n_units"] for e in few)
        lines.append(f"{TOO_FEW}: {n} {few[0].get('unit', 'unit')}s, fewer than {min_units}: "
                     "no bootstrap interval or p is trusted; the p-value is the exact "
                     f"randomisation test over all 2^{n} = {2 ** n} swaps, whose smallest "
                     f"possible value is 2/2^{n} = {2 / 2 ** n:.4f}")
    elif any(e.get("test") == "ar-exact" for _k, _m, _n, e in _rows(report)):
        lines.append("ar-exact: every swap assignment enumerated (2^n of them); smallest "
                     "possible p = 2/2^n")
    if report.get("tie_tolerance") is not None:
        lines.append(f"ties: units whose statistics agree within {report['tie_tolerance']:g} "
                     "(relative) are the baseline's in every test")
    if _human_curve(report):
        lines.append("humans agree: probability that humans rank the two systems as the "
                     "metric difference does (Kocmi et al. 2024, mt-thresholds); BLEU and chrF "
                     "with sacreBLEU's default settings only; one curve pooled over many "
                     "language pairs, so on one pair it may be far off; below its coin-toss "
                     "point it reads '≤ 50 % (coin toss)', at Δ = 0 nothing")
    if sacrebleu:
        lines.append("sacrebleu mean ± 95% CI: sacrebleu's own output (segment rows)")
    for meta in report["metric_signatures"].values():
        note = "" if meta["resampling"] == report["signature"] else \
            f"  [resampled: {meta['resampling']}]"
        lines.append(f"{meta['label']}: {meta['signature']}{note}")
    for name, q in (report.get("question_value") or {}).items():   # issue 34
        from llgui.io.export import question_summary_line

        lines.append(question_summary_line(q, name))
    if report.get("ipmt"):   # interactive-predictive MT effort per system (not tested)
        from llgui.io.export import ipmt_text

        for name, effort in report["ipmt"].items():
            lines.append(f"{name}: {ipmt_text(effort)}")
    return "\n".join(lines) + "\n"


def compare_csv(report: Mapping) -> str:
    rows = [(key, name, name == report["baseline"], e["score"], e["mean"], e["ci"],
             e["p_value"], e.get("low"), e.get("high"), e.get("n_units"), e.get("unit"),
             e.get("too_few"), e.get("test"), e.get("p_min"), e.get("significant"),
             e.get("ties"), (e.get("effect") or {}).get("delta"),
             (e.get("effect") or {}).get("human_agreement"),
             meta["resampling"], meta["signature"])
            for key, meta, name, e in _rows(report)]
    return to_csv(("metric", "system", "baseline", "score", "mean", "ci", "p_value", "low",
                   "high", "n_units", "unit", "too_few", "test", "p_min", "significant",
                   "ties", "delta", "human_agreement", "resampling", "signature"), rows)
