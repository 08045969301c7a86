"""The campaign driver: cache look-ups, cell jobs on an executor, merging, the report.

    run = run_campaign(load_campaign(path), workers=None, scheduler=None)
    run.report      # the `campaign` JSON shape (llgui.core.reports.campaign.build_report)

Cells found in the cache are not submitted; every finished cell is written to the cache as
soon as it arrives (atomically), so a run killed at any moment loses at most the cells in
flight. Results are merged by cell index, never in arrival order, and scored from the summed
statistics by the driver, so the report is the same byte for byte whatever ran the jobs.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from llgui.core.reports.campaign import Campaign, CampaignScores, build_report, make_scorer, \
    scoring_settings
from llgui.core.errors import LoadError, Problem
from llgui.core.jobs import Cancelled, collector_paused
from llgui.campaign import cells as jobs
from llgui.campaign.digests import DigestMemo
from llgui.campaign.heads import HeadIndex
from llgui.campaign.cache import (
    CellCache, StoredCell, cell_key, cell_keys, file_digest, library_versions,
)
from llgui.utils.regular import file_size
from llgui.campaign.executor import (
    CELL_SECONDS, CONNECT_SECONDS, Executor, Measurements, Plan, choose, measured_enough,
    per_cell_estimate, run_here, scheduler_address, worth_workers,
)


@dataclass(frozen=True, eq=False)
class CampaignRun:
    """A scored campaign: the report, the statistics behind it, and how the run went
    (cells computed, taken from the cache, damaged entries found; the executor's plan)."""

    report: dict
    scores: CampaignScores
    computed: int
    cached: int
    corrupt: int
    plan: Plan | None
    unwritable: str | None = None   # why the cache could not be written, if it could not
    failed: int = 0                 # cells computed without a result (each a named problem)
    scored: int = 0                 # files scored: cells of one content are scored once
    segments: dict | None = None
    """Per scored cell (system, model, batch): each metric's per-row statistics (MT: one row
    a segment; diarization: the recording), what paired tests over the cells resample."""
    damaged: tuple[str, ...] = ()
    """The damaged cache entries found (removed and recomputed): `corrupt` of them."""

    @property
    def partial(self) -> bool:
        return bool(self.report["partial"])


def _batch_keys(campaign: Campaign, digest=file_digest, digests: dict | None = None
                ) -> list[str]:
    """A content hash of each batch's reference side (references, UEM, uri); `digest(path)`
    a file's (`file_digest`, or a `DigestMemo`'s), noted in `digests` (path -> digest)."""
    def noted(path) -> str:
        value = digest(path)
        if digests is not None:
            digests[str(path)] = value
        return value

    keys = []
    for batch in campaign.batches:
        parts = [noted(p) for p in batch.references]
        parts += [noted(batch.uem) if batch.uem else "", batch.uri or ""]
        if batch.rows is not None:   # references cut by lines / docids
            parts += [repr((batch.rows, batch.exact, batch.least))]
        keys.append(hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest())
    return keys


def _task(campaign: Campaign, index: int, batch_keys: list[str], settings: dict,
          versions: dict, digests: dict | None = None) -> dict:
    """The job that scores cell `index` (llgui.campaign.cells); `digests`: path -> the
    SHA-256 its key was made of, for the files the job reads (it scores nothing it finds
    changed since)."""
    cell = campaign.cells[index]
    batch = campaign.batches[cell.batch]
    task = {"hypothesis": cell.hypothesis, "ref_key": batch_keys[cell.batch],
            "batch": batch.id, "metrics": list(campaign.metrics), "settings": settings,
            "versions": versions, "label": campaign.label(cell)}
    if digests:
        inputs = [cell.hypothesis, *batch.references] + ([batch.uem] if batch.uem else [])
        task["digests"] = {str(p): digests[str(p)] for p in inputs if str(p) in digests}
    if campaign.task == "mt":
        task["references"] = list(batch.references)
        if batch.rows is not None:
            task.update(rows=list(batch.rows), exact=batch.exact, least=batch.least,
                        what=batch.what)
    else:
        task.update(reference=batch.references[0], uem=batch.uem, uri=batch.uri)
    return task


def _recompute(campaign: Campaign, index: int, batch_keys: list[str], settings: dict,
               versions: dict, digests: dict | None = None) -> Callable[[], dict]:
    """Cached cell `index` computed again in this process, when its entry's rows are found
    damaged on reading them (`StoredCell`); a LoadError naming the file when it cannot be
    scored now (its file changed or went since the run read it)."""
    def recompute() -> dict:
        function = jobs.score_mt_cell if campaign.task == "mt" else jobs.score_diar_cell
        result = function(_task(campaign, index, batch_keys, settings, versions, digests))
        if result["problems"]:
            raise LoadError(jobs.as_problems(result["problems"]))
        return result["stats"]
    return recompute


def signatures(campaign: Campaign) -> dict[str, str]:
    """Each metric's signature string, as the library would print it for these batches."""
    settings = scoring_settings(campaign)
    out = {}
    for name in campaign.metrics:
        scorer = make_scorer(campaign.task, name, settings)
        if campaign.task == "mt":
            counts = {len(b.references) for b in campaign.batches}
            out[name] = scorer.signature_for(counts.pop() if len(counts) == 1 else -1)
        else:
            out[name] = scorer.signature
    return out


def run_campaign(
    campaign: Campaign,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    scheduler_file: str | None = None,
    threads: int = 1,
    memory_limit: str | None = None,
    cell_seconds: float = CELL_SECONDS,
    connect_seconds: float = CONNECT_SECONDS,
    cache: CellCache | None = None,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    announce: Callable[[str], None] | None = None,
    waiting: Callable[[str], None] | None = None,
    failures: Callable[[int], None] | None = None,
) -> CampaignRun:
    """Score every cell of `campaign` and replay every online run.

    `progress(done, total)` is called after each cell or online run (cached cells count as
    done at once); `announce(text)` receives the one line saying which executor was chosen;
    `should_stop()` makes the run raise `llgui.core.jobs.Cancelled` (finished cells stay
    cached); `failures(n)` hears, before the progress call that counts it, how many cells
    ended without a result so far (they count as done: a bar at 100 % may hold unscored
    cells); `waiting(text)` hears, about once a second, why no cell has finished lately.
    `scheduler` / `scheduler_file` (else Dask's scheduler-address setting) name a running
    cluster (`executor.scheduler_address`); `threads` and `memory_limit` are a local
    cluster's per worker; `cell_seconds` limits a cell on a worker process,
    `connect_seconds` the wait for a scheduler (SchedulerUnreachable after it). `cache` defaults to `CellCache()` (the platform cache folder, or
    $LLGUI_CACHE_DIR); `use_cache=False` neither reads nor writes it."""
    unusable = None
    if cache is None and use_cache:
        try:
            cache = CellCache()
        except ValueError as exc:   # LLGUI_CACHE_DIR a file or /dev/null: run without one
            use_cache, unusable = False, str(exc)
    settings = scoring_settings(campaign)
    versions = library_versions(campaign.task)
    address, source = scheduler_address(scheduler, scheduler_file) if workers is None else \
        (None, "")
    # the input files' digests, remembered with their status in the cache (`DigestMemo`)
    memo = DigestMemo(cache.root if use_cache and cache is not None else None, file_digest)
    heads = HeadIndex(cache if use_cache else None, campaign.path)
    digests: dict[str, str] = {}   # path -> the digest its cells' keys were made of
    batch_keys = _batch_keys(campaign, memo.digest, digests)
    widths = {}   # the columns of each metric's statistics: a cached entry must have them
    for name in campaign.metrics:
        width = getattr(make_scorer(campaign.task, name, settings), "n_stats", None)
        if isinstance(width, int):
            widths[name] = width
    merged: dict[tuple[int, int, int], dict[str, np.ndarray]] = {}
    problems: list[Problem] = []
    notes: list[str] = []   # recovered faults (a worker lost, its cells rescheduled)
    pending: list[tuple[list[int], str, dict]] = []  # (cell indices, key, task)
    by_key: dict[str, int] = {}  # cells with the same content are one job
    contents: list[str] = []   # every cell's and online run's content address, in order
    stored: dict[str, StoredCell] = {}   # cells found in the cache, by key
    # the look-ups allocate a few small objects a cell and free them, no cycle: the
    # collector's passes over them cost a cached rerun 10-25 % (`collector_paused`)
    keys = cell_keys(campaign.task, campaign.metrics, settings, versions)
    with collector_paused(freeze=False):
        for index, cell in enumerate(campaign.cells):
            if index % 500 == 499:   # hashing every file and looking it up takes a while too
                if should_stop is not None and should_stop():
                    raise Cancelled()
                if progress is not None:
                    progress(len(merged), len(campaign.cells))
            digests[str(cell.hypothesis)] = digest = memo.digest(cell.hypothesis)
            key = keys([digest, batch_keys[cell.batch]])
            contents.append(key)
            if key in stored:   # the same content as a cell found in the cache
                merged[(cell.system, cell.model, cell.batch)] = stored[key]
                continue
            what = f"cell {campaign.label(cell)}"
            head = None
            if use_cache and cache is not None and key not in by_key:
                head = heads.head(key, widths)   # this campaign's last run said (`HeadIndex`)
                if head is None:
                    head = cache.head(key, widths, what=what)
                    if head is not None:
                        heads.note(key, head)
            if head is not None and set(head.sums) == set(campaign.metrics):
                # the report needs the header's sums only; the rows are read when asked for
                stored[key] = StoredCell(cache, key, head, widths, what,
                                         _recompute(campaign, index, batch_keys, settings,
                                                    versions, digests))
                merged[(cell.system, cell.model, cell.batch)] = stored[key]
                continue
            if key in by_key:   # one job; its problems name every cell it stands for
                pending[by_key[key]][0].append(index)
                pending[by_key[key]][2]["label"] += f", {campaign.label(cell)}"
                continue
            by_key[key] = len(pending)
            pending.append(([index], key, _task(campaign, index, batch_keys, settings, versions,
                                                digests)))
            if len(pending) == 1 and workers is not None and workers > 0 and not address:
                # local workers will be started: their server imports on another core while
                # the other cells are looked up (llgui.campaign.worker_server)
                from llgui.campaign.executor import prepare_local_workers

                prepare_local_workers((campaign.task, list(campaign.metrics), settings))
    memo.save()
    online = []  # (system, key, task) of the online runs to replay
    online_results: dict[int, dict] = {}
    for s, spec in enumerate(campaign.systems):
        if not spec.bundle:
            continue
        digest, bad = jobs.bundle_digest(spec.bundle)
        if digest is None:
            problems.extend(jobs.as_problems(bad))
            continue
        contents.append(digest)
        # "figures": online runs without a log got none before: such cached entries are stale
        key = cell_key("online", [digest], campaign.metrics, {}, versions,
                       extra={"figures": "without-log"})
        found = (cache.get_json(key, what=f"{spec.name}'s online run")
                 if use_cache and cache is not None else None)
        if found is not None:
            online_results[s] = found
            continue
        online.append((s, key, {"bundle": spec.bundle, "task": campaign.task,
                                "digest": digest,
                                "metrics": list(campaign.metrics),
                                "label": f"{spec.name} (online run)"}))
    # submitted batch by batch, so a worker's consecutive cells share their references (the
    # results are merged by cell, so the order changes nothing in the report)
    pending.sort(key=lambda p: (campaign.cells[p[0][0]].batch, p[0][0]))
    cached = len(merged)
    # every online run counts, replayed or read from the cache (a cached rerun counted 16/16
    # where the first run counted 18/18 and the summary says "16 cells and 2 online runs")
    total = len(campaign.cells) + len(online) + len(online_results)
    done = cached + len(online_results)
    if progress is not None:
        progress(done, total)
    plan = None
    if pending or online:
        plan = choose(len(pending) + len(online), workers, address, source, threads=threads,
                      memory_limit=memory_limit, cell_seconds=cell_seconds,
                      connect_seconds=connect_seconds)
        function = jobs.score_mt_cell if campaign.task == "mt" else jobs.score_diar_cell
        state = {"done": done, "failed": 0, "scored": 0}

        def take_cell(indices, key, result) -> None:
            if result["problems"]:
                problems.extend(jobs.as_problems(result["problems"]))
                state["failed"] += len(indices)
                if failures is not None:
                    failures(state["failed"])
            else:
                state["scored"] += 1
                sent = {m: result["stats"][m] for m in campaign.metrics}
                stats = {m: np.ascontiguousarray(a, dtype=np.float64) for m, a in sent.items()}
                if use_cache and cache is not None:   # (summed as the cache's header sums)
                    heads.note(key, cache.put(key, sent))   # as sent: a worker's counts are
                    # small integers
                for index in indices:
                    cell = campaign.cells[index]
                    merged[(cell.system, cell.model, cell.batch)] = stats
            state["done"] += len(indices)
            if progress is not None:
                progress(state["done"], total)

        def stop() -> None:
            if should_stop is not None and should_stop():
                raise Cancelled()

        first = 0          # cells scored here while measuring (the `auto` plan)
        per_cell = None
        if plan.kind == "auto":
            times: list[float] = []   # each measured cell's seconds, the first one warming up
            while first < len(pending) and not measured_enough(times):
                stop()
                indices, key, task = pending[first]
                began = time.monotonic()
                take_cell(indices, key, run_here(function, task))
                times.append(time.monotonic() - began)
                first += 1
            per_cell = per_cell_estimate(times)
            measurements = Measurements.load(cache.root if cache is not None else None)
            n, why = worth_workers(per_cell, len(pending) - first + len(online), measurements,
                                   cells_left=total - state["done"], cells=total)
            if first == len(pending) and not online:
                why = (f"{per_cell * 1000:.0f} ms a cell here, 0 of {total} cells left: "
                       f"every cell was scored while the first ones were timed")
            extra = dict(threads=plan.threads, memory_limit=plan.memory_limit,
                         cell_seconds=plan.cell_seconds)
            plan = (Plan("local", n, None, f"a local Dask cluster of {n} worker processes "
                                           f"({why})", **extra) if n else
                    Plan("in-process", 0, None, f"in this process ({why})", **extra))
        if announce is not None:   # (a small campaign may be done while being timed)
            announce(f"{'running' if first < len(pending) or online else 'scored'} "
                     f"{plan.reason}")
        with Executor(plan, announce, warm=(campaign.task, list(campaign.metrics),
                                            settings)) as executor:
            began = time.monotonic()
            rest = pending[first:]
            # consecutive cells of a batch go to a worker together (llgui.campaign.groups)
            for i, result in executor.run(function, [t for _, _, t in rest], should_stop,
                                          waiting, group_by=[campaign.cells[p[0][0]].batch
                                                             for p in rest],
                                          sizes=[file_size(campaign.cells[p[0][0]].hypothesis)
                                                 for p in rest]):
                indices, key, _ = rest[i]
                take_cell(indices, key, result)
            stop()
            if per_cell and plan.kind == "local" and len(rest) >= 2 * plan.workers:
                # what this run measured, for the next choice on this machine
                on_cluster = (time.monotonic() - began) / len(rest)
                measurements.save(executor.startup_s * 2 / plan.workers,
                                  per_cell / (on_cluster * plan.workers))
            for i, result in executor.run(jobs.replay_online, [t for _, _, t in online],
                                          should_stop, waiting):
                system, key, _ = online[i]
                if result["problems"]:
                    problems.extend(jobs.as_problems(result["problems"]))
                else:
                    online_results[system] = result
                    if use_cache and cache is not None:
                        cache.put_json(key, result)
                state["done"] += 1
                if progress is not None:
                    progress(state["done"], total)
            stop()
            notes.extend(executor.notes)
    heads.save()
    with collector_paused(freeze=False):   # (the report: as the look-ups)
        # rows of segments -> one summed vector per metric, in cell order (deterministic)
        sums = {}
        for cell in campaign.cells:
            key = (cell.system, cell.model, cell.batch)
            if key in merged:
                found = merged[key]
                sums[key] = (dict(found.sums) if isinstance(found, StoredCell) else
                             {m: found[m].sum(axis=0) for m in campaign.metrics})
        scores = CampaignScores(cells=sums, online=online_results, problems=tuple(problems),
                                notes=tuple(dict.fromkeys(notes)),
                                signatures=signatures(campaign) if campaign.metrics else {},
                                units=merged)
        report = build_report(campaign, scores)
        if campaign.human is not None and campaign.metrics:   # issue 32: beside the metrics
            from llgui.campaign.last_versions import human_block

            report["human"] = human_block(campaign, merged, scores.signatures)
        from llgui.campaign.persistence import add_persistence

        # NFR, relapse rate, replicate spread (1.9), cached under the content of every input and
        # the cells and online runs that were scored: a run that left cells unscored (a timeout,
        # a stopped worker) computes them on fewer units, and its figures must not be read back
        # by the complete run that follows (outsider helper-49: alpha's NFR 32.71 for 31.69,
        # with 457 units of 549, in every rerun after one such run)
        scored = sorted(f"{s}/{m}/{b}" for s, m, b in merged) + sorted(
            f"online/{s}" for s in online_results)
        add_persistence(report, campaign, scores, cache=cache if use_cache else None,
                        key=cell_key("persistence", contents, campaign.metrics, settings, versions,
                                     extra={"systems": [s.name for s in campaign.systems],
                                            "scored": scored}))
    failed = state["failed"] if plan is not None else 0
    # cells whose rows were found damaged on reading them were computed again here
    again = sum(1 for found in merged.values()
                if isinstance(found, StoredCell) and found.recomputed)
    return CampaignRun(report, scores,
                       computed=sum(len(p[0]) for p in pending) - failed + again,
                       cached=cached - again, failed=failed,
                       corrupt=cache.corrupt if cache is not None else 0, plan=plan,
                       damaged=tuple(cache.damaged) if cache is not None else (),
                       scored=state["scored"] if plan is not None else 0,
                       unwritable=cache.unwritable if cache is not None else unusable,
                       segments=merged)

