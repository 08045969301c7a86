"""Detection bundles with an interaction log: systems as documents, `label` steps checked.

A detection bundle's log (DESIGN.md 1.8) names a system by its score file's stem in `doc`,
and trials by id in `target.items`: "enroll test" (the key's two fields, one space) when the
bundle has a key, the 1-based trial number ("1", "2", ...) of a `score label` file without.
The log loader (`llgui.io.interactions`) checks each line alone; this module checks the
steps against the trials, at the log's lines:

- the document is one of the bundle's systems;
- every item of a step and of its inline `adapted.scores` is a trial of that system;
- an adapted score file (`adapted.path`) reads with the bundle's key and scores exactly the
  system's trials; it becomes `adapted.scores` for every trial (read once per file).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from llgui.core.errors import LoadError, Problem, Problems
from llgui.core.types import Adapted, DetDocument, Stamp, Step, Trials

_SHOWN = 5


def trial_ids(trials: Trials, keyed: bool) -> tuple[str, ...]:
    """The item ids of `trials` in their order (see the module docstring)."""
    if not keyed or trials.path is None:
        return tuple(str(i) for i in range(1, trials.scores.size + 1))
    from llgui.io import detection as det

    problems = Problems(trials.path)
    rows = det._table(trials.path, problems, 3, "enroll test score")
    if rows is None:  # it loaded a moment ago; a file changed under us is a load error
        problems.raise_if_any()
        raise LoadError([Problem(trials.path, 0, "the score file changed while loading")])
    ids = tuple(f"{e} {t}" for e, t in zip(rows.cells[0], rows.cells[1]))
    if len(ids) != trials.scores.size:
        raise LoadError([Problem(trials.path, 0, "the score file changed while loading")])
    return ids


def det_documents(trials: Sequence[Trials], keyed: bool) -> list[DetDocument]:
    """One DetDocument per system, in the bundle's order (time = its position, 0, 1, ...)."""
    return [DetDocument(t.name, Stamp(float(i), str(i)), t, trial_ids(t, keyed))
            for i, t in enumerate(trials)]


def check_label_steps(steps: Sequence[Step], documents: Sequence[DetDocument],
                      read_scores: Callable[[str], Trials | None], log_file: str,
                      keyed: bool) -> tuple[list[Step], list[Problem]]:
    """(the steps with adapted score files read into `adapted.scores`, the problems).

    `read_scores(path)` loads a score file with the bundle's key (None after problems, which
    it reports itself)."""
    problems: list[Problem] = []
    by_id = {d.id: d for d in documents}
    known = ", ".join(list(by_id)[:_SHOWN]) + (", ..." if len(by_id) > _SHOWN else "")
    files: dict[tuple[str, str], dict[str, float] | None] = {}
    out: list[Step] = []

    def add(step: Step, reason: str) -> None:
        problems.append(Problem(log_file, step.line, reason))

    for step in steps:
        doc = by_id.get(step.doc)
        if doc is None:
            add(step, f"document {step.doc!r} is not a system of the bundle (systems, named "
                      f"by score file stem: {known})")
            continue
        if step.kind != "label":
            add(step, f"a {step.kind} step in a detection log (detection steps are label)")
            continue
        index = doc.index
        unknown = [item for item in step.target.items if item not in index]
        if unknown:
            add(step, f"target item {unknown[0]!r} is not a trial of {doc.id}"
                      + (f" ({len(unknown)} unknown items)" if len(unknown) > 1 else "")
                      + _id_hint(keyed))
        adapted = step.adapted
        if adapted is not None and adapted.scores is not None:
            strange = [item for item in adapted.scores if item not in index]
            if strange:
                add(step, f"adapted scores: item {strange[0]!r} is not a trial of {doc.id}"
                          + _id_hint(keyed))
        elif adapted is not None and adapted.path is not None:
            cache_key = (doc.id, adapted.path)
            if cache_key not in files:
                files[cache_key] = _read_all(adapted.path, doc, read_scores, add, step, keyed)
            full = files[cache_key]
            if full is not None:
                step = replace(step, adapted=Adapted(scores=full, path=adapted.path))
        out.append(step)
    return out, problems


def _id_hint(keyed: bool) -> str:
    return ("; trial ids are 'enroll test'" if keyed
            else "; trial ids are the trial numbers '1', '2', ... (the bundle has no key)")


def _read_all(path: str, doc: DetDocument, read_scores, add, step, keyed: bool
              ) -> dict[str, float] | None:
    new = read_scores(path)
    if new is None:
        return None
    ids = trial_ids(new, keyed)
    if not keyed and len(ids) == len(doc.items) and not (
            new.is_target == doc.trials.is_target).all():
        first = int((new.is_target != doc.trials.is_target).argmax())
        add(step, f"adapted file {Path(path).name!r}: trial {first + 1} is labelled "
                  f"otherwise than in {doc.id}'s score file")
        return None
    if len(ids) != len(doc.items) or set(ids) != set(doc.index):
        add(step, f"adapted file {Path(path).name!r} scores {len(ids)} trials, not the "
                  f"{len(doc.items)} trials of {doc.id}")
        return None
    return dict(zip(ids, new.scores.tolist()))
