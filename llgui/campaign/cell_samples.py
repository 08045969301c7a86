"""A campaign's scored outputs as paired samples: what `compare` tests when a campaign's
systems are outputs only (no online run), or when `--cells` asks for them.

Each system is taken at its **last model version** (the latest in time: what the system
ended as) on every batch where every system's last version has a scored output, the batches
in time order; the per-segment statistics of those cells (MT; a diarization batch is one
recording, one unit) come from the campaign's cell cache (scored here when absent, exactly as
`llgui campaign` scores them) and are concatenated. Batches left out (a system's last version
has no output there) are named in the source description.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from llgui.core.reports.campaign import Campaign


@dataclass(frozen=True, eq=False)
class CellSamples:
    names: tuple[str, ...]
    task: str
    unit: str
    entries: tuple      # (key, label, higher_is_better, signature, unit, samples) per metric
    source: dict        # what was compared: systems' model versions, batches used and left out
    scores: dict        # {metric: {system: point score}}


def cell_samples(campaign: Campaign, metrics: Sequence[str] | None = None,
                 unit: str | None = None, use_cache: bool = True, workers: int | None = None,
                 progress=None, should_stop=None) -> CellSamples:
    """The paired samples of `campaign`'s last model versions (see the module docstring).
    Raises ValueError when nothing can be compared (no system with a scored output on a
    batch shared by all)."""
    from llgui.campaign.run import run_campaign

    task = campaign.task
    own_unit = "segment" if task == "mt" else "document"
    unit = unit or own_unit
    if unit != own_unit:
        raise ValueError(f"unit {unit!r}: a campaign's outputs are compared by "
                         f"{own_unit} (the rows its cells are scored in)")
    names = [s.name for s in campaign.systems]
    if len(names) < 2:
        raise ValueError(f"{campaign.path}: the campaign has {len(names)} system; a "
                         "comparison needs two")
    chosen = metrics or campaign.metrics
    unknown = [m for m in chosen if m not in campaign.metrics]
    if unknown:
        raise ValueError(f"metric {unknown[0]!r} is not one of the campaign's "
                         f"({', '.join(campaign.metrics)})")
    last, kept, cells = _last_versions(campaign)
    if not kept:
        raise ValueError(f"{campaign.path}: no batch has an output of every system's last "
                         "model version: nothing to compare pairwise")
    wanted = tuple(c for c in cells if c.batch in kept)
    sub = dataclasses.replace(
        campaign, metrics=tuple(chosen), cells=wanted, gaps=(),
        systems=tuple(dataclasses.replace(s, bundle=None) for s in campaign.systems))
    run = run_campaign(sub, workers=workers, use_cache=use_cache, progress=progress,
                       should_stop=should_stop)
    segments = run.segments or {}
    missing = [campaign.label(c) for c in wanted
               if (c.system, c.model, c.batch) not in segments]
    if missing:
        problems = "; ".join(str(p) for p in run.scores.problems) or "not scored"
        raise ValueError(f"outputs that could not be scored: {', '.join(missing[:5])}"
                         f"{' ...' if len(missing) > 5 else ''} ({problems})")
    entries, scores = _entries(campaign, segments, run.scores.signatures, chosen, unit,
                               last, kept)
    left_out = [campaign.batches[b].id for b in range(len(campaign.batches)) if b not in kept]
    source = {
        "kind": "cells",
        "what": "each system's last model version over every batch all of them have",
        "models": {spec.name: spec.models[last[s]].id
                   for s, spec in enumerate(campaign.systems)},
        "batches": [campaign.batches[b].id for b in kept],
        "batches_left_out": left_out,
        "n_units": int(entries[0][5][0].n_units) if entries else 0,
    }
    return CellSamples(tuple(names), task, unit, tuple(entries), source, scores)


def _last_versions(campaign: Campaign, scored=None):
    """(each system's last model index, the batches where every system's last version has a
    cell (scored, when `scored` names the scored cells), those last versions' cells)."""
    last = {s: len(spec.models) - 1 for s, spec in enumerate(campaign.systems)}
    cells = tuple(c for c in campaign.cells if c.model == last[c.system])
    have = {(c.system, c.batch) for c in cells
            if scored is None or (c.system, c.model, c.batch) in scored}
    kept = [b for b in range(len(campaign.batches))
            if all((s, b) in have for s in range(len(campaign.systems)))]
    return last, kept, cells


def _entries(campaign: Campaign, segments, signatures, chosen, unit, last, kept):
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
    last, kept, _ = _last_versions(campaign, segments)
    if not kept:
        return {"file": campaign.human,
                "problem": "no batch has a scored output of every system's last version"}
    unit = "segment" if campaign.task == "mt" else "document"
    entries, scores = _entries(campaign, segments, signatures, campaign.metrics, unit, last,
                               kept)
    names = [s.name for s in campaign.systems]
    samples = {e[0]: dict(zip(names, e[5])) for e in entries}
    block = agreement(scores, {e[0]: e[2] for e in entries}, human, samples)
    block["compared"] = {"models": {campaign.systems[s].name: campaign.systems[s].models[m].id
                                    for s, m in last.items()},
                         "batches": [campaign.batches[b].id for b in kept]}
    return block
