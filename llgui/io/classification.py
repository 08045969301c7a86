"""Multi-class classification bundles: true classes, systems' decisions, `label` steps.

Files are `id class` lines (whitespace-separated, blank lines and lines starting with "#"
skipped): the key gives each item's true class, a decisions file (one per system, named by
its stem) the system's class for every item of the key. The bundle's table::

    [classification]
    key = "items.key"
    decisions = ["sysA.txt", "sysB.txt"]
    classes = ["cat", "dog", "emu"]      # optional: default, the key's classes sorted

An interaction log's `doc` names a system; its `label` steps give items' true classes, and
the system's new decisions as `adapted.labels` (`{"ID": "class"}`) or a decisions file
(`adapted.path`). Problems (`FILE:LINE: reason`): wrong field count, an item twice, a class
outside the task's, a decisions file without some of the key's items or with others; in
the log, an unknown system or item, an answer or adapted class outside the task's.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from llgui.core.errors import LoadError, Problem, Problems
from llgui.core.types import Adapted, ClassDocument, Stamp, Step
from llgui.io._read import decode_lines, describe, raise_in_line_order, read_bytes

_SHOWN = 5


def load_labels(path: str | Path) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    """(item ids, classes, 1-based lines) of an `id class` file; LoadError on any problem."""
    problems = Problems(path)
    data = read_bytes(path, problems)
    ids: list[str] = []
    labels: list[str] = []
    lines: list[int] = []
    first: dict[str, int] = {}
    if data is not None:
        for number, line in enumerate(decode_lines(data, problems, strip_bom=True), 1):
            if line is None:
                continue
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 2:
                problems.add(number, f"expected 2 fields (id class), got {len(fields)}")
                continue
            item, label = fields
            if item in first:
                problems.add(number, f"duplicate item {describe(item)} (first at line "
                                     f"{first[item]})")
                continue
            first[item] = number
            ids.append(item)
            labels.append(label)
            lines.append(number)
        if not problems and not ids:
            problems.add(0, "no items")
    raise_in_line_order(problems)
    return tuple(ids), tuple(labels), tuple(lines)


def class_documents(key_path: str, decision_paths: Sequence[str],
                    classes: Sequence[str] | None, problems: list[Problem],
                    read: Callable = load_labels) -> list[ClassDocument]:
    """One ClassDocument per decisions file, in order (time = its position). Problems are
    appended to `problems`; a system with any is left out."""
    try:
        ids, truth, key_lines = read(key_path)
    except LoadError as exc:
        problems.extend(exc.problems)
        return []
    task_classes = tuple(classes) if classes else tuple(sorted(set(truth)))
    known = set(task_classes)
    bad = False
    for line, label in zip(key_lines, truth):
        if label not in known:
            problems.append(Problem(key_path, line, f"class {describe(label)} is not one of "
                                                    f"the task's: {', '.join(task_classes)}"))
            bad = True
    if len(task_classes) < 2:
        problems.append(Problem(key_path, 0, "a classification task needs at least 2 classes"))
        bad = True
    if bad:
        return []
    index = {item: i for i, item in enumerate(ids)}
    documents = []
    for k, path in enumerate(decision_paths):
        decisions = _decisions(path, index, task_classes, problems, read)
        if decisions is not None:
            documents.append(ClassDocument(Path(path).stem, Stamp(float(k), str(k)), ids,
                                           truth, decisions, task_classes))
    return documents


def _decisions(path: str, index: dict[str, int], classes: tuple[str, ...],
               problems: list[Problem], read: Callable) -> tuple[str, ...] | None:
    """A decisions file's classes in the key's item order, or None after problems."""
    try:
        ids, labels, lines = read(path)
    except LoadError as exc:
        problems.extend(exc.problems)
        return None
    known = set(classes)
    out: list[str | None] = [None] * len(index)
    bad = False
    for item, label, line in zip(ids, labels, lines):
        if item not in index:
            problems.append(Problem(path, line, f"item {describe(item)} is not in the key"))
            bad = True
        elif label not in known:
            problems.append(Problem(path, line, f"class {describe(label)} is not one of the "
                                                f"task's: {', '.join(classes)}"))
            bad = True
        else:
            out[index[item]] = label
    missing = [item for item, i in index.items() if out[i] is None]
    if missing and not bad:
        shown = ", ".join(missing[:_SHOWN]) + (", ..." if len(missing) > _SHOWN else "")
        problems.append(Problem(path, 0, f"{len(missing)} items of the key have no decision: "
                                         f"{shown}"))
        bad = True
    return None if bad else tuple(out)  # type: ignore[arg-type]


def check_class_steps(steps: Sequence[Step], documents: Sequence[ClassDocument],
                      log_file: str, read: Callable = load_labels
                      ) -> tuple[list[Step], list[Problem]]:
    """(the steps with adapted decisions files read into `adapted.labels`, the problems)."""
    problems: list[Problem] = []
    by_id = {d.id: d for d in documents}
    known = ", ".join(list(by_id)[:_SHOWN]) + (", ..." if len(by_id) > _SHOWN else "")
    out: list[Step] = []

    def add(step: Step, reason: str) -> None:
        problems.append(Problem(log_file, step.line, reason))

    for step in steps:
        doc = by_id.get(step.doc)
        if doc is None:
            add(step, f"document {step.doc!r} is not a system of the bundle (systems, named "
                      f"by decisions file stem: {known})")
            continue
        classes = set(doc.classes)
        unknown = [item for item in step.target.items if item not in doc.index]
        if unknown:
            add(step, f"target item {unknown[0]!r} is not an item of the key")
        strange = [label for label in step.answer if label not in classes]
        if strange:
            add(step, f"answer {strange[0]!r} is not one of the task's classes: "
                      f"{', '.join(doc.classes)}")
        adapted = step.adapted
        if adapted is not None and adapted.labels is not None:
            bad_items = [item for item in adapted.labels if item not in doc.index]
            bad_labels = [c for c in adapted.labels.values() if c not in classes]
            if bad_items:
                add(step, f"adapted labels: item {bad_items[0]!r} is not an item of the key")
            if bad_labels:
                add(step, f"adapted labels: {bad_labels[0]!r} is not one of the task's "
                          f"classes: {', '.join(doc.classes)}")
        elif adapted is not None and adapted.path is not None:
            decisions = _decisions(adapted.path, dict(doc.index), doc.classes, problems, read)
            if decisions is not None:
                step = replace(step, adapted=Adapted(labels=dict(zip(doc.items, decisions)),
                                                     path=adapted.path))
        out.append(step)
    return out, problems
