"""Campaigns: several systems, each a series of model versions, on shared time-stamped batches.

The campaign spec (`Campaign`, built by `llgui.io.campaign.load_campaign`) names the cells: one
per (system, model version, batch) whose hypothesis file exists; a missing file is a gap, not a
failure. The cells are scored elsewhere (`llgui.campaign`, on Dask) into additive statistics; this
module turns those sums into the report of DESIGN.md section 7 (`campaign`), as plain data the
CLI, the JSON/CSV writers and the GUI all show:

- per system, the lifelong matrix s(M_i, t_j) of every metric (`lifelong_table`), from the
  cell statistics summed over the batch's segments (MT) or documents (diarization);
- per system, a leaderboard per metric: S_base, S_adapt, S_pen and MSR of its online run
  (pooled over the run's documents, from the penalty engine), and S_P under the presets A, B
  and C. A system's S_P is the mean over its model versions of S_P(M_i) (equation 2): every
  version served the user for a while, and the policy says how each one is judged on the data
  of its window. The per-version values are in the report too.

Everything here is a pure function of data; nothing imports Dask or Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

import numpy as np

from llgui.core.errors import Problem
from llgui.core.types import LifelongScores, Stamp

POLICY_NAMES = ("A", "B", "C")
ONLINE_FIGURES = ("s_base", "s_adapt", "s_pen", "msr")


@dataclass(frozen=True)
class Batch:
    """A time-stamped test set shared by every system: its reference files (MT: one or more
    text files; diarization: one RTTM/MDTM, with `uri` the file field and an optional UEM)."""

    id: str
    time: Stamp
    references: tuple[str, ...]
    uem: str | None = None
    uri: str | None = None
    rows: tuple[int, ...] | None = None
    """MT: the 0-based lines this batch takes from its references and from every whole
    hypothesis file (`lines` or `docids` in the campaign file); None: whole files."""
    exact: int | None = None    # the length every file cut by `rows` must have (docids), or None
    least: int = 0              # the least length such a file must have (lines)
    what: str = ""              # the selection, for messages (`lines = "1-500"`)


@dataclass(frozen=True)
class ModelVersion:
    id: str
    time: Stamp


@dataclass(frozen=True)
class SystemSpec:
    """One system: its model versions (sorted by time), where their outputs are, its online run."""

    name: str
    models: tuple[ModelVersion, ...]
    hypotheses: str
    bundle: str | None = None
    replicate_of: str | None = None
    """With `replicates = [...]` in the campaign file: the system this run is a replicate of
    (its name is `NAME@REPLICATE`), and the replicate's id."""
    replicate: str | None = None


@dataclass(frozen=True)
class Cell:
    """One (system, model, batch) to score: indices into the campaign and the hypothesis file."""

    system: int
    model: int
    batch: int
    hypothesis: str


@dataclass(frozen=True, eq=False)
class Campaign:
    """A loaded campaign. `problems` are what was wrong with the campaign file or the files it
    names (the rest is still scored); `gaps` are cells without a hypothesis file."""

    path: str
    name: str
    task: str
    metrics: tuple[str, ...]
    settings: Mapping[str, object]
    batches: tuple[Batch, ...]
    systems: tuple[SystemSpec, ...]
    cells: tuple[Cell, ...]
    gaps: tuple[Cell, ...] = ()
    problems: tuple[Problem, ...] = ()
    human: str | None = None        # [human] scores: a file of human scores (llgui.io.human)
    human_pair: str | None = None   # the language pair to read from it, when it has several
    warnings: tuple[Problem, ...] = ()   # said, nothing left out (TER on CJK text at spaces)

    def __post_init__(self) -> None:
        if not isinstance(self.settings, MappingProxyType):
            object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def label(self, cell: Cell) -> str:
        system = self.systems[cell.system]
        return (f"{system.name}/{system.models[cell.model].id}/"
                f"{self.batches[cell.batch].id}")


@dataclass(frozen=True, eq=False)
class CampaignScores:
    """What the scoring run produced: per scored cell, the summed statistics of each metric;
    per system with an online run, its summary (`online_summary`) or None; problems found
    while scoring (malformed hypothesis files, a bad online bundle)."""

    cells: Mapping[tuple[int, int, int], Mapping[str, np.ndarray]]
    online: Mapping[int, Mapping] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    signatures: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    """What went wrong during the run and was recovered (a worker lost, its cells
    rescheduled): said in the report, without making it partial."""
    units: Mapping[tuple[int, int, int], Mapping[str, np.ndarray]] = field(default_factory=dict)
    """Per scored cell, each metric's statistics per unit (n_units, n_stats), before summing:
    MT segments (the unit scores of negative flips, llgui.core.reports.regressions)."""


def make_scorer(task: str, metric: str, settings: Mapping[str, object]):
    """The metric object that scores summed statistics of `task` (the metric registry's)."""
    from llgui.core.metrics import make_metric

    return make_metric(task, metric, settings)


def diar_settings(settings: Mapping[str, object], uems: Sequence[object]) -> dict:
    """Diarization settings with the UEM mode the batches imply (as a bundle's documents)."""
    from llgui.core.diarization.der import uem_mode

    out = dict(settings)
    out.setdefault("uem", uem_mode(uems))
    return out


def scoring_settings(campaign: Campaign) -> dict:
    if campaign.task == "diarization":
        return diar_settings(campaign.settings, [b.uem for b in campaign.batches])
    return dict(campaign.settings)


def lifelong_table(campaign: Campaign, scores: CampaignScores, system: int) -> LifelongScores:
    """s(M_i, t_j) of one system for every metric, NaN where a cell is missing or failed.
    Models and batches keep the campaign's order (sorted by time by the loader)."""
    spec = campaign.systems[system]
    settings = scoring_settings(campaign)
    values = {}
    for metric in campaign.metrics:
        scorer = make_scorer(campaign.task, metric, settings)
        matrix = np.full((len(spec.models), len(campaign.batches)), np.nan)
        for (s, m, b), stats in scores.cells.items():
            if s == system and metric in stats:
                matrix[m, b] = scorer.score(stats[metric])
        values[metric] = matrix
    return LifelongScores(
        models=tuple(m.id for m in spec.models),
        model_times=tuple(m.time for m in spec.models),
        tests=tuple(b.id for b in campaign.batches),
        test_times=tuple(b.time for b in campaign.batches),
        metrics=tuple(campaign.metrics),
        values=values,
    )


def table_from_report(report: Mapping, system: int) -> LifelongScores:
    """System `system`'s lifelong table rebuilt from a report (its JSON, read back): the same
    matrix `lifelong_table` gave, every model version and batch, NaN where a cell is absent."""
    entry = report["systems"][system]
    models = [(m["model"], Stamp.parse(m["time"])) for m in entry["models"]]
    batches = [(b["batch"], Stamp.parse(b["time"])) for b in report["batches"]]
    m_index = {m: i for i, (m, _) in enumerate(models)}
    b_index = {b: j for j, (b, _) in enumerate(batches)}
    values = {metric: np.full((len(models), len(batches)), np.nan)
              for metric in report["metrics"]}
    for cell in entry["cells"]:
        for metric, value in cell["scores"].items():
            if value is not None and metric in values:
                values[metric][m_index[cell["model"]], b_index[cell["batch"]]] = value
    return LifelongScores(models=tuple(m for m, _ in models),
                          model_times=tuple(t for _, t in models),
                          tests=tuple(b for b, _ in batches),
                          test_times=tuple(t for _, t in batches),
                          metrics=tuple(report["metrics"]), values=values)


def _nanmean(values: np.ndarray) -> float:
    ok = ~np.isnan(values)
    return float(values[ok].mean()) if ok.any() else math.nan


def system_policy_score(table: LifelongScores, metric: str, policy) -> float:
    """A system's S_P under `policy`: the mean over its model versions of S_P(M_i) (NaN
    versions skipped; NaN when none has one). The leaderboard's figure for any policy."""
    from llgui.core.across_time.scores import policy_scores

    return _nanmean(policy_scores(table, metric, policy))


def policy_coverage(table: LifelongScores, metric: str, policy) -> tuple[int, int]:
    """(how many model versions have an S_P(M_i) under `policy`, how many versions there
    are): a system's S_P averages over the first count only; a version whose window holds no
    test batch has none."""
    from llgui.core.across_time.scores import policy_scores

    values = np.asarray(policy_scores(table, metric, policy), dtype=np.float64)
    return int(np.isfinite(values).sum()), int(values.size)


def coverage_text(versions: int, of: int) -> str:
    """"2 of 3 versions", or "no version has a batch in its window" (the empty state)."""
    if versions == 0:
        return f"no version of {of} has a batch in its window"
    return f"{versions} of {of} version" + ("s" if of != 1 else "")


def policy_summary(table: LifelongScores, metric: str) -> tuple[dict, list[dict]]:
    """({policy: mean over models of S_P(M_i)}, [{model, time, s_p: {policy: S_P(M_i)}}]).
    `build_report` adds how many versions each mean is over (`s_p_versions`)."""
    from llgui.core.across_time.scores import policy_scores
    from llgui.core.across_time.policy import PRESETS

    per_policy = {name: policy_scores(table, metric, PRESETS[name]) for name in POLICY_NAMES}
    models = [{"model": m, "time": t.text,
               "s_p": {name: float(per_policy[name][i]) for name in POLICY_NAMES}}
              for i, (m, t) in enumerate(zip(table.models, table.model_times))]
    return {name: _nanmean(per_policy[name]) for name in POLICY_NAMES}, models


def build_report(campaign: Campaign, scores: CampaignScores) -> dict:
    """The `campaign` report (DESIGN.md section 7) as plain data: NaN where a figure is missing
    (the JSON writer makes it null). Deterministic: the same inputs give the same report,
    whatever order the cells were computed in."""
    from llgui.core.across_time.scores import continual_summary
    from llgui.core.metrics import higher_is_better

    problems = sorted(set(campaign.problems) | set(scores.problems),
                      key=lambda p: (p.file, p.line == 0, p.line, p.reason))
    report = {
        "campaign": campaign.name,
        "file": campaign.path,
        "task": campaign.task,
        "metrics": list(campaign.metrics),
        "settings": dict(campaign.settings),
        "signatures": dict(scores.signatures),
        "partial": bool(problems),
        "problems": [str(p) for p in problems],
        "notes": list(scores.notes),
        "gaps": [{"system": campaign.systems[g.system].name,
                  "model": campaign.systems[g.system].models[g.model].id,
                  "batch": campaign.batches[g.batch].id, "hypothesis": g.hypothesis}
                 for g in campaign.gaps],
        "batches": [{"batch": b.id, "time": b.time.text} for b in campaign.batches],
        "systems": [],
    }
    for s, spec in enumerate(campaign.systems):
        table = lifelong_table(campaign, scores, s)
        cells = []
        for m, model in enumerate(spec.models):
            for b, batch in enumerate(campaign.batches):
                if (s, m, b) not in scores.cells:
                    continue
                cells.append({"model": model.id, "model_time": model.time.text,
                              "batch": batch.id, "batch_time": batch.time.text,
                              "scores": {k: float(table.values[k][m, b]) for k in table.metrics}})
        online = scores.online.get(s)
        leaderboard, lifelong = {}, {}
        for metric in campaign.metrics:
            s_p, per_model = policy_summary(table, metric)
            figures = (online or {}).get("figures", {}).get(metric, {})
            leaderboard[metric] = {key: figures.get(key, math.nan) for key in ONLINE_FIGURES}
            if figures.get("partial"):   # documents of the online run cut short (issue 32)
                leaderboard[metric]["partial"] = figures["partial"]
            leaderboard[metric]["s_p"] = s_p
            # over how many of the system's model versions each S_P averages (issue 21)
            leaderboard[metric]["s_p_versions"] = {
                name: sum(1 for m in per_model if math.isfinite(m["s_p"][name]))
                for name in POLICY_NAMES}
            leaderboard[metric]["n_versions"] = len(per_model)
            summary = continual_summary(table, metric,
                                        higher_is_better=higher_is_better(metric))
            lifelong[metric] = {"models": per_model,
                                "summary": summary.as_dict()}
        report["systems"].append({
            "name": spec.name,
            "models": [{"model": m.id, "time": m.time.text} for m in spec.models],
            "cells": cells,
            "online": None if online is None else online.get("report"),
            "leaderboard": leaderboard,
            "lifelong": lifelong,
        })
    return report


def leaderboard_rows(report: Mapping, metric: str) -> list[dict]:
    """One row per system for `metric`: name and the leaderboard figures, S_P flattened to
    `s_p_A`, `s_p_B`, `s_p_C`, with `s_p_A_versions`... (versions averaged) and `n_versions`
    (the Systems view and the table writer share this)."""
    rows = []
    for system in report["systems"]:
        entry = system["leaderboard"].get(metric, {})
        row = {"system": system["name"]}
        for key in ONLINE_FIGURES:
            row[key] = entry.get(key)
        for name, value in (entry.get("s_p") or {}).items():
            row[f"s_p_{name}"] = value
            versions = (entry.get("s_p_versions") or {}).get(name)
            row[f"s_p_{name}_versions"] = versions
        row["n_versions"] = entry.get("n_versions")
        row["partial"] = entry.get("partial")
        rows.append(row)
    return rows
