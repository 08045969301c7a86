"""The `regressions` report (DESIGN.md section 1.9), plain data for the CLI, the API and the GUI:

- `flips`: per system of a campaign, per consecutive pair of its model versions, NFR and NFI
  with their bootstrap intervals over units (llgui.core.across_time.flips), the units being
  every unit of every batch both versions were tested on; and one row per regressed unit;
- `relapses`: per online run, the corrections re-tested by a later version (a later
  document's first hypothesis), relapsed or kept (llgui.core.across_time.relapse), one row
  per (correction, re-test);
- `replicates`: per system with replicates, its spread (mean, sd, min, max over replicates).

The unit scores come in as arrays from the caller (llgui.campaign.units reads the files).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from llgui.core.across_time.flips import (DEFAULT_SAMPLES, DEFAULT_SEED, DEFAULT_TOP,
                                          graded_flips)

BEST = {"chrf": 100.0, "bleu": 100.0, "ter": 0.0, "wer": 0.0, "der": 0.0, "jer": 0.0}
"""The best value of a unit score: a unit short of it by more than the tolerance is an error
(the denominator of NFI)."""


def unit_name(task: str, metric: str) -> str:
    if task in ("detection", "classification"):
        return "trial" if task == "detection" else "item"
    return f"segment-{metric}" if task == "mt" else f"turn-{metric}"


def system_flips(name: str, models: Sequence[str], batches: Sequence[str],
                 scores: Mapping[tuple[int, int], np.ndarray],
                 labels: Mapping[int, Sequence[str]], *, metric: str, higher_is_better: bool,
                 tolerance: float, unit: str, samples: int = DEFAULT_SAMPLES,
                 seed: int = DEFAULT_SEED, top: int = DEFAULT_TOP, texts=None,
                 rows: bool = True) -> dict:
    """One system's flips between consecutive versions. `scores[(model, batch)]`: the unit
    scores of that cell (NaN: unit not scored); `labels[batch]`: the units' names;
    `texts(model, batch, unit)`, when given, the output of a version on a unit (shown side by
    side with the other version's: `output_before`, `output_after`, `reference` rows).
    `rows=False` with `top=0`: the figures of each pair only, no row per flipped unit (a
    campaign's persistence figures: 130,000 rows of gate 7's campaign cost 0.6 s)."""
    want_rows = rows
    pairs, rows = [], []
    for k in range(len(models) - 1):
        in_batch, in_unit, before, after = [], [], [], []   # (batch, unit) of each unit
        for b in range(len(batches)):
            x, y = scores.get((k, b)), scores.get((k + 1, b))
            if x is None or y is None or len(x) != len(y):
                continue
            ok = np.isfinite(x) & np.isfinite(y)
            units = np.flatnonzero(ok)
            in_batch.append(np.full(units.size, b))
            in_unit.append(units)
            before.append(np.asarray(x)[ok])
            after.append(np.asarray(y)[ok])
        if not sum(u.size for u in in_unit):
            continue
        result = graded_flips(np.concatenate(before), np.concatenate(after),
                              higher_is_better=higher_is_better, best=BEST.get(metric, 0.0),
                              tolerance=tolerance, unit=unit, samples=samples, seed=seed)
        listed = []
        if not want_rows and top <= 0:
            pairs.append({"before": models[k], "after": models[k + 1], **result.as_dict(),
                          "regressed": listed})
            continue
        flipped = np.asarray(result.units, dtype=np.intp)
        for rank, (b, u, x, y) in enumerate(zip(np.concatenate(in_batch)[flipped].tolist(),
                                                np.concatenate(in_unit)[flipped].tolist(),
                                                result.before, result.after)):
            row = {"kind": "flip", "system": name, "before": models[k], "after": models[k + 1],
                   "batch": batches[b], "unit": labels[b][u], "index": u,
                   "score_before": x, "score_after": y, "delta": y - x}
            if texts is not None:
                row["output_before"], row["reference"] = texts(k, b, u)
                row["output_after"], _ = texts(k + 1, b, u)
            rows.append(row)
            if rank < top:
                listed.append(row)
        pairs.append({"before": models[k], "after": models[k + 1], **result.as_dict(),
                      "regressed": listed})
    return {"name": name, "pairs": pairs, "rows": rows}


def exact_section(name: str, versions, *, unit: str, samples: int = DEFAULT_SAMPLES,
                  seed: int = DEFAULT_SEED, top: int = DEFAULT_TOP) -> dict:
    """Exact flips between consecutive `versions`: [(version name, {unit id: decided right})]
    in order (detection trials, classified items); the units of a pair are those both
    versions decided, in the first one's order."""
    from llgui.core.across_time.flips import exact_flips

    pairs, rows = [], []
    for (first, a), (second, b) in zip(versions, versions[1:]):
        units = [u for u in a if u in b]
        if not units:
            continue
        result = exact_flips([a[u] for u in units], [b[u] for u in units], unit=unit,
                             samples=samples, seed=seed)
        listed = []
        for rank, i in enumerate(result.units):
            row = {"kind": "flip", "system": name, "before": first, "after": second,
                   "batch": "", "unit": units[i], "index": i, "score_before": 1.0,
                   "score_after": 0.0, "delta": -1.0}
            rows.append(row)
            if rank < top:
                listed.append(row)
        pairs.append({"before": first, "after": second, **result.as_dict(),
                      "regressed": listed})
    return {"name": name, "pairs": pairs, "rows": rows}


def relapse_section(name: str, result) -> dict:
    """One online run's relapses (a `Relapses`) as plain data, with one row per re-test."""
    rows = [{"kind": "relapse", "system": name, "correction": r.correction.id,
             "unit": r.correction.unit, "taught": r.correction.taught,
             "before": r.correction.before, "cost": r.correction.cost,
             "retest": r.retest.where, "output": r.retest.value,
             "outcome": "relapsed" if r.relapsed else "kept"} for r in result.rows]
    return {"name": name, **result.as_dict(), "rows": rows}


def report(task: str, metric: str, tolerance: float | None, flips: Sequence[dict],
           relapses: Sequence[dict] = (), replicates: Sequence[dict] = (),
           samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """The report; `tolerance` None for exact flips (detection, classification)."""
    from llgui.core.across_time.flips import signature

    return {"task": task, "metric": metric, "tolerance": tolerance,
            "unit": unit_name(task, metric),
            "signature": signature(unit_name(task, metric), tolerance, samples, seed),
            "flips": [{k: v for k, v in s.items() if k != "rows"} for s in flips],
            "relapses": [{k: v for k, v in s.items() if k != "rows"} for s in relapses],
            "replicates": list(replicates),
            "rows": [r for s in flips for r in s["rows"]]
            + [r for s in relapses for r in s["rows"]]}
