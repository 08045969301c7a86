"""The `llgui effort` report and the question value, written as tables and CSV.

Plain data assembled in `llgui.core.effort` (question value) and `llgui.sim.human` (the live
expert against the oracle); this module only writes them.
"""
from __future__ import annotations

from typing import Mapping

from llgui.io.export import (  # noqa: F401
    fmt, gain_interval_text, question_summary_line, render_table, to_csv,
)


def question_table(q: Mapping) -> str:
    """Per-step rows and the document / run summaries of a question report."""
    out = [f"question value: errors are {q['unit']} ({q['metric']}), costs in "
           f"{q['cost_unit']}", f"definition: {q['definition']}", ""]
    rows = [(s["doc"], s["step"], s["kind"], fmt(s["cost"], 1), fmt(s["asked"]),
             fmt(s["random"]), fmt(s["best"]), fmt(s["gain"]), fmt(s["regret"]),
             "yes" if s["touched"] else "no") for s in q["steps"]]
    out.append(render_table(("doc", "step", "kind", "cost", "asked", "random", "best", "gain",
                             "regret", "touched"), rows, align_left=3))
    out.append("")
    docs = [(d["doc"], d["questions"], fmt(_pct(d["precision"]), 1), fmt(d["asked"]),
             fmt(d["random"]), fmt(d["best"]), fmt(d["gain"]), fmt(d["regret"]),
             fmt(d["lift"])) for d in q["documents"]]
    run = q["run"]
    docs.append(("(run)", run["questions"], fmt(_pct(run["precision"]), 1), fmt(run["asked"]),
                 fmt(run["random"]), fmt(run["best"]), fmt(run["gain"]), fmt(run["regret"]),
                 fmt(run["lift"])))
    out.append(render_table(("doc", "questions", "precision %", "asked", "random", "best",
                             "gain", "regret", "lift"), docs))
    if run.get("gain_interval"):
        out.append(f"gain over random (run) {fmt(run['gain'])}"
                   f"{gain_interval_text(run['gain_interval'])}")
    return "\n".join(out) + "\n"


def question_csv(q: Mapping) -> str:
    return to_csv(("doc", "step", "kind", "cost", "asked", "random", "best", "gain", "regret",
                   "touched"),
                  [(s["doc"], s["step"], s["kind"], s["cost"], s["asked"], s["random"],
                    s["best"], s["gain"], s["regret"], s["touched"]) for s in q["steps"]])


def effort_table(report: Mapping) -> str:
    out: list[str] = []
    for name, q in report.get("questions", {}).items():
        out.append(f"== {name}")
        out.append(question_table(q) if q.get("steps") else "no active step: no question value\n")
    human = report.get("human")
    if human:
        out.append(human_table(human))
    return "\n".join(out)


def human_table(h: Mapping) -> str:
    out = ["== the human against the oracle", agreement_line(h["agreement"])]
    rows = [(c["doc"], c["step"], c["kind"], "yes" if c["agree"] else "no",
             _short(c["human"]), _short(c["oracle"])) for c in h["answers"]]
    if rows:
        out.append(render_table(("doc", "step", "kind", "agree", "human", "oracle"), rows,
                                align_left=3))
    if h.get("not_compared"):
        out.append(f"not compared (no content to compare): {len(h['not_compared'])} steps")
    out.append("")
    fit = h.get("cost_fit")
    if fit:
        head, *warnings = fit_line(fit).split("\n")
        out.append(head + ":")
        out.append(render_table(("weight", "value", f"{round(100 * fit['level'])} % interval",
                                 "unit"), fit_rows(fit)))
        out.extend(warnings)
    else:
        out.append(f"cost model: not fitted ({h.get('cost_fit_problem')})")
    ranking = h.get("ranking")
    if ranking:
        out.append("")
        out.append(ranking_line(ranking))
        out.append(render_table(("system", "live S_pen", "simulated S_pen"),
                                [(s, fmt(ranking["live"].get(s)), fmt(ranking["simulated"].get(s)))
                                 for s in sorted(set(ranking["live"]) | set(ranking["simulated"]))]))
    return "\n".join(out) + "\n"


def agreement_line(a: Mapping) -> str:
    """The human error rate with its interval and the oracle it implies, in one line."""
    low, high = a["interval"]
    level = round(100 * a["level"])
    return (f"answers compared: {a['compared']}, agree {a['agree']}, disagree "
            f"{a['disagree']}: human error rate {fmt(_pct(a['error_rate']), 1)} % "
            f"[{fmt(_pct(low), 1)}, {fmt(_pct(high), 1)}] ({a['method']}, {level} %): the "
            f"oracle {a['noisy']}")


def fit_rows(fit: Mapping) -> list[tuple[str, str, str, str]]:
    """(weight, value, interval, unit) rows of a cost fit, as text."""
    return [(k, fmt(w["value"], 3), f"[{fmt(w['interval'][0], 3)}, {fmt(w['interval'][1], 3)}]",
             w["unit"]) for k, w in fit["weights"].items()]


def fit_line(fit: Mapping) -> str:
    """The fit's provenance, and a warning per weight informed by too few steps."""
    warnings = [w["warning"] for w in fit["weights"].values() if w.get("warning")]
    return (f"cost model fitted to {fit['steps']} steps' seconds ({fit['method']}; residual sd "
            f"{fmt(fit['residual_sd'])} s, R2 {fmt(fit['r2'], 3)}; "
            f"{round(100 * fit['level'])} % t intervals)"
            + "".join(f"\nwarning: {w}" for w in warnings))


def ranking_line(ranking: Mapping) -> str:
    return (f"rankings by pooled S_pen ({ranking['metric']}), live vs simulated: Kendall's tau = "
            f"{fmt(ranking['tau'], 3)} (p = {fmt(ranking['p_value'], 3)}, "
            f"{len(ranking['systems'])} systems)")


def effort_csv(report: Mapping) -> str:
    """One row per number: section, key, value (question value per step; answers; weights)."""
    rows = []
    for name, q in report.get("questions", {}).items():
        for s in q.get("steps", ()):
            for key in ("cost", "asked", "random", "best", "gain", "regret", "touched"):
                rows.append(("question", name, s["doc"], s["step"], key, s[key]))
        interval = q.get("run", {}).get("gain_interval")
        if interval:
            rows.append(("question_run", name, "", "", "gain", q["run"]["gain"]))
            rows.append(("question_run", name, "", "", "gain_low", interval["low"]))
            rows.append(("question_run", name, "", "", "gain_high", interval["high"]))
    h = report.get("human")
    if h:
        for c in h["answers"]:
            rows.append(("answer", "", c["doc"], c["step"], "agree", c["agree"]))
        a = h["agreement"]
        for key in ("compared", "disagree", "error_rate"):
            rows.append(("agreement", "", "", "", key, a[key]))
        rows.append(("agreement", "", "", "", "low", a["interval"][0]))
        rows.append(("agreement", "", "", "", "high", a["interval"][1]))
        if h.get("cost_fit"):
            for k, w in h["cost_fit"]["weights"].items():
                rows.append(("cost_fit", k, "", "", "value", w["value"]))
                rows.append(("cost_fit", k, "", "", "low", w["interval"][0]))
                rows.append(("cost_fit", k, "", "", "high", w["interval"][1]))
        if h.get("ranking"):
            rows.append(("ranking", h["ranking"]["metric"], "", "", "tau", h["ranking"]["tau"]))
    return to_csv(("section", "name", "doc", "step", "key", "value"), rows)


def _pct(value):
    return None if value is None else 100.0 * value


def _short(value, width: int = 40) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"
