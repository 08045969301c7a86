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

from llgui.core.reports.campaign import Campaign


@dataclass(frozen=True, eq=False)
class CellSamples:
    names: tuple[str, ...]
    task: str
    unit: str
    entries: tuple      # (key, label, higher_is_better, signature, unit, samples) per metric
    source: dict        # what was compared: systems' model versions, batches used and left out
    scores: dict        # {metric: {system: point score}}
    damaged: tuple[str, ...] = ()   # cache entries found damaged (removed, recomputed)


def cell_samples(campaign: Campaign, metrics: Sequence[str] | None = None,
                 unit: str | None = None, use_cache: bool = True, workers: int | None = None,
                 progress=None, should_stop=None) -> CellSamples:
    """The paired samples of `campaign`'s last model versions (see the module docstring).
    Raises ValueError when nothing can be compared (no system with a scored output on a
    batch shared by all)."""
    from llgui.campaign.last_versions import entries_of, last_versions
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
    last, kept, cells = last_versions(campaign)
    if not kept:
        raise ValueError(f"{campaign.path}: no batch has an output of every system's last "
                         "model version: nothing to compare pairwise")
    wanted = tuple(c for c in cells if c.batch in kept)
    sub = dataclasses.replace(
        campaign, metrics=tuple(chosen), cells=wanted, gaps=(),
        systems=tuple(dataclasses.replace(s, bundle=None) for s in campaign.systems))
    from llgui.campaign.cache import CellCache

    cache = None
    if use_cache:
        try:
            cache = CellCache()
        except ValueError:   # an unusable cache setting: run_campaign says so and goes on
            cache = None
    run = run_campaign(sub, workers=workers, use_cache=use_cache, cache=cache,
                       progress=progress, should_stop=should_stop)
    segments = run.segments or {}
    missing = [campaign.label(c) for c in wanted
               if (c.system, c.model, c.batch) not in segments]
    if missing:   # what could not be compared, then each output's own problem at its line
        from llgui.core.errors import LoadError, Problem

        raise LoadError([Problem(str(campaign.path), 0, (
            f"outputs that could not be scored: {', '.join(missing[:5])}"
            f"{' ...' if len(missing) > 5 else ''} (the comparison takes every system's last "
            f"version on each batch they all have)")), *run.scores.problems])
    entries, scores = entries_of(campaign, segments, run.scores.signatures, chosen, unit,
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
    # the rows are read (and checked) by entries_of: damage found then is named too
    damaged = tuple(cache.damaged) if cache is not None else tuple(run.damaged)
    return CellSamples(tuple(names), task, unit, tuple(entries), source, scores, damaged)

