"""The `regressions` report of a campaign or a bundle (llgui.core.reports.regressions):

- a campaign: its cells scored (cached like `llgui campaign`), negative flips between every
  system's consecutive model versions, the relapses of every online run, and the spread of
  systems given as replicates;
- a bundle: the relapses of its interaction log.
"""
from __future__ import annotations

from pathlib import Path

from llgui.campaign.persistence import _cost_of, replicate_sections
from llgui.core.reports import regressions as R


def bundle_regressions(bundle, name: str | None = None, *, threshold: float = 0.0,
                       samples: int = 1000, seed: int = 12345, top: int = 20) -> dict:
    """The relapses of `bundle`'s log; and, for a detection bundle of several score files or
    a classification bundle of several documents, the exact flips between consecutive ones
    (taken as model versions in the bundle's order): a trial is decided right when its score
    is above `threshold` (0: the Bayes threshold of log-likelihood ratios at equal priors and
    costs) exactly when it is a target trial; an item when its decision is its true class."""
    from llgui.core.reports.relapses import bundle_relapses

    name = name or bundle.name
    result = bundle_relapses(bundle, cost_of=_cost_of(bundle))
    metric = bundle.metrics[0] if bundle.metrics else ""
    relapses = [R.relapse_section(name, result)] if bundle.steps else []
    flips = []
    if bundle.task == "detection" and len(bundle.detection) >= 2:
        versions = []
        for trials in bundle.detection:
            ids = trials.key_index if trials.key_index is not None else range(trials.scores.size)
            right = (trials.scores > threshold) == trials.is_target
            versions.append((trials.name, {f"trial {int(k) + 1}": bool(r)
                                           for k, r in zip(ids, right)}))
        flips = [R.exact_section(name, versions, unit="trial", samples=samples, seed=seed,
                                 top=top)]
    elif bundle.task == "classification" and len(bundle.documents) >= 2:
        versions = [(d.id, {item: truth == decision for item, truth, decision
                            in zip(d.items, d.truth, d.decisions)}) for d in bundle.documents]
        flips = [R.exact_section(name, versions, unit="item", samples=samples, seed=seed,
                                 top=top)]
    out = R.report(bundle.task, metric, None if flips else 0.0, flips, relapses,
                   samples=samples, seed=seed)
    if bundle.task == "detection" and flips:
        out["threshold"] = threshold
        out["signature"] += f"|threshold:{threshold:g}"
    return out


def campaign_regressions(path, *, metric: str | None = None, tolerance: float = 0.0,
                         samples: int = 1000, seed: int = 12345, top: int = 20,
                         workers: int | None = 0, run=None, texts: bool = True) -> dict:
    """The report of the campaign at `path` (scored in this process by default; `run`: an
    already scored `CampaignRun` of it)."""
    from llgui.campaign.run import run_campaign
    from llgui.campaign.units import campaign_flips
    from llgui.core.errors import LoadError
    from llgui.io.bundle import load_bundle
    from llgui.io.campaign import load_campaign

    campaign = load_campaign(Path(path))
    if campaign.problems:
        raise LoadError(list(campaign.problems))
    if metric is None:
        metric = "chrf" if campaign.task == "mt" and "chrf" in campaign.metrics else \
            campaign.metrics[0]
    if metric not in campaign.metrics or metric not in R.BEST:
        from llgui.core.errors import UsageError

        usable = [m for m in campaign.metrics if m in R.BEST]
        raise UsageError(f"--metric {metric}: not a unit score of this campaign (its metrics "
                         f"with one: {', '.join(usable) or 'none'})")
    if run is None:
        run = run_campaign(campaign, workers=workers)
    flips = campaign_flips(campaign, run.scores, metric, tolerance, samples, seed, top,
                           texts=texts)
    relapses = []
    for spec in campaign.systems:
        if spec.bundle:
            from llgui.core.reports.relapses import bundle_relapses

            bundle = load_bundle(spec.bundle)
            relapses.append(R.relapse_section(spec.name, bundle_relapses(
                bundle, cost_of=_cost_of(bundle))))
    spreads, tests = replicate_sections(campaign, run.scores, metric, samples, seed)
    out = R.report(campaign.task, metric, tolerance, flips, relapses, spreads,
                   samples=samples, seed=seed)
    out["replicate_tests"] = tests
    # cells that could not be scored are left out of the flips: the report says so
    out["partial"], out["problems"] = run.report["partial"], run.report["problems"]
    return out
