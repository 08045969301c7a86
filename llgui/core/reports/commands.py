"""The reports of the CLI commands and the GUI's exports, assembled as plain data.

One builder per command, in the JSON shapes of DESIGN.md section 7 (keys may be added, never
renamed): `score_report`, `replay_report`, `lifelong_report`, `det_report`. They run the core
computations and return dicts of plain values (NaN where there is no number); `llgui.io.export`
writes them as JSON, CSV or tables, and the GUI shows the same objects.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from llgui.core.mt.ipmt import add_ipmt
from llgui.core.penalty import Replay
from llgui.core.types import Document


def tidy(value):
    """A derived sum (a cost, seconds) rounded to 1e-9: summing 0.01-s turns or word costs
    leaves float noise (13.710000000000036) that no input had. Scores are never tidied.
    Mappings are tidied value by value; None and non-finite values pass through."""
    if isinstance(value, Mapping):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return round(float(value), 9) + 0.0  # + 0.0: no "-0.0"
    return value


def replay_report(replay: Replay) -> dict:
    """The `replay` JSON shape of DESIGN.md section 7."""
    return {
        "doc": replay.doc,
        "metric": replay.metric,
        "mode": replay.mode,
        "n_steps": len(replay.steps),
        "cost_unit": replay.cost_unit,
        "signature": replay.signature,
        "higher_is_better": replay.higher_is_better,
        "s_base": replay.s_base,
        "steps": [
            {"step": s.step, "initiative": s.initiative, "kind": s.kind, "cost": tidy(s.cost),
             "cum_cost": tidy(s.cum_cost), "s_cor": s.s_cor, "s_imp": s.s_imp,
             "s_adapt": s.s_adapt, "s_pen": s.s_pen,
             "impaired_better": replay.impaired_better(s),
             "s_pen_memorise": s.s_pen_memorise}
            for s in replay.steps
        ],
        "s_adapt": replay.s_adapt,
        "s_pen": replay.s_pen,
        "s_pen_memorise": replay.s_pen_memorise,
        "msr": replay.msr,
        "msr_cost": replay.msr_cost,
        "curve_area": replay.curve_area,
        "max_cost": tidy(replay.max_cost),
    }


def document_entry(document: Document) -> dict:
    return {"id": document.id, "time": document.time.text, "scores": {}, "components": {}}


def score_report(bundle, metrics: Sequence[str], policy=None, mode: str = "paper",
                 include_partial: bool = False) -> dict:
    """The `score` JSON shape: per-metric pooled score and signature, aggregates (pooled,
    mean, and with a policy the policy-weighted mean), per-document scores and components.
    When the bundle has an interaction log, each document also gets its penalised summary:
    mode "paper" for every metric, or mode "llmt" (the WMT LLMT scorer) for BLEU only.
    Documents cut short (`bundle.partial`, a run stopped in them) are listed, marked
    `"partial": true`, and left out of every aggregate unless `include_partial`; the report's
    `"partial"` says which and how (`llgui.core.partial`)."""
    from llgui.core.penalty import replay_bundle
    from llgui.core.across_time.policy import document_weights
    from llgui.core.scoring import MetricScores, score_bundle, scores_from_replay

    # with a log, one replay per metric gives both the scores as they stand (S_base) and the
    # penalised ones: every document is scored once, not twice
    penalised = [m for m in metrics if mode == "paper" or m == "bleu"]
    replays = ({name: replay_bundle(bundle, name, mode=mode, include_partial=include_partial)
                for name in penalised}
               if bundle.steps and bundle.documents else {})
    if replays:
        results = tuple(scores_from_replay(replays[name]) if name in replays
                        else score_bundle(bundle, (name,))[0] for name in metrics)
    else:
        results = score_bundle(bundle, tuple(metrics))
    weights = (document_weights(policy[1], [d.time.value for d in bundle.documents])
               if policy else None)
    from llgui.core.partial import partial_entry

    cut = set(getattr(bundle, "partial", ()) or ())
    left_out = [] if include_partial else [i for i, d in enumerate(bundle.documents)
                                           if d.id in cut]
    report = {"task": bundle.task, "bundle": bundle.path, "name": bundle.name,
              "metrics": {}, "aggregates": {}, "documents": []}
    if policy:
        report["policy"] = {"name": policy[0], **policy[1].to_dict()}
    for r in results:
        counted = r if not left_out else MetricScores(
            r.metric, tuple(d for i, d in enumerate(r.documents) if i not in left_out))
        pooled = counted.pooled if counted.documents else math.nan
        report["metrics"][r.name] = {"score": pooled, "signature": r.signature,
                                     "higher_is_better": r.metric.higher_is_better,
                                     "components": tidy(dict(counted.pooled_components()))
                                     if counted.documents else {}}
        aggregate = {"pooled": pooled, "mean": counted.mean}
        if weights is not None:
            aggregate["policy"] = r.weighted(np.where(
                [i in left_out for i in range(len(r.documents))], 0.0, weights))
        report["aggregates"][r.name] = aggregate
    for i, document in enumerate(bundle.documents):
        entry = document_entry(document)
        if document.id in cut:
            entry["partial"] = True
        for r in results:
            entry["scores"][r.name] = r.score(i)   # NaN, written null: nothing scored
            if math.isnan(r.score(i)):
                entry.setdefault("notes", {})[r.name] = "nothing scored"
            components = r.components(i)
            if components:
                entry["components"][r.name] = tidy(dict(components))
        report["documents"].append(entry)
    report["mode"] = mode
    partial = partial_entry([d.id for d in bundle.documents if d.id in cut],
                            len(bundle.documents), bool(left_out))
    if partial is not None:
        report["partial"] = partial
    if replays:
        _add_penalised(report, replays, weights)
        add_ipmt(report, bundle)   # interactive-predictive MT: WSR, KSR, MAR, KSMR
    return report


def _add_penalised(report: dict, replays: Mapping, weights) -> None:
    report["penalised"] = {}
    for name, result in replays.items():
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
                "steps": len(r.steps), "cost": tidy(r.total_cost),
                "cost_unit": r.cost_unit, "msr": r.msr}


def lifelong_report(table, metric: str, policy_name: str, policy, penalised: bool = False) -> dict:
    """The `lifelong` JSON shape: S_P (and S_P of the penalised scores) per model version."""
    from llgui.core.across_time.scores import continual_summary, policy_scores

    s_p = policy_scores(table, metric, policy)
    s_p_pen = (policy_scores(table, metric, policy, penalised=True)
               if metric in table.values_pen else None)
    # With --penalised the summary describes the penalised scores (value_pen), as S_P does.
    use_pen = bool(penalised) and metric in table.values_pen
    from llgui.core.metrics import higher_is_better

    summary = continual_summary(table, metric, penalised=use_pen,
                                higher_is_better=higher_is_better(metric))
    report = {
        "metric": metric,
        "policy": {"name": policy_name, **policy.to_dict()},
        "penalised": bool(penalised),
        "models": [
            {"model": m, "time": t.text, "s_p": float(s_p[i]),
             "s_p_pen": float(s_p_pen[i]) if s_p_pen is not None else None}
            for i, (m, t) in enumerate(zip(table.models, table.model_times))
        ],
        "summary": {**summary.as_dict(), "of": "value_pen" if use_pen else "value"},
    }
    return report


def det_report(trials: Sequence, dcf: Sequence[float], eer_method: str = "rocch",
               calibrated: Sequence[str] = (), threshold: float | None = None) -> dict:
    """The `det` JSON shape: EER in percent (with its method), minDCF and actDCF plain.
    `act_dcf_warning` says why a system's scores cannot be log-likelihood ratios (then its
    actDCF measures nothing), unless the system is named in `calibrated`. With a `threshold`,
    each system's `at_threshold` counts and P/R/F/error rate in percent."""
    from llgui.core.detection.det import evaluate_systems

    systems = []
    for t, result in zip(trials, evaluate_systems(tuple(trials), tuple(dcf), eer_method)):
        warning = None if t.name in calibrated or "*" in calibrated else result.llr_warning
        system = {
            "name": t.name, "n_target": t.n_target, "n_nontarget": t.n_nontarget,
            "eer": result.eer_percent, "eer_method": result.eer_method,
            "min_dcf": result.min_dcf, "act_dcf": result.act_dcf, "dcf": list(dcf),
            "act_dcf_warning": warning,
        }
        if threshold is not None:
            from llgui.core.detection.analysis import at_threshold

            system["at_threshold"] = at_threshold(t.scores, t.is_target, threshold).to_dict()
        systems.append(system)
    return {"systems": systems}
