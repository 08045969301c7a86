"""`llgui compare` on a campaign's scored outputs, and human agreement in a compare report
(issue 32): the API's `compare_report` hands a campaign without online runs (or `cells`) here.
"""
from __future__ import annotations

from pathlib import Path

from llgui.core.errors import UsageError


def compare_cells(campaign, baseline, test, unit, samples, seed, metrics, correction, human,
                  progress) -> dict:
    """`compare` on a campaign's scored outputs (`llgui.campaign.cell_samples`)."""
    from llgui.campaign.cell_samples import cell_samples
    from llgui.core.reports.compare import compare_samples
    from llgui.core.significance.all_pairs import all_pairs
    from llgui.core.significance.resample import DEFAULT_SAMPLES, Plan

    try:
        found = cell_samples(campaign, metrics or None, unit)
        plan = Plan(test, samples or DEFAULT_SAMPLES[test], seed, found.unit)
        if baseline is None:
            result = all_pairs(found.names, found.entries, plan, correction, found.task,
                               source=found.source, progress=progress)
            out = result.report()
        else:
            if baseline not in found.names:
                raise ValueError(f"no system named {baseline!r} (systems: "
                                 f"{', '.join(found.names)})")
            result = compare_samples(found.names, baseline, found.entries, plan, found.task,
                                     progress=progress)
            out = result.report()
            out["source"] = found.source
    except ValueError as error:
        raise UsageError(str(error)) from None
    if found.damaged:   # removed and recomputed; the command line names them on stderr
        out["source"]["damaged_cache_entries"] = list(found.damaged)
    if human is None and campaign.human is not None:
        human = (campaign.human, campaign.human_pair)
    if human is not None:
        add_agreement(out, human, (found.names, found.entries))
    return out


def add_agreement(out: dict, human, entries=None) -> None:
    """Each metric's agreement with human scores (`llgui.core.significance.agreement`):
    pairwise accuracy from the report's scores; soft pairwise accuracy where `entries` (the
    paired samples) and segment-level human scores are at hand."""
    from llgui.core.significance.agreement import agreement
    from llgui.io.human import read_human_scores

    if isinstance(human, (str, Path)):
        human = (human, None)
    scores = read_human_scores(*human) if isinstance(human, tuple) else human
    metrics = out["metric_signatures"]
    by_metric = {key: {s["name"]: s["metrics"][key]["score"] for s in out["systems"]}
                 for key in metrics if "." not in key}   # plain metrics, not penalised ones
    higher = {key: metrics[key]["higher_is_better"] for key in by_metric}
    samples = None
    if entries is not None:
        names = [s["name"] for s in out["systems"]]
        order = {n: k for k, n in enumerate(entries[0])}
        samples = {key: {n: e[5][order[n]] for n in names} for e in entries[1]
                   for key in [e[0]]}
    out["human"] = agreement(by_metric, higher, scores, samples)
