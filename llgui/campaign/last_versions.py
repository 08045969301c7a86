"""Each system's last model version in a campaign's scored cells: the paired samples of
`compare --cells` (`llgui.campaign.cell_samples`) and the campaign report's agreement with
its human scores (issue 32), both from the cells' per-row statistics, nothing rescored."""
from __future__ import annotations

import numpy as np

from llgui.core.reports.campaign import Campaign


def last_versions(campaign: Campaign, scored=None):
    """(each system's last model index, the batches where every system's last version has a
    cell (scored, when `scored` names the scored cells), those last versions' cells)."""
    last = {s: len(spec.models) - 1 for s, spec in enumerate(campaign.systems)}
    cells = tuple(c for c in campaign.cells if c.model == last[c.system])
    have = {(c.system, c.batch) for c in cells
            if scored is None or (c.system, c.model, c.batch) in scored}
    kept = [b for b in range(len(campaign.batches))
            if all((s, b) in have for s in range(len(campaign.systems)))]
    return last, kept, cells


def entries_of(campaign: Campaign, segments, signatures, chosen, unit, last, kept):
    """The compare entries (key, label, higher, signature, unit, samples) of `chosen`
    metrics, and each system's point score, from the cells' per-row statistics."""
    from llgui.core.metrics import display_name, info
    from llgui.core.reports.campaign import make_scorer, scoring_settings
    from llgui.core.significance.resample import Additive
    from llgui.core.significance.vector_scores import vector_score

    names = [s.name for s in campaign.systems]
    settings = scoring_settings(campaign)
    dtype = np.float32 if unit == "segment" else np.float64   # as sacrebleu's PairedTest
    entries, scores = [], {}
    for name in chosen:
        score = vector_score(make_scorer(campaign.task, name, settings))
        samples = []
        for s in range(len(names)):
            stats = np.concatenate([segments[(s, last[s], b)][name] for b in kept], axis=0)
            samples.append(Additive(stats, score, dtype))
        scores[name] = {n: x.point() for n, x in zip(names, samples)}
        entries.append((name, display_name(name), info(name).higher_is_better,
                        signatures.get(name, ""), unit, samples))
    return entries, scores


def human_block(campaign: Campaign, segments, signatures) -> dict | None:
    """The campaign report's `human` block: each metric's agreement with the campaign's
    `[human] scores` (pairwise accuracy, soft pairwise accuracy), on the systems' last model
    versions over the batches all of them have, from the scored cells (nothing rescored).
    None without human scores; a `problem` entry when they cannot be used."""
    if campaign.human is None:
        return None
    from llgui.core.errors import LoadError
    from llgui.core.significance.agreement import agreement
    from llgui.io.human import read_human_scores

    try:
        human = read_human_scores(campaign.human, campaign.human_pair)
    except LoadError as error:
        return {"file": campaign.human, "problem": "; ".join(map(str, error.problems))}
    last, kept, _ = last_versions(campaign, segments)
    if not kept:
        return {"file": campaign.human,
                "problem": "no batch has a scored output of every system's last version"}
    unit = "segment" if campaign.task == "mt" else "document"
    entries, scores = entries_of(campaign, segments, signatures, campaign.metrics, unit, last,
                               kept)
    names = [s.name for s in campaign.systems]
    samples = {e[0]: dict(zip(names, e[5])) for e in entries}
    block = agreement(scores, {e[0]: e[2] for e in entries}, human, samples)
    block["compared"] = {"models": {campaign.systems[s].name: campaign.systems[s].models[m].id
                                    for s, m in last.items()},
                         "batches": [campaign.batches[b].id for b in kept]}
    return block
