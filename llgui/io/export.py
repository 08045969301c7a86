"""Reports written as JSON, CSV and readable tables, shared by the CLI and the GUI.

The reports themselves (plain data in the JSON shapes of DESIGN.md section 7) are assembled in
`llgui.core.reports.commands`; this module only writes them. Scores are percentages, as the reference
tools print them; minDCF and actDCF are plain numbers; DER components are seconds. NaN becomes
JSON null. Files are written atomically (temporary file, then rename).
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from llgui.utils.names import csv_cell, shown

from llgui.core.metrics import display_name
# The reports are assembled in core (llgui.core.reports, plain data); here they are only
# written.

# --------------------------------------------------------------------------------------------
# Plain values


def clean(value):
    """JSON-safe copy: NaN/inf -> None, numpy scalars and arrays -> Python values."""
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [clean(v) for v in value.tolist()]
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def to_json(report: Mapping) -> str:
    return json.dumps(clean(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else _csv_value(v) for v in clean(list(row))])
    # names come from users and systems: no control characters, no formula a spreadsheet
    # would run (OWASP CSV injection: a leading = + - @ tab CR is quoted with ')
    return buffer.getvalue()


def _csv_value(value) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return csv_cell(value)
    return str(value)


def fmt(value, digits: int = 2) -> str:
    """A number for a table: fixed digits, '-' for missing."""
    if value is None:
        return "-"
    if isinstance(value, float) and not math.isfinite(value):
        return "-"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(value)
    return f"{float(value):.{digits}f}"


def render_table(header: Sequence[str], rows: Sequence[Sequence[object]],
                 align_left: int = 1) -> str:
    """A plain aligned text table; the first `align_left` columns are left-aligned."""
    # shown(): a name holding an ANSI escape or a line break cannot rewrite the terminal
    cells = [[shown(h) for h in header]] + [[shown(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for n, row in enumerate(cells):
        parts = [c.ljust(w) if i < align_left else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# replay


REPLAY_COLUMNS = ("step", "initiative", "kind", "cost", "cum_cost", "s_cor", "s_imp",
                  "s_adapt", "s_pen", "s_pen_memorise")


def replay_csv(report: Mapping) -> str:
    return to_csv(("doc", "metric", "mode") + REPLAY_COLUMNS,
                  [(report["doc"], report["metric"], report["mode"])
                   + tuple(s.get(c) for c in REPLAY_COLUMNS) for s in report["steps"]])


CORRECTIONS_COLUMNS = REPLAY_COLUMNS[:3] + ("target", "answer") + REPLAY_COLUMNS[3:]


def corrections_csv(report: Mapping) -> str:
    """The window's corrections table (File › Export, Ctrl+E): the replay's columns with each
    step's target and the human's answer (a `replay` report whose steps carry both)."""
    return to_csv(("doc", "metric", "mode") + CORRECTIONS_COLUMNS,
                  [(report["doc"], report["metric"], report["mode"])
                   + tuple(s.get(c) for c in CORRECTIONS_COLUMNS) for s in report["steps"]])


def replay_table(report: Mapping) -> str:
    name = display_name(report["metric"])
    better = "higher is better" if report["higher_is_better"] else "lower is better"
    out = [f"document {report['doc']} - {name} ({better}) - mode {report['mode']}"
           + (" - CUT SHORT: the run stopped in this document, fewer steps than it would have "
              "had" if report.get("partial") else ""),
           f"signature: {report['signature']}",
           f"S_base = {fmt(report['s_base'])}", ""]
    rows = [(s["step"], s["initiative"], s["kind"], fmt(s["cost"], 1), fmt(s["cum_cost"], 1),
             fmt(s["s_cor"]), fmt(s["s_imp"]) + ("*" if s.get("impaired_better") else ""),
             fmt(s["s_adapt"]), fmt(s["s_pen"]), fmt(s.get("s_pen_memorise")))
            for s in report["steps"]]
    out.append(render_table(("step", "initiative", "kind", "cost", "cum cost", "S_cor", "S_imp",
                             "S_adapt", "S_pen", "S_pen mem"), rows, align_left=3))
    better_side = "above" if report["higher_is_better"] else "below"
    out.append("S_pen mem = the memorise-only reference: S_pen had the system only applied the "
               f"corrections (no generalisation); S_pen {better_side} it ({better}) is net "
               "generalisation.")
    if any(s.get("impaired_better") for s in report["steps"]):
        out.append("* S_imp is better than S_cor at this step: the impaired construction is not "
                   "a lower bound here (see README, 'When S_imp beats S_cor').")
    msr = report["msr"]
    if not report["steps"]:
        out.append("(no steps: this document has no interaction, so S_pen = S_base is no "
                   "result)")
    area = report["curve_area"]
    area_text = ("learning-curve area: none (no cost)"
                 if area is None or (isinstance(area, float) and math.isnan(area))
                 else f"learning-curve area = {fmt(area)} (normalised by cost "
                      f"{fmt(report['max_cost'], 1)})")
    out.append(f"final: S_adapt = {fmt(report['s_adapt'])}, S_pen = {fmt(report['s_pen'])}; "
               f"{area_text}; MSR = "
               + (f"{fmt(msr)} %" if msr is not None else f"n/a ({name} is not an error count)"))
    if report.get("question_value"):   # issue 34: the system's questions, valued
        out.append(question_summary_line(report["question_value"], "document"))
    if report.get("ipmt"):
        out.append(ipmt_text(report["ipmt"]))
    return "\n".join(out) + "\n"


def ipmt_text(effort: Mapping) -> str:
    """One line: an interactive-predictive MT effort (`llgui.core.mt.ipmt`), in percent."""
    parts = ", ".join(f"{title} {fmt(effort[key])} %" for key, title in
                      (("wsr", "WSR"), ("ksr", "KSR"), ("mar", "MAR"), ("ksmr", "KSMR"))
                      if effort.get(key) is not None)
    text = (f"interactive-predictive MT effort ({effort['unit']}-level, "
            f"{effort['sentences']} sentences accepted): {parts}")
    if effort.get("open_sentences"):
        text += f"; {effort['open_sentences']} sentences left unfinished are not counted"
    return text


# --------------------------------------------------------------------------------------------
# score


def question_summary_line(q: Mapping, what: str = "run") -> str:
    """One line: request precision, asked / random / best, gain and regret."""
    run = q["run"] if "run" in q else q
    precision = run["precision"]
    return (f"question value ({q.get('unit', 'errors')}, {what}): {run['questions']} questions, "
            f"precision {fmt(None if precision is None else 100 * precision, 1)} %, "
            f"asked {fmt(run['asked'])} vs random {fmt(run['random'])} vs best "
            f"{fmt(run['best'])}: gain over random {fmt(run['gain'])}"
            f"{gain_interval_text(run.get('gain_interval'))}, regret {fmt(run['regret'])}")


def gain_interval_text(interval: Mapping | None) -> str:
    """" [lo, hi] (95 % percentile bootstrap over the run's n questions, seed s)", or ""."""
    if not interval:
        return ""
    return (f" [{fmt(interval['low'])}, {fmt(interval['high'])}] "
            f"({round(100 * interval['level'])} % {interval['method']}, "
            f"{interval['resamples']} resamples, seed {interval['seed']})")


def score_csv(report: Mapping) -> str:
    rows = []
    for doc in report["documents"]:
        for metric, value in doc["scores"].items():
            rows.append((doc["id"], doc["time"], metric, "score", value))
            # DER's miss / false_alarm / confusion / total seconds (per document, as in JSON)
            for part, seconds in doc.get("components", {}).get(metric, {}).items():
                if metric == "der":
                    rows.append((doc["id"], doc["time"], metric, part, seconds))
            pen = doc.get("penalised", {}).get(metric)
            if pen:
                for key in ("s_adapt", "s_pen"):
                    rows.append((doc["id"], doc["time"], metric, key, pen[key]))
    for metric, aggregate in report["aggregates"].items():
        for kind, value in aggregate.items():
            rows.append((f"<{kind}>", "", metric, "score", value))
    for metric, summary in report.get("penalised", {}).items():
        for kind, values in summary.items():
            for key in ("s_adapt", "s_pen"):
                rows.append((f"<{kind}>", "", metric, key, values[key]))
    q = report.get("question_value")
    if q and q.get("run"):   # the question value of the log's active steps (issue 34), as
        run = q["run"]       # trailing rows like the aggregates': document "<questions>"
        for key in ("questions", "touched", "precision", "cost", "asked", "random", "best",
                    "gain", "regret", "lift"):
            rows.append(("<questions>", "", q["metric"], key, run.get(key)))
        if run.get("gain_interval"):
            for key in ("low", "high"):
                rows.append(("<questions>", "", q["metric"], f"gain_{key}",
                             run["gain_interval"][key]))
    return to_csv(("document", "time", "metric", "quantity", "value"), rows)


def score_table(report: Mapping) -> str:
    metrics = list(report["metrics"])
    names = [display_name(m) for m in metrics]
    penalised = report.get("penalised", {})
    # with a log, each metric's S_base (the score column), S_adapt and S_pen side by side
    shown = ("s_adapt", "s_pen") if penalised else ()
    header = ["document", "time"]
    for m, name in zip(metrics, names):
        header += [name] + [f"{name} {k[2:]}" for k in shown]
    rows = []
    for doc in report["documents"]:
        row = [doc["id"] + (" (cut short)" if doc.get("partial") else ""), doc["time"]]
        for m in metrics:
            row.append("nothing scored" if m in doc.get("notes", {}) else fmt(doc["scores"][m]))
            if shown:
                if doc["penalised"][m]["steps"] == 0:
                    row += ["(no steps)"] * len(shown)
                else:
                    row += [fmt(doc["penalised"][m][k]) for k in shown]
        rows.append(row)
    for kind, label in (("pooled", "pooled"), ("mean", "mean of documents"),
                        ("policy", "policy-weighted")):
        if all(kind in report["aggregates"][m] for m in metrics):
            row = [label, ""]
            for m in metrics:
                row += [fmt(report["aggregates"][m][kind])] + [
                    fmt(penalised[m][kind][k]) if kind in penalised[m] else "-" for k in shown]
            rows.append(row)
    title = report.get("name") or report.get("bundle") or ""
    n = len(report["documents"])
    out = [f"{title} ({report['task']}, {n} document{'' if n == 1 else 's'})", ""]
    out.append(render_table(header, rows, align_left=2))
    partial = report.get("partial")
    if partial:
        out.append(f"{partial['note']}: the run stopped in "
                   f"{', '.join(partial['documents'])} before its end"
                   + (" (--include-partial counts them)" if partial["left_out"] else ""))
    if penalised:
        out.append("score = S_base (the first hypothesis); adapt = S_adapt (the hypothesis after "
                   "the document's last interaction step); pen = the penalised score S_pen "
                   "there (see `llgui replay`).")
    if report.get("ipmt"):
        out.append(ipmt_text(report["ipmt"]))
    for m in metrics:
        components = report["metrics"][m].get("components") or {}
        if m == "der" and components:
            out.append("DER pooled components (s): " + ", ".join(
                f"{k} {fmt(components[k], 3)}" for k in ("miss", "false_alarm", "confusion", "total")
                if k in components))
    if report.get("question_value"):   # issue 34: the system's questions, valued
        out.append(question_summary_line(report["question_value"]))
    out.append("signatures:")
    for m, name in zip(metrics, names):
        out.append(f"  {name}: {report['metrics'][m]['signature']}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# lifelong


def lifelong_csv(report: Mapping) -> str:
    return to_csv(("model", "time", "metric", "policy", "s_p", "s_p_pen"),
                  [(m["model"], m["time"], report["metric"], report["policy"]["name"], m["s_p"],
                    m["s_p_pen"]) for m in report["models"]])


def lifelong_table(report: Mapping) -> str:
    pen = report["penalised"] and any(m["s_p_pen"] is not None for m in report["models"])
    header = ["model", "time", "S_P"] + (["S_P pen"] if pen else [])
    rows = [[m["model"], m["time"], fmt(m["s_p"])] + ([fmt(m["s_p_pen"])] if pen else [])
            for m in report["models"]]
    p = report["policy"]
    s = report["summary"]
    out = [f"{display_name(report['metric'])} weighted by policy {p['name']} ({p['mode']}, "
           f"points {p['points']}, {'normalised' if p.get('normalise', True) else 'raw sum'})",
           "", render_table(header, rows, align_left=2),
           f"continual-learning summary{' of the penalised scores' if s.get('of') == 'value_pen' else ''}: "
           f"ACC {fmt(s['acc'])}, BWT {fmt(s['bwt'])}, "
           f"FWT {fmt(s['fwt'])} (against the {s.get('fwt_baseline', 'first model')}), "
           f"forgetting {fmt(s.get('forgetting', float('nan')))}, "
           f"learning accuracy {fmt(s.get('learning_accuracy', float('nan')))}"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# det


DET_COLUMNS = ("name", "n_target", "n_nontarget", "eer", "eer_method", "min_dcf", "act_dcf")


AT_THRESHOLD_COLUMNS = ("threshold", "tp", "fp", "tn", "fn", "precision", "recall", "f1",
                        "error_rate")


def det_csv(report: Mapping) -> str:
    extra = any("at_threshold" in s for s in report["systems"])
    header = DET_COLUMNS + ("p_target", "c_miss", "c_fa") + (AT_THRESHOLD_COLUMNS if extra else ())
    return to_csv(header, [tuple(s[c] for c in DET_COLUMNS) + tuple(s["dcf"])
                           + (tuple(s["at_threshold"][c] for c in AT_THRESHOLD_COLUMNS)
                              if extra else ()) for s in report["systems"]])


def det_table(report: Mapping) -> str:
    rows = [(s["name"], s["n_target"], s["n_nontarget"], fmt(s["eer"]), s["eer_method"],
             fmt(s["min_dcf"], 4), fmt(s["act_dcf"], 4)) for s in report["systems"]]
    rows = [row[:-1] + ((row[-1] + " !") if s.get("act_dcf_warning") else row[-1],)
            for row, s in zip(rows, report["systems"])]
    p, cm, cfa = report["systems"][0]["dcf"] if report["systems"] else (0, 0, 0)
    notes = "".join(f"! {s['name']}: actDCF takes scores as log-likelihood ratios, and these "
                    f"cannot be: {s['act_dcf_warning']} (--calibrated {s['name']} if they "
                    f"are)\n" for s in report["systems"] if s.get("act_dcf_warning"))
    text = (render_table(("system", "targets", "non-targets", "EER %", "EER method", "minDCF",
                          "actDCF"), rows)
            + f"DCF: P_target={p:g}, C_miss={cm:g}, C_fa={cfa:g} (normalised; actDCF takes "
              "scores as log-likelihood ratios)\n" + notes)
    if any("at_threshold" in s for s in report["systems"]):
        rows = [(s["name"], s["at_threshold"]["tp"], s["at_threshold"]["fp"],
                 s["at_threshold"]["tn"], s["at_threshold"]["fn"],
                 fmt(s["at_threshold"]["precision"]), fmt(s["at_threshold"]["recall"]),
                 fmt(s["at_threshold"]["f1"]), fmt(s["at_threshold"]["error_rate"]))
                for s in report["systems"]]
        t = report["systems"][0]["at_threshold"]["threshold"]
        text += (f"\nat threshold {t:g} (accept score >= threshold):\n"
                 + render_table(("system", "TP", "FP", "TN", "FN", "precision %", "recall %",
                                 "F1 %", "error rate %"), rows))
    return text
