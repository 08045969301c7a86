"""Writers of the `regressions` report (llgui.core.reports.regressions): a summary table per
version pair and per online run, then one row per flip / relapse; CSV of the rows."""
from __future__ import annotations

from typing import Mapping

from llgui.io.export import fmt, render_table, to_csv

ROW_COLUMNS = ("kind", "system", "before", "after", "batch", "unit", "score_before",
               "score_after", "delta", "correction", "taught", "cost", "retest", "output",
               "outcome")


def regressions_csv(report: Mapping) -> str:
    rows = []
    for r in report["rows"]:
        if r["kind"] == "flip":
            rows.append([r["kind"], r["system"], r["before"], r["after"], r["batch"], r["unit"],
                         r["score_before"], r["score_after"], r["delta"], None, None, None,
                         None, None, None])
        else:
            rows.append([r["kind"], r["system"], r["before"], None, None, r["unit"], None, None,
                         None, r["correction"], r["taught"], r["cost"], r["retest"],
                         r["output"], r["outcome"]])
    return to_csv(ROW_COLUMNS, rows)


def _pct(value) -> str:
    return fmt(value)


def regressions_table(report: Mapping) -> str:
    out = [f"regressions  {report['signature']}  (NFR, NFI in %, 95 % bootstrap interval "
           f"over units)\n"]
    if report["flips"]:
        rows = []
        for s in report["flips"]:
            for p in s["pairs"]:
                lo, hi = p["nfr_interval"]
                nlo, nhi = p["nfi_interval"]
                rows.append([s["name"], f"{p['before']}->{p['after']}", p["n_units"], p["flips"],
                             _pct(p["nfr"]), f"[{_pct(lo)}, {_pct(hi)}]", _pct(p["nfi"]),
                             f"[{_pct(nlo)}, {_pct(nhi)}]"])
        out.append(render_table(("system", "versions", "units", "flips", "NFR", "NFR 95%",
                                 "NFI", "NFI 95%"), rows, align_left=2))
    if report["relapses"]:
        rows = [[s["name"], s["corrections"], s["retested"], s["relapsed"], _pct(s["rate"]),
                 _pct(s["cost_rate"])] for s in report["relapses"]]
        out.append("\n" + render_table(("system", "corrections", "re-tested", "relapsed",
                                        "rate %", "cost-weighted %"), rows))
    if report["rows"]:
        rows = []
        for r in report["rows"]:
            if r["kind"] == "flip":
                rows.append(["flip", r["system"], f"{r['before']}->{r['after']}",
                             f"{r['batch']} {r['unit']}", fmt(r["score_before"]),
                             fmt(r["score_after"]), fmt(r["delta"])])
            else:
                rows.append(["relapse", r["system"], r["correction"],
                             f"{r['unit']} in {r['retest']}", str(r["taught"]),
                             str(r["output"]), r["outcome"]])
        out.append("\n" + render_table(("kind", "system", "versions / correction",
                                        "unit", "before / taught", "after / output",
                                        "delta / outcome"), rows, align_left=4))
    return "".join(out)
