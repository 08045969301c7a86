"""Question value of a bundle's active steps: the per-unit errors a task's track holds at the
hypothesis the expert saw (h_{n-1}), fed to `llgui.core.effort.question`.

- MT: TER edits per sentence (WER edits when the run is scored with WER), the sentence's
  cost its first reference's words (characters for scripts written without spaces) times
  the cost model's `reference_weight`; the pool is the document's sentences not corrected
  before the step.
- Diarization: DER error seconds (`llgui.core.diarization.der.error_pieces`: missed, false
  alarm and confused speakers per second, under the optimal mapping, the bundle's collar,
  skip_overlap and UEM); what was asked is the step's windows in this document (merged, as
  the cost model listens to them; a `same` window in another document is not counted), its
  cost their seconds times `listen_weight`; the pool is every second of the UEM.
- Classification: wrong decisions among the step's items, one unit each (`label` steps);
  the pool is the items not labelled before.

Only active steps (the system chose the question) are valued; detection logs are not (their
errors depend on a threshold). A track is walked once through the log: each step is valued
before the track takes the step's adapted hypothesis.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from llgui.core.cost import CostModel
from llgui.core.effort.question import QuestionReport, QuestionValue, random_and_best
from llgui.core.jobs import check
from llgui.core.penalty import make_track
from llgui.core.types import Bundle, Step

ERROR_METRIC = {"mt": "ter", "diarization": "der", "classification": "error_rate"}
"""The metric whose error count values a question, per task (MT: "wer" when asked for)."""
UNITS = {"ter": "TER edits", "wer": "WER edits", "der": "DER error seconds",
         "error_rate": "wrong labels"}


def error_metric(task: str, metric: str | None = None) -> str:
    """The error-count metric of a task's question value: `metric` itself when it counts
    errors in the task's unit (MT `ter`/`wer`), else the task's (`ERROR_METRIC`)."""
    if task not in ERROR_METRIC:
        raise ValueError(f"question value is not defined for {task} logs")
    if task == "mt" and metric in ("ter", "wer"):
        return metric
    return ERROR_METRIC[task]


def has_active_steps(bundle: Bundle) -> bool:
    return any(s.initiative == "active" for s in bundle.steps)


def question_report(bundle: Bundle, metric: str | None = None,
                    cost_model: CostModel | None = None, *, docs: Sequence[str] | None = None,
                    should_stop: Callable[[], bool] | None = None) -> QuestionReport:
    """Question value of every active step of `bundle` (or of the documents `docs`)."""
    name = error_metric(bundle.task, metric)
    cost_model = bundle.cost if cost_model is None else cost_model
    values: list[QuestionValue] = []
    cost_unit = ""
    chosen = [d for d in bundle.documents if docs is None or d.id in docs]
    for document in chosen:
        steps = bundle.steps_of(document.id)
        if not any(s.initiative == "active" for s in steps):
            continue
        track = make_track(document, name, bundle.settings, cost_model, bundle.documents)
        cost_unit = getattr(track, "cost_unit", cost_unit)
        values.extend(document_values(track, steps, cost_model, should_stop=should_stop))
    return QuestionReport(metric=name, unit=UNITS[name], cost_unit=cost_unit,
                          steps=tuple(values), docs=tuple(d.id for d in chosen))


def document_values(track, steps: Sequence[Step], cost_model: CostModel = CostModel(), *,
                    should_stop: Callable[[], bool] | None = None) -> list[QuestionValue]:
    """Walk `track` (at h_0) through one document's `steps`; the value of each active one."""
    from llgui.core.classification.track import ClassTrack
    from llgui.core.diarization.track import DiarTrack
    from llgui.core.mt.track import MTTrack

    if isinstance(track, MTTrack):
        value_of = _mt_value
    elif isinstance(track, DiarTrack):
        value_of = _diar_value
    elif isinstance(track, ClassTrack):
        value_of = _class_value
    else:
        raise ValueError("question value is defined for MT, diarization and classification")
    done: set = set()      # units corrected before (MT sentences, classification items)
    out: list[QuestionValue] = []
    for step in steps:
        check(should_stop)
        if step.initiative == "active":
            cost, asked, pool_errors, pool_costs = value_of(track, step, cost_model, done)
            random, best = random_and_best(pool_errors, pool_costs, cost)
            out.append(QuestionValue(step.doc, step.step, step.kind, cost, asked, random,
                                     max(best, asked)))
        done.update(_units_of(track, step))
        track.advance(step)
    return out


def _units_of(track, step: Step) -> tuple:
    target = step.target
    if hasattr(target, "sentence"):
        return (target.sentence - 1,)
    if hasattr(target, "items"):
        return tuple(track.positions(step).tolist())
    return ()


def _mt_value(track, step, cost_model, done):
    index = step.target.sentence - 1
    stats = track.stats
    # TER and WER rows are (edits, reference words): the first column is `metric.errors`'s
    errors = np.asarray(stats[:, 0], dtype=float)
    costs = _mt_costs(track) * cost_model.reference_weight
    pool = np.ones(errors.size, dtype=bool)
    pool[list(done)] = False
    pool[index] = True       # the asked sentence is a question the system could ask
    return float(costs[index]), float(errors[index]), errors[pool], costs[pool]


def _mt_costs(track) -> np.ndarray:
    """Reference words (characters) of every sentence, counted once per track."""
    from llgui.core.mt.script import count_units

    costs = getattr(track, "_question_costs", None)
    if costs is None:
        costs = np.array([count_units(r, track.cost_unit) for r in track.doc.references[0]],
                         dtype=float)
        track._question_costs = costs
    return costs


def _diar_value(track, step, cost_model, done):
    from llgui.core.diarization.der import error_pieces

    doc, metric = track.doc, track.metric
    starts, ends, per_second, uem_seconds = error_pieces(
        doc.reference, track.hypothesis, doc.uem, metric.collar, metric.skip_overlap)
    windows = track.windows(step)
    asked = 0.0
    for a, b in windows:
        overlap = np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0.0, None)
        asked += float(per_second @ overlap)
    seconds = float(sum(b - a for a, b in windows))
    lengths = ends - starts
    rest = max(uem_seconds - float(lengths.sum()), 0.0)
    w = cost_model.listen_weight
    pool_errors = np.append(per_second * lengths, 0.0)
    pool_costs = np.append(lengths, rest) * w
    return seconds * w, asked, pool_errors, pool_costs


def _class_value(track, step, cost_model, done):
    where = np.unique(track.positions(step))
    wrong = (np.array(track.decisions) != np.array(track.doc.truth)).astype(float)
    pool = np.ones(wrong.size, dtype=bool)
    pool[list(done)] = False
    pool[where] = True
    return float(where.size), float(wrong[where].sum()), wrong[pool], np.ones(int(pool.sum()))


__all__ = ["question_report", "document_values", "error_metric", "has_active_steps",
           "ERROR_METRIC"]
