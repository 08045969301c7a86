"""Unit scores of a scored campaign's cells, for negative flips (llgui.core.reports.regressions):
MT sentence scores from the statistics rows the run kept; diarization DER on each reference
turn, read from the cells' files (llgui.core.reports.units says how each is made)."""
from __future__ import annotations

import numpy as np

from llgui.core.reports.campaign import Campaign, CampaignScores, make_scorer, scoring_settings
from llgui.core.reports.units import sentence_scores, turn_scores


def unit_labels(campaign: Campaign) -> dict[int, list[str]]:
    """Each batch's unit names: MT the 1-based line in the references (of the whole file when
    the batch takes `lines` / `docids`); diarization `start-end speaker` of each reference turn."""
    from llgui.io.rttm import load_turns
    from llgui.io.text import load_segments

    out = {}
    for b, batch in enumerate(campaign.batches):
        if campaign.task == "mt":
            rows = batch.rows if batch.rows is not None else \
                range(len(load_segments(batch.references[0])))
            out[b] = [f"line {i + 1}" for i in rows]
        else:
            turns = load_turns(batch.references[0])[batch.uri]
            out[b] = [f"{t.start:.2f}-{t.end:.2f} {t.speaker}" for t in turns]
    return out


def cell_unit_scores(campaign: Campaign, scores: CampaignScores,
                     metric: str) -> dict[tuple[int, int, int], np.ndarray]:
    """{(system, model, batch): unit scores} of every scored cell."""
    out = {}
    if campaign.task == "mt":
        scorer = make_scorer("mt", metric, scoring_settings(campaign))
        for key, stats in scores.units.items():
            if metric in stats:
                out[key] = sentence_scores(scorer, stats[metric])
        return out
    from llgui.io.rttm import load_turns, load_uem

    settings = dict(campaign.settings)
    references, uems = {}, {}
    for cell in campaign.cells:
        key = (cell.system, cell.model, cell.batch)
        if key not in scores.cells:
            continue
        batch = campaign.batches[cell.batch]
        if cell.batch not in references:
            references[cell.batch] = load_turns(batch.references[0])[batch.uri]
            uems[cell.batch] = load_uem(batch.uem)[batch.uri] if batch.uem else None
        hypothesis = load_turns(cell.hypothesis).get(batch.uri, ())
        out[key] = turn_scores(references[cell.batch], hypothesis, uems[cell.batch], metric,
                               settings)
    return out


def campaign_flips(campaign: Campaign, scores: CampaignScores, metric: str | None = None,
                   tolerance: float = 0.0, samples: int = 1000, seed: int = 12345,
                   top: int = 20) -> list[dict]:
    """Per system, the flips between its consecutive model versions (`system_flips`)."""
    from llgui.core.metrics import higher_is_better
    from llgui.core.reports.regressions import system_flips, unit_name

    if metric is None:
        metric = "chrf" if campaign.task == "mt" and "chrf" in campaign.metrics else \
            ("der" if campaign.task != "mt" else campaign.metrics[0])
    unit_scores = cell_unit_scores(campaign, scores, metric)
    labels = unit_labels(campaign)
    out = []
    for s, spec in enumerate(campaign.systems):
        mine = {(m, b): v for (t, m, b), v in unit_scores.items() if t == s}
        out.append(system_flips(spec.name, [m.id for m in spec.models],
                                [b.id for b in campaign.batches], mine, labels,
                                metric=metric, higher_is_better=higher_is_better(metric),
                                tolerance=tolerance, unit=unit_name(campaign.task, metric),
                                samples=samples, seed=seed, top=top))
    return out
