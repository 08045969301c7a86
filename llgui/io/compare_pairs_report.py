"""`llgui compare --all-pairs` output as a table or CSV, and the human-agreement block.

The table lists each system's score with its 95 % percentile interval, then one row per pair
and metric: the two systems, the difference (b - a), the p-value, the adjusted p-value
(Holm's, when asked) with `*` where it is below the level, which system is better, and the
effect size, the chance that humans agree with the ranking (BLEU and chrF, Kocmi et al.
2024, as `compare`'s). A header says how many pairs were tested and what a 0.05 level means
over that many; the source (which model versions and batches a campaign's outputs are) and
the signatures follow.
"""
from __future__ import annotations

from typing import Mapping

from llgui.io.compare_report import _agreement, _interval
from llgui.io.export import fmt, render_table, to_csv


def _rows(report: Mapping):
    for key, meta in report["metric_signatures"].items():
        for pair in report["pairs"]:
            e = pair["metrics"][key]
            yield {"metric": meta["label"], "a": pair["a"], "b": pair["b"],
                   "delta": e["delta"], "p_value": e["p_value"], "p_adjusted": e["p_adjusted"],
                   "significant": e["significant"], "better": e["better"] or "",
                   "human_agreement": (e.get("effect") or {}).get("human_agreement"),
                   "humans_agree": _agreement(e)}


def _pairs(n: int) -> str:
    return f"{n} pair" + ("" if n == 1 else "s")


def pairs_table(report: Mapping) -> str:
    n = report["n_pairs"]
    if report["correction"] == "holm":
        head = (f"{_pairs(n)} of {len(report['systems'])} systems per metric; p-values "
                f"adjusted by Holm's method (Holm 1979) over each metric's {_pairs(n)}: '*' = "
                f"adjusted p < {report['level']:g}")
    else:
        head = (f"{_pairs(n)} of {len(report['systems'])} systems per metric, no correction: at "
                f"level {report['level']:g} about {report['level'] * n:.1f} pairs would be "
                f"'significant' by chance alone (--correction holm adjusts for it)")
    smallest = report.get("smallest_adjusted_p")
    if smallest is not None and smallest >= report["level"]:
        head += (f"\nwith {report['samples']} resamples no p is below 1/{report['samples'] + 1}"
                 f", so no adjusted p can be below {smallest:.4f}: nothing can be starred; "
                 f"use --samples {int(n / report['level']) + 1} or more")
    scores = [[s["name"]] + [cell for k in report["metric_signatures"]
                             for cell in (fmt(s["metrics"][k]["score"], 2),
                                          _interval(s["metrics"][k]))]
              for s in report["systems"]]
    labels = [text for m in report["metric_signatures"].values()
              for text in (m["label"], "95% interval")]
    rows = [[r["metric"], r["a"], r["b"], fmt(r["delta"], 2), f"{r['p_value']:.4f}",
             (f"{r['p_adjusted']:.4f}" if r["p_adjusted"] is not None else "")
             + ("*" if r["significant"] else ""), r["better"], r["humans_agree"]]
            for r in _rows(report)]
    source = report.get("source") or {}
    lines = [head, "", render_table(["system", *labels], scores).rstrip("\n"), "",
             render_table(["metric", "a", "b", "b - a", "p", "p adjusted", "better",
                           "humans agree"], rows).rstrip("\n"), ""]
    if source.get("kind") == "cells":
        models = ", ".join(f"{k} {v}" for k, v in source["models"].items())
        lines.append(f"compared: {source['what']} ({models}); batches "
                     f"{', '.join(source['batches'])}, {source['n_units']} units"
                     + (f"; left out: {', '.join(source['batches_left_out'])}"
                        if source.get("batches_left_out") else ""))
    lines.append("95% interval: percentile interval of the resampled scores; humans agree: "
                 "probability that humans rank a and b as the metric's b - a does (Kocmi et "
                 "al. 2024, mt-thresholds; BLEU and chrF with sacreBLEU's default settings, "
                 "one curve pooled over many language pairs)")
    lines.append(f"resampling: {report['signature']}")
    for key, meta in report["metric_signatures"].items():
        lines.append(f"{meta['label']}: {meta['signature']}")
    return "\n".join(lines) + "\n"


def pairs_csv(report: Mapping) -> str:
    header = ["metric", "a", "b", "delta", "p_value", "p_adjusted", "significant", "better",
              "human_agreement"]
    return to_csv(header, [[r[k] for k in header] for r in _rows(report)])


def agreement_table(human: Mapping) -> str:
    """Each metric's pairwise accuracy and soft pairwise accuracy against the human scores."""
    rows = []
    for key, e in human["metrics"].items():
        spa = e["soft_pairwise_accuracy"]
        rows.append([key, f"{100 * e['pairwise_accuracy']:.1f}%" if e["pairs"] else "-",
                     str(e["pairs"]), f"{spa:.4f}" if spa is not None else
                     f"- ({e['spa_reason']})"])
    lines = [f"agreement with human scores: {human['file']}"
             + (f" ({human['pair']})" if human.get("pair") else "")
             + f", {human['n_systems']} systems with both",
             render_table(["metric", "pairwise accuracy", "pairs", "soft pairwise accuracy"],
                          rows).rstrip("\n"),
             "pairwise accuracy: Kocmi et al. 2021; soft pairwise accuracy: Thompson et al. "
             "2024 (WMT24 metrics task)"]
    if human.get("systems_without_human_score"):
        lines.append("without a human score: " + ", ".join(human["systems_without_human_score"]))
    return "\n".join(lines) + "\n"
