"""What persists, for the `campaign` report and the `regressions` one: each system's point
figures (NFR, relapse rate, replicate spread: `add_persistence`, called by the driver) and the
replicate groups' spreads and tests (`replicate_sections`). Imports nothing of the driver
(`llgui.campaign.run` calls this module)."""
from __future__ import annotations

from llgui.core.reports import regressions as R


def _cost_of(bundle):
    """The cost model's cost of a step without a logged cost (its document's track decides,
    as in the replay)."""
    from llgui.core.penalty import make_track

    tracks = {}
    metric = bundle.metrics[0] if bundle.metrics else None

    def cost(step):
        if step.doc not in tracks:
            tracks[step.doc] = make_track(bundle.document(step.doc), metric, bundle.settings,
                                          bundle.cost)
        return float(tracks[step.doc].cost(step, bundle.cost))
    return cost


def replicate_sections(campaign, scores, metric: str, samples: int = 1000,
                       seed: int = 12345) -> tuple[list[dict], list[dict]]:
    """Systems given as replicates (`replicates = [...]`): each one's spread over its
    replicates of the score of its last model version pooled over every batch, and every
    pair of them compared by the two-stage bootstrap (llgui.core.significance.replicates),
    beside the single-run paired bootstrap of their first replicates (what a campaign without
    replicates would star)."""
    import numpy as np

    from llgui.core.reports.campaign import make_scorer, scoring_settings
    from llgui.core.significance.replicates import replicate_test
    from llgui.core.significance.resample import Additive, Plan, paired_test
    from llgui.core.significance.vector_scores import vector_score

    scorer = make_scorer(campaign.task, metric, scoring_settings(campaign))
    vector = vector_score(scorer)
    groups: dict[str, list[tuple[str, np.ndarray]]] = {}
    for s, spec in enumerate(campaign.systems):
        if spec.replicate_of is None:
            continue
        last = len(spec.models) - 1
        rows = [scores.units[(s, last, b)][metric] for b in range(len(campaign.batches))
                if (s, last, b) in scores.units]
        if len(rows) != len(campaign.batches):
            continue    # a replicate with a missing cell is left out, not compared on less
        groups.setdefault(spec.replicate_of, []).append((spec.replicate, np.concatenate(rows)))
    spreads, tests = [], []
    for name, runs in groups.items():
        values = [scorer.score(stats.sum(axis=0)) for _, stats in runs]
        entry = {"name": name, "metric": metric, "model": campaign.systems[0].models[-1].id,
                 "replicates": [r for r, _ in runs]}
        from llgui.core.significance.replicates import spread

        entry.update(spread(values).as_dict())
        spreads.append(entry)
    names = list(groups) if samples > 0 else []
    plan = Plan("bs", max(samples, 1), seed, "segment")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            result = replicate_test([st for _, st in groups[a]], [st for _, st in groups[b]],
                                    vector, samples=samples, seed=seed)
            base, other = paired_test(Additive(groups[b][0][1], vector),
                                      [Additive(groups[a][0][1], vector)], plan)
            entry = result.as_dict()
            entry["spread_a"], entry["spread_b"] = entry.pop("a"), entry.pop("b")
            tests.append({"a": a, "b": b, "metric": metric, **entry,
                          "single_run": {"a": groups[a][0][0], "b": groups[b][0][0],
                                         "difference": other.score - base.score,
                                         "p_value": other.p_value,
                                         "significant": other.significant}})
    return spreads, tests


def add_persistence(report: dict, campaign, scores, tolerance: float = 0.0, cache=None,
                    key: str | None = None) -> None:
    """Give the `campaign` report what persists (DESIGN.md 1.9), in place: each system entry
    gains `persistence` = {nfr (mean over its consecutive version pairs, in %), pairs
    ([{before, after, nfr, nfi, flips, n_units}]), relapse_rate, relapse_cost_rate (in %),
    relapsed, retested, replicate_of, replicate_spread ({mean, sd, min, max, replicates} of
    its group) }, and the report `persistence` = {metric, unit, tolerance, signature}. Point
    figures only (no bootstrap here: `llgui regressions` gives the intervals). A unit score
    that cannot be computed (a file changed since) leaves the figures out, never the report.
    With a `cache` (a `CellCache`) and the `key` of every input's content, the figures are
    stored there and a rerun on the same inputs reads them instead (NaN stored as null)."""
    if cache is not None and key is not None:
        found = cache.get_json(key, what="the systems' persistence figures")
        if isinstance(found, dict) and len(found.get("systems", ())) == len(report["systems"]):
            for entry, figures in zip(report["systems"], found["systems"]):
                entry["persistence"] = figures
            report["persistence"] = found["report"]
            return
    _add_persistence(report, campaign, scores, tolerance)
    if cache is not None and key is not None and "persistence" in report:
        from llgui.io.export import clean

        cache.put_json(key, clean({"systems": [e.get("persistence") for e in report["systems"]],
                                   "report": report["persistence"]}))


def _add_persistence(report: dict, campaign, scores, tolerance: float) -> None:
    import math

    from llgui.core.errors import LoadError
    from llgui.core.across_time.flips import signature

    if not campaign.metrics or not report.get("systems"):
        return
    metric = "chrf" if campaign.task == "mt" and "chrf" in campaign.metrics else \
        campaign.metrics[0]
    if campaign.task == "mt" and metric not in R.BEST:
        return
    unit = R.unit_name(campaign.task, metric)
    try:
        from llgui.campaign.units import campaign_flips

        flips = campaign_flips(campaign, scores, metric, tolerance, samples=0, top=0,
                               rows=False)   # (the figures of each pair: no unit's row)
    except (LoadError, OSError, KeyError, ValueError):
        flips = []
    by_name = {f["name"]: f for f in flips}
    try:
        spreads, _ = replicate_sections(campaign, scores, metric, samples=0) \
            if any(s.replicate_of for s in campaign.systems) else ([], [])
    except (ValueError, KeyError):
        spreads = []
    spread_of = {s["name"]: s for s in spreads}
    for entry, spec in zip(report["systems"], campaign.systems):
        found = by_name.get(spec.name, {"pairs": []})
        pairs = [{k: p[k] for k in ("before", "after", "n_units", "flips", "nfr", "nfi")}
                 for p in found["pairs"]]
        nfrs = [p["nfr"] for p in pairs if math.isfinite(p["nfr"])]
        persistence = {"nfr": sum(nfrs) / len(nfrs) if nfrs else math.nan, "pairs": pairs,
                       "relapse_rate": math.nan, "relapse_cost_rate": math.nan,
                       "relapsed": None, "retested": None,
                       "replicate_of": spec.replicate_of,
                       "replicate_spread": spread_of.get(spec.replicate_of)}
        if spec.bundle:
            try:
                from llgui.core.reports.relapses import bundle_relapses
                from llgui.io.bundle import load_bundle

                bundle = load_bundle(spec.bundle)
                result = bundle_relapses(bundle, cost_of=_cost_of(bundle))
                persistence.update(relapse_rate=100.0 * result.rate,
                                   relapse_cost_rate=100.0 * result.cost_rate,
                                   relapsed=result.relapsed, retested=result.retested)
            except (LoadError, OSError, ValueError):
                pass
        entry["persistence"] = persistence
    report["persistence"] = {"metric": metric, "unit": unit, "tolerance": tolerance,
                             "signature": signature(unit, tolerance, 0, 0).split("|bs:")[0]}
