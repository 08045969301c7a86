"""The live expert against the simulated one (issue 34): from a live session's folder.

A live session's folder (`llgui.sim.live`) holds the bundle it wrote, the log with each step's
`effort` (seconds, keystrokes, MT word edits) and `run.json`. This module walks the log with
the oracle's view of the document (the same `View` the simulation gives `allies`), so every
question the human answered gets the oracle's answer to that question, on the hypothesis the
human saw; the statistics are `llgui.core.effort.human`'s.

Compared answers: MT (`reference` or `post_edit`): the text the human sent against the
document's first reference, whitespace-normalised (the oracle answers with it); `same`: the
bool; `name`: the label (the hypothesis label the optimal mapping gives the reference speaker
there, as the oracle answers); `boundary`: both edges within `tolerance` seconds of the
reference turn's. `segment` answers carry no content and are not compared.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.effort import human as H
from llgui.core.types import MTDocument, Step

BOUNDARY_TOLERANCE = 0.5
"""Seconds: a boundary answer agrees with the oracle's when both edges are this close."""


@dataclass(frozen=True)
class Compared:
    """One answered question: the human's answer and the oracle's."""

    doc: str
    step: int
    kind: str
    human: object
    oracle: object
    agree: bool


@dataclass(frozen=True)
class EffortRow:
    """One step's logged effort and what the cost model counts for it."""

    doc: str
    step: int
    kind: str
    seconds: float
    keystrokes: int
    features: tuple[float, float, float]     # reference words, word edits, seconds listened


@dataclass(frozen=True)
class HumanSession:
    """What one live session's log holds, step by step."""

    folder: str
    system: str
    oracle: str
    compared: tuple[Compared, ...]
    effort: tuple[EffortRow, ...]
    skipped: tuple[str, ...] = field(default=())


def read_session(folder: str | Path, tolerance: float = BOUNDARY_TOLERANCE) -> HumanSession:
    """Walk a live session's folder: answers compared, effort rows. ValueError (with the
    file) when it is not a session folder or its log has no effort."""
    from llgui.core.penalty import make_track
    from llgui.io.bundle import load_bundle
    from llgui.sim.driver import VIEW_METRIC, _LazyRefs
    from llgui.sim.live import read_log
    from llgui.sim.oracles import Oracle, View

    folder = Path(folder)
    bundle_path = folder / "bundle.toml"
    if not bundle_path.is_file():
        raise ValueError(f"{folder}: not a live session or simulation folder (no bundle.toml)")
    bundle = load_bundle(bundle_path)
    records = {(r["doc"], r.get("step")): r for r in read_log(folder)}
    run = _run_json(folder)
    oracle = Oracle()
    compared: list[Compared] = []
    rows: list[EffortRow] = []
    skipped: list[str] = []
    listen = CostModel(window=bundle.cost.window, use_log_cost=False)
    for index, document in enumerate(bundle.documents):
        steps = bundle.steps_of(document.id)
        if not steps:
            continue
        track = make_track(document, VIEW_METRIC[bundle.task], bundle.settings, bundle.cost,
                           bundle.documents)
        view = View(document, track, bundle.cost, index, 0)
        if not view.is_mt:
            view.others = _LazyRefs(bundle)
        for step in steps:
            record = records.get((step.doc, step.step), {})
            effort = record.get("effort")
            if isinstance(effort, dict) and "seconds" in effort:
                try:
                    rows.append(_effort_row(step, effort, document, track, listen))
                except (TypeError, ValueError) as error:
                    where = f"{folder / 'logs' / 'system.jsonl'}:{step.line or 0}"
                    raise ValueError(f"{where}: effort of document {step.doc!r} step "
                                     f"{step.step}: {error}") from None
            pair = _compare(step, document, view, oracle, tolerance)
            if pair is None:
                skipped.append(f"{step.doc} step {step.step} ({step.kind})")
            else:
                compared.append(pair)
            track.advance(step)
    return HumanSession(str(folder), run.get("system", {}).get("name", folder.name),
                        str(run.get("oracle", "")), tuple(compared), tuple(rows),
                        tuple(skipped))


def has_effort(folder: str | Path) -> bool:
    """True when the folder's log records an expert's effort (a live session)."""
    from llgui.sim.live import read_log

    return any(isinstance(r.get("effort"), dict) for r in read_log(folder))


def _run_json(folder: Path) -> dict:
    path = folder / "run.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _normal(text) -> str:
    return " ".join(str(text).split())


def _compare(step: Step, document, view, oracle, tolerance: float) -> Compared | None:
    if isinstance(document, MTDocument):
        truth = document.references[0][step.target.sentence - 1]
        sent = truth if step.kind == "reference" else step.answer
        if not isinstance(sent, str):
            return None
        return Compared(step.doc, step.step, step.kind, sent, truth,
                        _normal(sent) == _normal(truth))
    if step.kind not in ("same", "boundary", "name"):
        return None
    right = oracle.answer(step.kind, step.target, view).log_answer
    given = step.answer
    if step.kind == "boundary":
        a, b = (float(v) for v in given)
        c, d = (float(v) for v in right)
        agree = abs(a - c) <= tolerance and abs(b - d) <= tolerance
        return Compared(step.doc, step.step, step.kind, [a, b], [c, d], agree)
    return Compared(step.doc, step.step, step.kind, given, right, given == right)


def _effort_row(step: Step, effort: dict, document, track, listen: CostModel) -> EffortRow:
    from llgui.core.mt.script import count_units
    from llgui.core.numbers import check_number

    seconds = check_number(effort.get("seconds"), "effort seconds", minimum=0.0, maximum=1e7)
    keys = int(check_number(effort.get("keystrokes", 0), "keystrokes", minimum=0, maximum=1e12,
                            integer=True))
    if isinstance(document, MTDocument):
        index = step.target.sentence - 1
        if step.kind == "reference":
            features = (float(count_units(document.references[0][index], track.cost_unit)),
                        0.0, 0.0)
        else:
            edits = effort.get("word_edits")
            if edits is None:
                edits = track.cost(step, CostModel(use_log_cost=False))
            features = (0.0, float(check_number(edits, "word_edits", minimum=0.0,
                                                maximum=1e9)), 0.0)
    else:
        features = (0.0, 0.0, float(track.cost(step, listen)))
    return EffortRow(step.doc, step.step, step.kind, float(seconds), keys, features)


# --------------------------------------------------------------------------------------------
# The report


def effort_report(folders: Sequence[str | Path], simulated: Sequence[str | Path] = (),
                  metric: str | None = None, method: str = "exact", level: float = 0.95,
                  tolerance: float = BOUNDARY_TOLERANCE) -> dict:
    """The `llgui effort` report of live session folders (and, for Kendall's tau, simulated
    run folders of the same systems on the same bundle)."""
    sessions = [read_session(f, tolerance) for f in folders]
    matches = [c.agree for s in sessions for c in s.compared]
    rows = [r for s in sessions for r in s.effort]
    report: dict = {
        "sessions": [{"folder": s.folder, "system": s.system, "oracle": s.oracle,
                      "steps": len(s.effort), "compared": len(s.compared),
                      "agreement": H.agreement([c.agree for c in s.compared], method,
                                               level).to_dict()}
                     for s in sessions],
        "agreement": H.agreement(matches, method, level).to_dict(),
        "answers": [{"doc": c.doc, "step": c.step, "kind": c.kind, "agree": c.agree,
                     "human": c.human, "oracle": c.oracle}
                    for s in sessions for c in s.compared],
        "not_compared": [x for s in sessions for x in s.skipped],
        "cost_fit": None, "cost_fit_problem": None,
        "effort": [{"doc": r.doc, "step": r.step, "kind": r.kind, "seconds": r.seconds,
                    "keystrokes": r.keystrokes, "reference_words": r.features[0],
                    "word_edits": r.features[1], "seconds_listened": r.features[2]}
                   for r in rows],
        "ranking": None,
    }
    if rows:
        try:
            fit = H.fit_cost(np.array([r.features for r in rows]),
                             np.array([r.seconds for r in rows]), level)
            report["cost_fit"] = fit.to_dict()
            report["cost_model"] = fit.cost_model().to_dict()
        except ValueError as error:
            report["cost_fit_problem"] = str(error)
    else:
        report["cost_fit_problem"] = "the log records no effort (not a live session)"
    if simulated:
        live = _pooled_pen([Path(f) for f in folders], metric)
        sim = _pooled_pen([Path(f) for f in simulated], metric)
        report["ranking"] = {"metric": live[0] or sim[0], "live": live[1], "simulated": sim[1],
                             **H.kendall_tau(live[1], sim[1])}
    return report


def fitted_cost_toml(report: dict) -> str:
    """The fitted cost model of an effort report as a `[cost]` table, with its provenance."""
    fit = report.get("cost_fit")
    if not fit:
        raise ValueError(report.get("cost_fit_problem") or "no cost fit")
    model = CostModel.from_dict(report["cost_model"])
    notes = [f"cost model fitted by llgui effort to {fit['steps']} logged steps "
             f"(seconds of expert time; {fit['method']}, {round(100 * fit['level'])}% t "
             f"intervals)"]
    for name, w in fit["weights"].items():
        notes.append(f"{name}: {w['value']:.4g} [{w['interval'][0]:.4g}, "
                     f"{w['interval'][1]:.4g}] {w['unit']}")
        if w.get("warning"):
            notes.append(f"warning: {w['warning']}")
    return H.cost_toml(model, "\n".join(notes))


def _pooled_pen(folders: Sequence[Path], metric: str | None) -> tuple[str, dict[str, float]]:
    """System name -> pooled S_pen of each run folder's bundle (first metric by default)."""
    from llgui.core.penalty import replay_bundle
    from llgui.io.bundle import load_bundle

    out: dict[str, float] = {}
    name = metric
    for folder in folders:
        bundle = load_bundle(folder / "bundle.toml")
        name = name or bundle.metrics[0]
        system = _run_json(folder).get("system", {}).get("name") or folder.name
        if system in out:
            raise ValueError(f"{folder}: system {system!r} appears twice")
        out[system] = replay_bundle(bundle, name).pooled_pen
    return name or "", out
