"""Reports as JSON, CSV and readable tables: one builder per CLI command, shared with the GUI.

The report builders turn core results into the JSON shapes of DESIGN.md section 7 (keys may be
added, never renamed). Scores are percentages, as the reference tools print them; minDCF and
actDCF are plain numbers; DER components are seconds. NaN becomes JSON null. Writers are
atomic (temporary file, then rename), so an interrupted export never leaves half a file.
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import Iterable, Mapping, Sequence

import numpy as np

from llgui.core.atomic import write_atomic  # noqa: F401 - re-exported for callers
from llgui.core.penalty import Replay
from llgui.core.types import Document

DISPLAY = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER", "wer": "WER", "der": "DER",
           "jer": "JER", "eer": "EER", "min_dcf": "minDCF", "act_dcf": "actDCF"}


def display_name(metric: str) -> str:
    return DISPLAY.get(metric, metric)


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
    return buffer.getvalue()


def _csv_value(value) -> str:
    if isinstance(value, float):
        return repr(value)
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
    cells = [[str(h) for h in header]] + [[str(c) for c in row] for row in rows]
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


def replay_report(replay: Replay) -> dict:
    """The `replay` JSON shape of DESIGN.md section 7."""
    return {
        "doc": replay.doc,
        "metric": replay.metric,
        "mode": replay.mode,
        "signature": replay.signature,
        "higher_is_better": replay.higher_is_better,
        "s_base": replay.s_base,
        "steps": [
            {"step": s.step, "initiative": s.initiative, "kind": s.kind, "cost": s.cost,
             "cum_cost": s.cum_cost, "s_cor": s.s_cor, "s_imp": s.s_imp, "s_adapt": s.s_adapt,
             "s_pen": s.s_pen, "impaired_better": replay.impaired_better(s)}
            for s in replay.steps
        ],
        "s_adapt": replay.s_adapt,
        "s_pen": replay.s_pen,
        "msr": replay.msr,
        "curve_area": replay.curve_area,
        "max_cost": replay.max_cost,
    }


REPLAY_COLUMNS = ("step", "initiative", "kind", "cost", "cum_cost", "s_cor", "s_imp",
                  "s_adapt", "s_pen")


def replay_csv(report: Mapping) -> str:
    return to_csv(("doc", "metric", "mode") + REPLAY_COLUMNS,
                  [(report["doc"], report["metric"], report["mode"])
                   + tuple(s[c] for c in REPLAY_COLUMNS) for s in report["steps"]])


def replay_table(report: Mapping) -> str:
    name = display_name(report["metric"])
    better = "higher is better" if report["higher_is_better"] else "lower is better"
    out = [f"document {report['doc']} - {name} ({better}) - mode {report['mode']}",
           f"signature: {report['signature']}",
           f"S_base = {fmt(report['s_base'])}", ""]
    rows = [(s["step"], s["initiative"], s["kind"], fmt(s["cost"], 1), fmt(s["cum_cost"], 1),
             fmt(s["s_cor"]), fmt(s["s_imp"]) + ("*" if s.get("impaired_better") else ""),
             fmt(s["s_adapt"]), fmt(s["s_pen"]))
            for s in report["steps"]]
    out.append(render_table(("step", "initiative", "kind", "cost", "cum cost", "S_cor", "S_imp",
                             "S_adapt", "S_pen"), rows, align_left=3))
    if any(s.get("impaired_better") for s in report["steps"]):
        out.append("* S_imp is better than S_cor at this step: the impaired construction is not "
                   "a lower bound here (see README, 'When S_imp beats S_cor').")
    msr = report["msr"]
    out.append(f"final: S_adapt = {fmt(report['s_adapt'])}, S_pen = {fmt(report['s_pen'])}; "
               f"learning-curve area = {fmt(report['curve_area'])} (normalised by cost "
               f"{fmt(report['max_cost'], 1)}); MSR = "
               + (f"{fmt(msr)} %" if msr is not None else f"n/a ({name} is not an error count)"))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# score


def document_entry(document: Document) -> dict:
    return {"id": document.id, "time": document.time.text, "scores": {}, "components": {}}


def score_report(bundle, metrics: Sequence[str], policy=None) -> dict:
    """The `score` JSON shape: per-metric pooled score and signature, aggregates (pooled,
    mean, and with a policy the policy-weighted mean), per-document scores and components.
    When the bundle has an interaction log, each document also gets its penalised summary."""
    from llgui.core.penalty import replay_bundle
    from llgui.core.policy import document_weights
    from llgui.core.scoring import score_bundle, scores_from_replay

    # with a log, one replay per metric gives both the scores as they stand (S_base) and the
    # penalised ones: every document is scored once, not twice
    replays = {name: replay_bundle(bundle, name) for name in metrics} \
        if bundle.steps and bundle.documents else None
    results = (tuple(scores_from_replay(replays[name]) for name in metrics) if replays
               else score_bundle(bundle, tuple(metrics)))
    weights = (document_weights(policy[1], [d.time.value for d in bundle.documents])
               if policy else None)
    report = {"task": bundle.task, "bundle": bundle.path, "name": bundle.name,
              "metrics": {}, "aggregates": {}, "documents": []}
    if policy:
        report["policy"] = {"name": policy[0], **policy[1].to_dict()}
    for r in results:
        report["metrics"][r.name] = {"score": r.pooled, "signature": r.signature,
                                     "higher_is_better": r.metric.higher_is_better,
                                     "components": dict(r.pooled_components())}
        aggregate = {"pooled": r.pooled, "mean": r.mean}
        if weights is not None:
            aggregate["policy"] = r.weighted(weights)
        report["aggregates"][r.name] = aggregate
    for i, document in enumerate(bundle.documents):
        entry = document_entry(document)
        for r in results:
            entry["scores"][r.name] = r.documents[i].score
            components = r.components(i)
            if components:
                entry["components"][r.name] = dict(components)
        report["documents"].append(entry)
    if replays:
        _add_penalised(report, replays, metrics, weights)
    return report


def _add_penalised(report: dict, replays: Mapping, metrics: Sequence[str], weights) -> None:
    report["penalised"] = {}
    for name in metrics:
        result = replays[name]
        summary = {
            "pooled": {"s_base": result.pooled_base, "s_adapt": result.pooled_adapt,
                       "s_pen": result.pooled_pen},
            "mean": {a: result.mean(a) for a in ("s_base", "s_adapt", "s_pen")},
        }
        if weights is not None:
            summary["policy"] = {a: result.weighted(a, weights)
                                 for a in ("s_base", "s_adapt", "s_pen")}
        report["penalised"][name] = summary
        for entry, r in zip(report["documents"], result.replays):
            entry.setdefault("penalised", {})[name] = {
                "s_base": r.s_base, "s_adapt": r.s_adapt, "s_pen": r.s_pen,
                "steps": len(r.steps), "cost": r.total_cost, "msr": r.msr}


def score_csv(report: Mapping) -> str:
    rows = []
    for doc in report["documents"]:
        for metric, value in doc["scores"].items():
            rows.append((doc["id"], doc["time"], metric, "score", value))
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
    return to_csv(("document", "time", "metric", "quantity", "value"), rows)


def score_table(report: Mapping) -> str:
    metrics = list(report["metrics"])
    names = [display_name(m) for m in metrics]
    penalised = report.get("penalised", {})
    header = ["document", "time"] + names
    if penalised:
        header += [f"{display_name(m)} pen" for m in metrics]
    rows = []
    for doc in report["documents"]:
        row = [doc["id"], doc["time"]] + [fmt(doc["scores"][m]) for m in metrics]
        if penalised:
            row += [fmt(doc["penalised"][m]["s_pen"]) for m in metrics]
        rows.append(row)
    for kind, label in (("pooled", "pooled"), ("mean", "mean of documents"),
                        ("policy", "policy-weighted")):
        if all(kind in report["aggregates"][m] for m in metrics):
            row = [label, ""] + [fmt(report["aggregates"][m][kind]) for m in metrics]
            if penalised:
                row += [fmt(penalised[m][kind]["s_pen"]) if kind in penalised[m] else "-"
                        for m in metrics]
            rows.append(row)
    title = report.get("name") or report.get("bundle") or ""
    out = [f"{title} ({report['task']}, {len(report['documents'])} documents)", ""]
    out.append(render_table(header, rows, align_left=2))
    if penalised:
        out.append("pen = penalised score S_pen after the document's last interaction step "
                   "(see `llgui replay`).")
    for m in metrics:
        components = report["metrics"][m].get("components") or {}
        if m == "der" and components:
            out.append("DER pooled components (s): " + ", ".join(
                f"{k} {fmt(components[k], 3)}" for k in ("miss", "false_alarm", "confusion", "total")
                if k in components))
    out.append("signatures:")
    for m, name in zip(metrics, names):
        out.append(f"  {name}: {report['metrics'][m]['signature']}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# lifelong


def lifelong_report(table, metric: str, policy_name: str, policy, penalised: bool = False) -> dict:
    """The `lifelong` JSON shape: S_P (and S_P of the penalised scores) per model version."""
    from llgui.core.lifelong import continual_summary, policy_scores

    s_p = policy_scores(table, metric, policy)
    s_p_pen = (policy_scores(table, metric, policy, penalised=True)
               if metric in table.values_pen else None)
    summary = continual_summary(table, metric)
    report = {
        "metric": metric,
        "policy": {"name": policy_name, **policy.to_dict()},
        "penalised": bool(penalised),
        "models": [
            {"model": m, "time": t.text, "s_p": float(s_p[i]),
             "s_p_pen": float(s_p_pen[i]) if s_p_pen is not None else None}
            for i, (m, t) in enumerate(zip(table.models, table.model_times))
        ],
        "summary": {"acc": summary.acc, "bwt": summary.bwt, "fwt": summary.fwt},
    }
    return report


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
           f"continual-learning summary: ACC {fmt(s['acc'])}, BWT {fmt(s['bwt'])}, "
           f"FWT {fmt(s['fwt'])}"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# det


def det_report(trials: Sequence, dcf: Sequence[float], eer_method: str = "rocch") -> dict:
    """The `det` JSON shape: EER in percent (with its method), minDCF and actDCF plain."""
    from llgui.core.det import evaluate_systems

    systems = []
    for t, result in zip(trials, evaluate_systems(tuple(trials), tuple(dcf), eer_method)):
        systems.append({
            "name": t.name, "n_target": t.n_target, "n_nontarget": t.n_nontarget,
            "eer": 100.0 * result.eer, "eer_method": result.eer_method,
            "min_dcf": result.min_dcf, "act_dcf": result.act_dcf, "dcf": list(dcf),
        })
    return {"systems": systems}


DET_COLUMNS = ("name", "n_target", "n_nontarget", "eer", "eer_method", "min_dcf", "act_dcf")


def det_csv(report: Mapping) -> str:
    return to_csv(DET_COLUMNS + ("p_target", "c_miss", "c_fa"),
                  [tuple(s[c] for c in DET_COLUMNS) + tuple(s["dcf"]) for s in report["systems"]])


def det_table(report: Mapping) -> str:
    rows = [(s["name"], s["n_target"], s["n_nontarget"], fmt(s["eer"]), s["eer_method"],
             fmt(s["min_dcf"], 4), fmt(s["act_dcf"], 4)) for s in report["systems"]]
    p, cm, cfa = report["systems"][0]["dcf"] if report["systems"] else (0, 0, 0)
    return (render_table(("system", "targets", "non-targets", "EER %", "EER method", "minDCF",
                          "actDCF"), rows)
            + f"DCF: P_target={p:g}, C_miss={cm:g}, C_fa={cfa:g} (normalised; actDCF takes "
              "scores as log-likelihood ratios)\n")
