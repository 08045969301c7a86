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


def _listed(rows, top: int | None):
    """The table's rows: at most `top` per version pair of a system (flips) or per online
    run (relapses), in the report's order (worst first), then `… N more` where some are not
    listed; every row when `top` is None."""
    if top is None:
        yield from ((r, 0) for r in rows)
        return

    def key(r):
        return (r["kind"], r["system"], r.get("before") if r["kind"] == "flip" else None,
                r.get("after") if r["kind"] == "flip" else None)

    group, count = None, 0
    for r in rows:
        if key(r) != group:
            if count > top:
                yield last, count - top
            group, count = key(r), 0
        count += 1
        last = r
        if count <= top:
            yield r, 0
    if count > top:
        yield last, count - top


def regressions_table(report: Mapping, top: int | None = None) -> str:
    """The report as text; `top`: the units listed per version pair / online run (`llgui
    regressions --top`, default every one), the rest counted on a `… N more` row."""
    out = []
    if report["flips"]:
        out.append(f"negative flips  {report['signature']}  (NFR, NFI in %, 95 % bootstrap "
                   f"interval over units)\n")
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
        out.append(("\n" if out else "") + "relapses (a correction re-tested by a later "
                   "version: relapsed when its error is back)\n"
                   + render_table(("system", "corrections", "re-tested", "relapsed",
                                   "rate %", "cost-weighted %"), rows))
    if report.get("replicates"):
        rows = [[s["name"], len(s["scores"]), fmt(s["mean"]), fmt(s["sd"]), fmt(s["min"]),
                 fmt(s["max"])] for s in report["replicates"]]
        out.append(f"\nreplicates ({report['metric']}, last version, pooled over the "
                   f"batches)\n" + render_table(("system", "replicates", "mean", "sd", "min",
                                                 "max"), rows))
    for t in report.get("replicate_tests", ()):
        single = t["single_run"]
        out.append(f"{t['a']} - {t['b']}: {fmt(t['difference'])} (95 % [{fmt(t['interval'][0])}"
                   f", {fmt(t['interval'][1])}], p = {t['p_value']:.4f}"
                   f"{', inside the replicate spread' if t['inside_spread'] else ''})"
                   f"{' *' if t['significant'] else ''}; single runs {single['a']} - "
                   f"{single['b']}: {fmt(single['difference'])}, p = {single['p_value']:.4f}"
                   f"{' *' if single['significant'] else ''}\n")
    if report["rows"]:
        rows = []
        for r, more in _listed(report["rows"], top):
            if more:
                where = (f"{r['before']}->{r['after']}" if r["kind"] == "flip" else
                         "online run")
                rows.append(["…", r["system"], where, f"{more} more (--top {top})", "", "",
                             ""])
            elif r["kind"] == "flip":
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
