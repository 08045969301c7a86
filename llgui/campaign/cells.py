"""Cell jobs: one (system, model, batch) scored into additive statistics.

Each job is a module-level function of one plain dict (paths, metric names, settings) that
returns a plain dict, so Dask can ship it to a worker process (started with `spawn`) or to
another machine with llgui installed:

    {"stats": {metric: float64 array (n_units, n_stats)}, "problems": [[file, line, reason]]}

MT units are segments (the rows of `MTMetric.corpus_stats`: the driver sums them; a resampling
test can reuse them); diarization has one unit, the batch's recording (`DERMetric.stats`). A
malformed hypothesis file gives problems and no statistics, never an exception, so one bad
file does not stop a campaign.

A worker process keeps the reference side of the last batches it scored (sacrebleu's
reference n-grams, keyed by the references' content hash and the metric's settings): the 48
cells of a batch in a 4-system x 12-model campaign preprocess its references once per worker,
not 48 times.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
from collections import OrderedDict

import numpy as np

from llgui.core.errors import LoadError, Problem

_REFERENCE_CACHE: "OrderedDict[tuple, object]" = OrderedDict()
_REFERENCE_CACHE_SIZE = 256
"""Entries (a batch takes one per metric plus its text): room for dozens of batches, so a
worker cycling through a campaign's batches keeps them all (a few MB per batch of 500)."""


def _problems(error: LoadError) -> list[list]:
    return [[p.file, p.line, p.reason] for p in error.problems]


def _remember(key: tuple, build):
    if key in _REFERENCE_CACHE:
        _REFERENCE_CACHE.move_to_end(key)
        return _REFERENCE_CACHE[key]
    value = build()
    _REFERENCE_CACHE[key] = value
    while len(_REFERENCE_CACHE) > _REFERENCE_CACHE_SIZE:
        _REFERENCE_CACHE.popitem(last=False)
    return value


_VERSIONS: dict[str, dict] = {}


def where() -> str:
    """This process, as a problem names it: the host name and process id."""
    return f"{socket.gethostname()} (pid {os.getpid()})"


def check_worker(task: dict, kind: str, paths) -> list[list] | None:
    """Problems that make this process unfit to score `task`, or None: library versions
    other than the driver's (`task["versions"]`; the cache signs every cell with them), or a
    file it cannot read (a worker on another machine needs the campaign's files at the same
    absolute path). Each names this host and the cell (`task["label"]`)."""
    from llgui.campaign import cache

    label = task.get("label", "")
    expected = task.get("versions")
    if expected:
        if kind not in _VERSIONS:
            _VERSIONS[kind] = cache.library_versions(kind)
        ours = _VERSIONS[kind]
        differ = [f"{name} {ours.get(name, '?')} (the driver has {version})"
                  for name, version in sorted(expected.items()) if ours.get(name) != version]
        if differ:
            return [[task["hypothesis"], 0, f"cell {label} not scored: the worker on "
                     f"{where()} has {', '.join(differ)}; install the driver's versions on "
                     f"every worker"]]
    for path in paths:
        if path and not os.access(path, os.R_OK):
            why = "not found" if not os.path.exists(path) else "not readable"
            return [[path, 0, f"cell {label}: {why} on the worker on {where()} (every worker "
                              f"needs the campaign's files at the same absolute path)"]]
    return None


CHANGED = ("changed while the campaign ran (the run keyed its cells by the content it had at "
           "the start, and this job read other bytes): not scored, nothing cached; run the "
           "campaign again")


def _unchanged(task: dict, seen: dict) -> list:
    """Problems for each file the job read (`seen`: path -> bytes) whose bytes are not those
    its cell's key was made of (`task["digests"]`: path -> SHA-256): a file written while
    the campaign ran must not put one content's statistics under another's key."""
    expected = task.get("digests") or {}
    return [[path, 0, CHANGED] for path, data in seen.items()
            if path in expected and hashlib.sha256(data).hexdigest() != expected[path]]


def _watched(task: dict, load):
    """`load()`, with the bytes of every file it read checked against the task's digests
    (`_unchanged`): a LoadError naming a changed file."""
    from llgui.io._read import observing

    seen: dict = {}
    with observing(seen.__setitem__):
        value = load()
    changed = _unchanged(task, seen)
    if changed:
        raise LoadError([Problem(*p) for p in changed])
    return value



def cut(segments: tuple, task: dict, written: str, role: str = "hypothesis"):
    """`segments` cut by the batch's selection (`task["rows"]`; None: the whole file), or a
    problem row [file, line, reason] when the file is too short for it (the bundle's check)."""
    rows = task.get("rows")
    if rows is None:
        return segments, None
    from llgui.io.text import selection_problem, unmatched_line

    exact, least = task.get("exact"), task.get("least", 0)
    problem = selection_problem(len(segments), exact, least, task.get("what", ""), len(rows))
    if problem is not None:   # (named where it ends, or where it goes past the doc-id file)
        line = unmatched_line(len(segments), exact if exact is not None else least)
        return None, [written, line, f"{role} file {problem} (batch {task['batch']!r})"]
    return tuple(segments[i] for i in rows), None


def score_mt_cell(task: dict) -> dict:
    """Score an MT hypothesis file against its batch's references.

    `task`: hypothesis (path), references (paths), ref_key (their content hash), batch (id, for
    messages), metrics (names), settings (sacrebleu's argument names); optional: rows, exact,
    least, what (the batch's `lines` / `docids`: the references and a whole hypothesis file
    are cut to those rows), versions (the driver's library versions), label (the cell)."""
    from llgui.core.mt.stats import make_metric
    from llgui.io.text import blank_tail, load_segments, unmatched_line

    unfit = check_worker(task, "mt", [task["hypothesis"], *task["references"]])
    if unfit:
        return {"stats": {}, "problems": unfit}
    try:
        hypothesis = _watched(task, lambda: load_segments(task["hypothesis"]))
    except LoadError as error:
        return {"stats": {}, "problems": _problems(error)}
    whole_file = hypothesis
    hypothesis, problem = cut(whole_file, task, task["hypothesis"])
    if problem:   # too short for the range (the bundle's check, first as there)
        return {"stats": {}, "problems": [problem]}
    settings = task["settings"]
    setting_key = json.dumps(settings, sort_keys=True)

    def streams():
        """The references cut to the batch, and the first file's whole length."""
        out, whole = [], None
        for path in task["references"]:
            segments = _watched(task, lambda: load_segments(path))
            whole = len(segments) if whole is None else whole
            segments, problem = cut(segments, task, path, "references")
            if problem:
                raise LoadError([Problem(*problem)])
            out.append(segments)
        return tuple(out), whole

    try:
        references, whole = _remember(("text", task["ref_key"]), streams)
    except LoadError as error:  # the loader read them already; changed on disk since?
        return {"stats": {}, "problems": _problems(error)}
    if task.get("rows") is not None and task.get("exact") is None:   # a `lines` range
        from llgui.io.text import length_unlike_references

        reason = length_unlike_references(whole_file, whole, task.get("what", ""),
                                          len(task["rows"]))
        if reason is not None:
            line = unmatched_line(len(whole_file), whole)
            return {"stats": {}, "problems": [[task["hypothesis"], line,
                                               f"hypothesis file {reason} (batch "
                                               f"{task['batch']!r})"]]}
    n = len(references[0])
    if len(hypothesis) != n:
        reason = (f"has {len(hypothesis)} lines but the references of batch "
                  f"{task['batch']!r} have {n}" + blank_tail(hypothesis, n))
        return {"stats": {}, "problems": [[task["hypothesis"],
                                           unmatched_line(len(hypothesis), n), reason]]}
    stats = {}
    for name in task["metrics"]:
        metric = _remember(("metric", name, setting_key), lambda: make_metric(name, settings))

        ref_info = _remember(("refs", name, setting_key, task["ref_key"]),
                             lambda metric=metric: metric.batch_references(references))
        stats[name] = metric.batch_stats(hypothesis, ref_info)
    return {"stats": stats, "problems": []}


def score_diar_cell(task: dict) -> dict:
    """Score a diarization hypothesis (RTTM/MDTM) on one recording.

    `task`: hypothesis, reference, uem (or None), uri, metrics, settings (collar, skip_overlap,
    uem mode). A hypothesis file without the uri is an empty hypothesis (no speech found), as
    in a bundle; a file without any turn is a problem (more often a crashed run)."""
    from llgui.core.diarization.track import make_diar_metric
    from llgui.io.rttm import load_turns, load_uem

    unfit = check_worker(task, "diarization", [task["hypothesis"], task["reference"],
                                               task.get("uem")])
    if unfit:
        return {"stats": {}, "problems": unfit}
    try:
        hypothesis = _watched(task, lambda: load_turns(task["hypothesis"])).get(
            task["uri"], ())
        reference = _remember(("turns", task["reference"], task["ref_key"]),
                              lambda: _watched(task, lambda: load_turns(task["reference"]))
                              )[task["uri"]]
        uem = None
        if task.get("uem"):
            uem = _remember(("uem", task["uem"], task["ref_key"]),
                            lambda: _watched(task, lambda: load_uem(task["uem"])))[task["uri"]]
    except LoadError as error:
        return {"stats": {}, "problems": _problems(error)}
    stats = {}
    for name in task["metrics"]:
        metric = make_diar_metric(name, task["settings"])
        stats[name] = np.asarray(metric.stats(reference, hypothesis, uem),
                                 dtype=np.float64).reshape(1, -1)
    return {"stats": stats, "problems": []}


def replay_online(task: dict) -> dict:
    """An online run: its bundle scored and replayed through its interaction log.

    Returns {"report": the `score` JSON of the bundle (penalised scores included, as `llgui
    score` gives them), "figures": {metric: {s_base, s_adapt, s_pen, msr}} pooled over its
    documents, "problems": [...]}. Each metric is replayed once (the replay is the costly
    part: every step rescored)."""
    import dataclasses

    from llgui.core.penalty import replay_bundle
    from llgui.io.bundle import load_bundle
    from llgui.core.reports.commands import score_report
    from llgui.io.export import clean

    try:
        bundle = load_bundle(task["bundle"])
    except LoadError as error:
        return {"report": None, "figures": {}, "problems": _problems(error)}
    if task.get("digest") and _bundle_address(bundle) != task["digest"]:
        # its files written since the run looked it up: the key is the content it had then
        return {"report": None, "figures": {}, "problems": [[task["bundle"], 0, CHANGED]]}
    if bundle.task != task["task"]:
        return {"report": None, "figures": {}, "problems": [[
            task["bundle"], 0, f"a {bundle.task} bundle in a {task['task']} campaign"]]}
    metrics = tuple(task["metrics"])
    # the plain scores, then the penalised part from one replay per metric (the same
    # entries as llgui.io.export._add_penalised, which would replay again)
    report = score_report(dataclasses.replace(bundle, steps=()), metrics)
    figures = {}
    if bundle.steps:
        report["penalised"] = {}
    # a run without an interaction log has figures too (nothing corrected: S_adapt = S_pen =
    # S_base), so the leaderboard shows it beside the others
    for name in metrics:
        result = replay_bundle(bundle, name)
        if bundle.steps:
            report["penalised"][name] = {
                "pooled": {"s_base": result.pooled_base, "s_adapt": result.pooled_adapt,
                           "s_pen": result.pooled_pen},
                "mean": {a: result.mean(a) for a in ("s_base", "s_adapt", "s_pen")},
            }
            for entry, r in zip(report["documents"], result.replays):
                entry.setdefault("penalised", {})[name] = {
                    "s_base": r.s_base, "s_adapt": r.s_adapt, "s_pen": r.s_pen,
                    "steps": len(r.steps), "cost": r.total_cost, "msr": r.msr}
        figures[name] = {"s_base": result.pooled_base, "s_adapt": result.pooled_adapt,
                         "s_pen": result.pooled_pen, "msr": result.msr}
        if result.partial_note is not None:   # a run stopped in a document (issue 32)
            figures[name]["partial"] = result.partial_note
    return {"report": clean(report), "figures": clean(figures), "problems": []}


def warm_up(task: str, metrics, settings) -> None:
    """What a fresh worker's first cell pays once (imports, the metrics' compiled kernels:
    numba's first call loads its compiler, 0.9 s here), paid on a sentence of its own when
    the worker joins the run: the per-cell time limit then times cells, not the worker's
    start (outsider helper-49: with --cell-timeout 1, the first cells on fresh workers ran
    past it and both workers were given up). Nothing is returned or kept but the caches."""
    if task == "mt":
        from llgui.core.mt.stats import make_metric

        for name in metrics:
            metric = make_metric(name, settings)
            metric.batch_stats(["a warm up sentence ."],
                               metric.batch_references([["a warm sentence up ."]]))
    else:
        from llgui.core.diarization.track import make_diar_metric
        from llgui.core.types import Turn

        for name in metrics:
            make_diar_metric(name, settings).stats(
                [Turn(0.0, 1.0, "A"), Turn(1.0, 2.0, "B")],
                [Turn(0.0, 1.5, "x"), Turn(1.5, 2.0, "y")], None)


def bundle_digest(path: str) -> tuple[str | None, list[list]]:
    """The content address of an online run: SHA-256 of its loaded bundle (documents, steps,
    settings, cost model, path), or None and the bundle's problems."""
    from llgui.io.bundle import load_bundle

    try:
        bundle = load_bundle(path)
    except LoadError as error:
        return None, _problems(error)
    return _bundle_address(bundle), []


def _bundle_address(bundle) -> str:
    content = repr((bundle.path, bundle.task, bundle.name, bundle.metrics,
                    sorted(bundle.settings.items()), bundle.cost, bundle.documents,
                    bundle.steps, "partial", bundle.partial))   # a run ended: a new result
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def as_problems(rows) -> list[Problem]:
    return [Problem(str(f), int(line), str(reason)) for f, line, reason in rows]
