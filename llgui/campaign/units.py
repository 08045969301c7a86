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
        # every cell's rows in one vectorised call, then cut back per cell: a call per cell
        # paid numpy's per-operation cost 576 times (gate 7: 0.75 s of the driver's time at
        # the end of the run, against 0.1 s at once); the formula is row by row either way
        keys = [key for key, stats in scores.units.items() if metric in stats]
        if not keys:
            return out
        # (every cell's rows have the metric's width: the cache and the cell job check it)
        rows = [np.asarray(scores.units[key][metric], dtype=np.float64) for key in keys]
        values = sentence_scores(scorer, np.concatenate(rows))
        ends = np.cumsum([len(r) for r in rows])
        for key, part in zip(keys, np.split(values, ends[:-1])):
            out[key] = part
        return out
    from llgui.io.rttm import load_turns, load_uem

    settings = dict(campaign.settings)
    references, uems = {}, {}
    # the same turns on the same batch (a version that left a batch's output as it was, two
    # systems with one output) have the same unit scores: computed once, as their cells are
    done: dict[tuple[int, tuple], np.ndarray] = {}
    for cell in campaign.cells:
        key = (cell.system, cell.model, cell.batch)
        if key not in scores.cells:
            continue
        batch = campaign.batches[cell.batch]
        if cell.batch not in references:
            references[cell.batch] = load_turns(batch.references[0])[batch.uri]
            uems[cell.batch] = load_uem(batch.uem)[batch.uri] if batch.uem else None
        hypothesis = tuple(load_turns(cell.hypothesis).get(batch.uri, ()))
        same = (cell.batch, hypothesis)
        if same not in done:
            done[same] = turn_scores(references[cell.batch], hypothesis, uems[cell.batch],
                                     metric, settings)
        out[key] = done[same].copy()
    return out


class UnitTexts:
    """What a model version output on a unit, and the reference, as text for a person: MT the
    hypothesis line and the (first) reference line; diarization the turns of the reference
    turn's region, `start-end speaker` joined by `; `. Files are read once each."""

    def __init__(self, campaign: Campaign, system: int):
        self.campaign, self.system, self._files = campaign, system, {}

    def _read(self, path: str, kind: str):
        if path not in self._files:
            if kind == "text":
                from llgui.io.text import load_segments

                self._files[path] = load_segments(path)
            else:
                from llgui.io.rttm import load_turns

                self._files[path] = load_turns(path)
        return self._files[path]

    def __call__(self, model: int, batch: int, unit: int) -> tuple[str, str]:
        c = self.campaign
        cell = next((x for x in c.cells if (x.system, x.model, x.batch)
                     == (self.system, model, batch)), None)
        spec = c.batches[batch]
        if c.task == "mt":
            row = spec.rows[unit] if spec.rows is not None else unit
            refs = self._read(spec.references[0], "text")
            hyp = self._read(cell.hypothesis, "text") if cell is not None else ()
            # a batch's own hypothesis file holds the batch's lines; a whole system file is
            # cut by the batch's rows
            size = len(refs) if spec.rows is None else len(spec.rows)
            line = unit if len(hyp) == size else row
            return (hyp[line] if line < len(hyp) else ""), refs[row]
        turn = self._read(spec.references[0], "rttm")[spec.uri][unit]

        def near(turns):
            return "; ".join(f"{t.start:.2f}-{t.end:.2f} {t.speaker}" for t in turns
                             if t.end > turn.start and t.start < turn.end)
        hyp = self._read(cell.hypothesis, "rttm").get(spec.uri, ()) if cell is not None else ()
        return near(hyp), near(self._read(spec.references[0], "rttm")[spec.uri])


def campaign_flips(campaign: Campaign, scores: CampaignScores, metric: str | None = None,
                   tolerance: float = 0.0, samples: int = 1000, seed: int = 12345,
                   top: int = 20, texts: bool = False, rows: bool = True) -> list[dict]:
    """Per system, the flips between its consecutive model versions (`system_flips`;
    `rows=False`, `top=0`: the figures alone)."""
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
                                samples=samples, seed=seed, top=top,
                                texts=UnitTexts(campaign, s) if texts else None,
                                rows=rows))
    return out
