"""Relapses: corrected errors that come back when a later model version meets the unit again
(DESIGN.md section 1.9).

Every correction of an interaction log fixes an error on a unit: a trial's or an item's label,
a speaker's name, a segment's words. When a later model version is tested on that unit again
(a later document that repeats it, or a campaign's test batch), the correction is

- **relapsed** when the error it removed is back: for a label (`mode="label"`), the later
  output is not the taught label (for a binary label: back to the corrected one); for a unit
  score (`mode="graded"`), the later score is at or below (error rates: at or above) the score
  of h_{n-1}, the hypothesis the expert corrected, within `tolerance`;
- **kept** otherwise.

A correction is re-tested when at least one later test (order strictly after the correction's)
names its unit; a re-tested correction counts as relapsed when any of its re-tests is. The
relapse rate is relapsed / re-tested corrections; its cost-weighted form is the expert cost of
the relapsed corrections / the expert cost of the re-tested ones (the effort paid twice).
Per later version, the same two figures over the corrections that version re-tested.

Inputs are plain records the caller builds from its logs and outputs; nothing here reads
files or imports a task family.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

MODES = ("label", "graded")


@dataclass(frozen=True)
class Correction:
    """One correction: `id` (e.g. "ES2011a#3"), the `unit` it fixed, when (`order`: the
    position of its document in processing order, or a model time), its expert `cost`,
    `taught` (the label told, mode label) and `before` (mode graded: the unit score of the
    hypothesis the expert corrected; mode label: the label it had, shown only)."""

    id: str
    unit: str
    order: float
    cost: float
    taught: object = None
    before: object = None


@dataclass(frozen=True)
class Retest:
    """A later model version tested on a unit: `unit`, `order` (as Correction.order), `where`
    (the document or model version, shown), `value` (its label, or its unit score; None when
    the version gave the unit no output at all)."""

    unit: str
    order: float
    where: str
    value: object


@dataclass(frozen=True)
class RelapseRow:
    correction: Correction
    retest: Retest
    relapsed: bool


@dataclass(frozen=True)
class Relapses:
    rows: tuple[RelapseRow, ...]
    corrections: int          # corrections in the log
    retested: int             # corrections with at least one later test of their unit
    relapsed: int             # re-tested corrections with at least one relapsed re-test
    cost_retested: float
    cost_relapsed: float
    per_version: tuple[dict, ...]   # {where, order, retested, relapsed, rate, cost_rate}
    mode: str
    tolerance: float

    @property
    def rate(self) -> float:
        return self.relapsed / self.retested if self.retested else math.nan

    @property
    def cost_rate(self) -> float:
        return self.cost_relapsed / self.cost_retested if self.cost_retested > 0 else math.nan

    def as_dict(self) -> dict:
        """Rates in percent (DESIGN.md section 7); the properties are fractions."""
        return {"mode": self.mode, "tolerance": self.tolerance,
                "corrections": self.corrections, "retested": self.retested,
                "relapsed": self.relapsed, "rate": 100.0 * self.rate,
                "cost_rate": 100.0 * self.cost_rate,
                "cost_retested": self.cost_retested, "cost_relapsed": self.cost_relapsed,
                "per_version": [{**v, "rate": 100.0 * v["rate"],
                                 "cost_rate": 100.0 * v["cost_rate"]}
                                for v in self.per_version]}


def is_relapsed(correction: Correction, value, *, mode: str, higher_is_better: bool = True,
                tolerance: float = 0.0) -> bool:
    """Whether a re-test output `value` brings back the error `correction` removed."""
    if mode == "label":
        return value is None or value != correction.taught
    if mode == "graded":
        if value is None:
            return True
        before = float(correction.before)
        value = float(value)
        return value <= before + tolerance if higher_is_better else value >= before - tolerance
    raise ValueError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")


def relapses(corrections: Sequence[Correction], retests: Iterable[Retest], *,
             mode: str = "label", higher_is_better: bool = True,
             tolerance: float = 0.0) -> Relapses:
    """Every (correction, later re-test of its unit) pair judged, and the rates (module doc).
    Rows are in the order of the corrections, then of the re-tests."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    by_unit: dict[str, list[Retest]] = {}
    for r in retests:
        by_unit.setdefault(r.unit, []).append(r)
    for tests in by_unit.values():
        tests.sort(key=lambda r: (r.order, r.where))
    rows: list[RelapseRow] = []
    retested = relapsed = 0
    cost_retested = cost_relapsed = 0.0
    versions: dict[tuple, dict] = {}
    for c in corrections:
        later = [r for r in by_unit.get(c.unit, ()) if r.order > c.order]
        if not later:
            continue
        retested += 1
        cost_retested += c.cost
        any_relapse = False
        for r in later:
            bad = is_relapsed(c, r.value, mode=mode, higher_is_better=higher_is_better,
                              tolerance=tolerance)
            rows.append(RelapseRow(c, r, bad))
            any_relapse |= bad
            v = versions.setdefault((r.order, r.where), {
                "where": r.where, "order": r.order, "retested": 0, "relapsed": 0,
                "cost_retested": 0.0, "cost_relapsed": 0.0, "_seen": set()})
            if c.id not in v["_seen"]:
                v["_seen"].add(c.id)
                v["retested"] += 1
                v["cost_retested"] += c.cost
                if bad:
                    v["relapsed"] += 1
                    v["cost_relapsed"] += c.cost
        if any_relapse:
            relapsed += 1
            cost_relapsed += c.cost
    per_version = []
    for key in sorted(versions):
        v = versions[key]
        v.pop("_seen")
        v["rate"] = v["relapsed"] / v["retested"]
        v["cost_rate"] = (v["cost_relapsed"] / v["cost_retested"]
                          if v["cost_retested"] > 0 else math.nan)
        per_version.append(v)
    return Relapses(tuple(rows), len(corrections), retested, relapsed, cost_retested,
                    cost_relapsed, tuple(per_version), mode, tolerance)
