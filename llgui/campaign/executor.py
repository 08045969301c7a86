"""Where the cell jobs run: in this process, on a `LocalCluster`, or on an existing cluster.

With no option the choice is measured, not guessed (`choose` gives a plan of kind "auto"): the
driver scores the first cells in this process, timing them, and starts worker processes only
when they are predicted to finish the rest sooner on this machine (`worth_workers`): the cores
not already busy (the load average), the time the last `LocalCluster` took to start here and
the speed-up its workers reached (both remembered in the cache folder, `Measurements`; until a
first run, the figures gate 7 measured on a 2-core machine). `workers=N` asks for N worker
processes (`workers=0`: in this process); `scheduler=ADDRESS` connects to a running cluster
(`dask scheduler` / `dask worker`, or dask-jobqueue's). `Plan.reason` is the one line the
CLI prints to say which was chosen and why.

`Executor.run(function, tasks)` yields (index, result) as jobs finish, in whatever order; the
caller merges by index, so the results do not depend on the order or the number of workers. A
job that raises, whose worker dies (`KilledWorker`) or that runs longer than the per-cell time
limit yields a result whose only content is a problem naming the cell and the worker: a
campaign always ends with a report, partial when some cells could not be scored.
"""
from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

CONNECT_SECONDS = 20.0
"""How long a scheduler has to answer (`--connect-timeout`)."""

CELL_SECONDS = 600.0
"""The default per-cell time limit on worker processes (`--cell-timeout`): a cell of 10,000
sentences takes about 10 s here; a worker silent ten minutes on one cell is hung or stopped."""

FETCH_SECONDS = 30.0
"""The longest wait for a finished cell's result to come back from its worker."""

LOST_CHECK = 5.0
"""Seconds between two questions to the scheduler about the cells it holds as erred or
forgotten (`Executor._lost`); a cell is lost when two answers in a row say so."""

MEASURE_SECONDS = 1.0
"""The `auto` plan times the first cells in this process for about this long."""

PRIOR_STARTUP_S = 2.5
PRIOR_EFFICIENCY = 0.75
"""Until a LocalCluster has run on this machine: the start-up (seconds, for 2 workers) and
parallel efficiency gate 7 measured on a quiet 2-core machine."""


class SchedulerUnreachable(ConnectionError):
    """The scheduler address named no running Dask scheduler, or no usable scheduler file."""


class WorkersTooSmall(ValueError):
    """`--memory-limit` below what a local worker process holds before its first cell."""


LOCAL_ALONE_SECONDS = 60.0
"""A LocalCluster whose worker processes all stopped (killed past their memory limit, or by
the system) and did not come back for this long ends the run: its nanny restarts a stopped
worker in a few seconds, and a cluster llgui started itself gets no workers from elsewhere."""

@dataclass(frozen=True)
class Plan:
    kind: str            # "in-process" | "local" | "scheduler" | "auto"
    workers: int         # worker processes (0 for in-process; -1: the cluster's own)
    address: str | None
    reason: str
    threads: int = 1
    memory_limit: str | None = None
    cell_seconds: float = CELL_SECONDS
    connect_seconds: float = CONNECT_SECONDS


def _spawn_environ() -> dict:
    """Dask's environment for the worker processes it starts, without its
    `MALLOC_TRIM_THRESHOLD_=65536`: with it, glibc gave memory back to the system at almost
    every free, and a cell's thousands of small arrays ran at half speed on a worker (a
    500-sentence cell 50 ms against 26 ms in this process; gate 7's parallel efficiency fell
    to 73 %). glibc's own threshold (adaptive, from 128 KiB) applies instead; a value in this
    process's environment is still passed on."""
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    environ["MALLOC_TRIM_THRESHOLD_"] = None   # (None: not set, dask's way of saying so)
    return environ


def prepare_local_workers(warm: tuple | None) -> None:
    """Start the server local workers are forked from, ahead of the cluster
    (`llgui.campaign.worker_server`)."""
    import sys

    from llgui.campaign.worker_server import prepare

    # Dask's variables for workers are known once `distributed` is imported (its defaults);
    # the server is not held back for that import (0.25 s): it gets them when the cluster
    # starts it, and one BLAS thread either way (worker_server.SINGLE_THREADED)
    prepare(warm, _spawn_environ() if "distributed" in sys.modules else {})


def scheduler_address(scheduler: str | None = None, scheduler_file: str | None = None
                      ) -> tuple[str | None, str]:
    """(address, where it came from): `--scheduler`, else `--scheduler-file` (the JSON file
    `dask scheduler --scheduler-file` writes), else Dask's `scheduler-address` setting
    ($DASK_SCHEDULER_ADDRESS or a Dask config file), else (None, "")."""
    if scheduler:
        return scheduler, "--scheduler"
    if scheduler_file:
        from llgui.io._read import LIBRARY_ERRORS, library_reason
        from llgui.utils.regular import read_regular

        try:
            data = json.loads(read_regular(scheduler_file, 1 << 20).decode("utf-8"))
            address = data["address"]
            if not isinstance(address, str) or not address.strip():
                raise ValueError("its address is not a string")
        except LIBRARY_ERRORS as error:   # RecursionError: 10**5 nested arrays (issue 38.6)
            reason = library_reason(error)
            raise SchedulerUnreachable(
                f"--scheduler-file {scheduler_file}: not a Dask scheduler file ({reason}; "
                f"`dask scheduler --scheduler-file FILE` writes one)") from None
        return address, f"--scheduler-file {scheduler_file}"
    import dask.config

    address = dask.config.get("scheduler-address", None)
    if isinstance(address, str) and address.strip():
        source = ("$DASK_SCHEDULER_ADDRESS" if os.environ.get("DASK_SCHEDULER_ADDRESS")
                  else "Dask's scheduler-address setting")
        return address, source
    return None, ""


def choose(n_jobs: int, workers: int | None = None, scheduler: str | None = None,
           source: str = "--scheduler", *, threads: int = 1, memory_limit: str | None = None,
           cell_seconds: float = CELL_SECONDS, connect_seconds: float = CONNECT_SECONDS
           ) -> Plan:
    """The executor for `n_jobs` jobs (see the module docstring)."""
    extra = dict(threads=threads, memory_limit=memory_limit, cell_seconds=cell_seconds,
                 connect_seconds=connect_seconds)
    if scheduler:
        return Plan("scheduler", -1, scheduler, f"the Dask cluster at {scheduler} ({source})",
                    **extra)
    cores = os.cpu_count() or 1
    if workers is not None:
        if workers <= 0:
            return Plan("in-process", 0, None, "in this process (--workers 0)", **extra)
        return Plan("local", workers, None,
                    f"a local Dask cluster of {workers} worker process"
                    f"{'es' if workers != 1 else ''} (--workers {workers})", **extra)
    if n_jobs <= 1 or cores <= 1:
        why = "one core" if cores <= 1 else "one job"
        return Plan("in-process", 0, None, f"in this process ({why})", **extra)
    return Plan("auto", 0, None, "in this process, timing the first cells to decide whether "
                                 "worker processes would be faster", **extra)


@dataclass
class Measurements:
    """What the last LocalCluster measured on this machine: its start-up time (seconds) and
    the parallel efficiency of its workers (time per cell in this process / (time per cell
    on the cluster x workers)). Kept in `executor.json` beside the cell cache."""

    startup_s: float = PRIOR_STARTUP_S
    efficiency: float = PRIOR_EFFICIENCY
    measured: bool = False
    path: Path | None = field(default=None, repr=False)

    @classmethod
    def load(cls, folder: Path | None) -> "Measurements":
        if folder is None:
            return cls()
        path = Path(folder) / "executor.json"
        try:
            from llgui.core.numbers import check_number
            from llgui.utils.regular import read_regular

            data = json.loads(read_regular(path, 1 << 16).decode("utf-8"))
            startup = check_number(data["startup_s"], "startup_s", minimum=0.0, maximum=600.0)
            efficiency = check_number(data["efficiency"], "efficiency", minimum=0.01,
                                      maximum=1.5)
            return cls(startup, efficiency, True, path)
        except Exception:   # absent or damaged: the priors (a cache, never trusted blindly)
            return cls(path=path)

    def save(self, startup_s: float, efficiency: float) -> None:
        if self.path is None:
            return
        from llgui.utils.atomic import write_atomic

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps({"startup_s": round(startup_s, 3),
                                                "efficiency": round(efficiency, 3)}),
                         fsync=False)
        except OSError:
            pass


def free_cores() -> int:
    """Cores not busy with other work: the core count less the 1-minute load average (the
    llgui process itself counted as one), at least 1."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):   # Windows
        return cores
    return max(1, min(cores, int(cores - max(0.0, load - 1.0) + 0.5)))


def _load_text() -> str:
    """` (load average 3.39 on 2 cores, this process one of them)`, or empty where the
    system has no load average."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return ""
    return f" (load average {load:.2f} on {os.cpu_count() or 1} cores, this process one of them)"


def measured_enough(times: Sequence[float]) -> bool:
    """Whether the `auto` plan has timed enough cells in this process: the first cell (it
    pays one-time costs, see `per_cell_estimate`) and then cells for MEASURE_SECONDS, at
    least one."""
    return len(times) >= 2 and sum(times[1:]) >= MEASURE_SECONDS


def per_cell_estimate(times: Sequence[float]) -> float:
    """Seconds a cell takes here, from the cells timed in this process (in order).

    The first cell pays costs no later cell pays: importing sacrebleu and numpy's friends,
    loading the compiled TER engine (numba), building the metric objects, and the reference
    statistics of its batch, which the batch's other cells share (cells are run batch by
    batch). Timed alone it made the estimate 4 to 50 times too high (issue 32: 21.4 s for a
    first WMT23 cell under load, 0.45 s for the next ones; 3.3 s against 0.2 s quiet). So the
    first cell is left out whenever a later one was timed; the mean of the later ones keeps
    the reference cost of any new batch among them."""
    if not times:
        return 0.0
    later = list(times[1:])
    return sum(later) / len(later) if later else float(times[0])


def worth_workers(per_cell_s: float, remaining: int, measurements: Measurements,
                  cores: int | None = None, cells_left: int | None = None,
                  cells: int | None = None) -> tuple[int, str]:
    """(worker processes to start, why): 0 when this process is predicted to finish the
    `remaining` jobs (`per_cell_s` each, measured here) no later than a LocalCluster would,
    starting included. `cells_left` of `cells`: the campaign's cells not done yet (those
    timed here are done), named in the message; the jobs are fewer when cells of identical
    content are scored once."""
    cores = free_cores() if cores is None else cores
    alone = per_cell_s * remaining
    n = min(cores, remaining)
    if cells_left is None:
        left = f"{remaining} left"
    else:
        left = f"{cells_left}{f' of {cells}' if cells is not None else ''} cells left"
        if cells_left != remaining:
            left += f" ({remaining} to score, the others share a scored output)"
    head = f"{per_cell_s * 1000:.0f} ms a cell here, {left}: about {alone:.1f} s in this process"
    if n < 2:   # (the load said beside it: "1 core free" at 0 % idle read as a fixed floor)
        return 0, f"{head}; {cores} core{'s' if cores != 1 else ''} free{_load_text()}"
    startup = measurements.startup_s * n / 2
    cluster = startup + alone / (n * measurements.efficiency)
    known = "measured" if measurements.measured else "gate 7's figures"
    compare = (f"{n} workers: about {cluster:.1f} s (start-up {startup:.1f} s, efficiency "
               f"{100 * measurements.efficiency:.0f} %, {known})")
    if cluster < 0.9 * alone:
        return n, f"{head}, {compare}"
    return 0, f"{head}, faster than {compare}"


class Executor:
    """Runs jobs according to a `Plan`; a context manager that shuts its cluster down."""

    def __init__(self, plan: Plan, announce: Callable[[str], None] | None = None,
                 warm: tuple | None = None):
        """`warm`: (task, metrics, settings) of the cells, for the local workers to warm up
        as they start (`llgui.campaign.local_workers.WarmUp`)."""
        self.plan = plan
        self.announce = announce
        self.warm = warm
        self._client = None
        self._cluster = None
        self.startup_s = 0.0
        self._lost_asked = 0.0
        self._silent: set = set()   # workers that did not hand a finished result over
        self._seen: dict = {}       # worker address -> threads, every worker seen in this run
        self.notes: list[str] = []  # what went wrong and was recovered (a worker lost...)
        self._suspects: set = set()  # keys the last `_lost` answer had erred or unknown

    def __enter__(self) -> "Executor":
        if self.plan.kind in ("in-process", "auto"):
            return self
        began = time.monotonic()
        from dask.distributed import Client

        # Dask's own log lines (a gather rescheduled, a worker lost) are not the user's: the
        # problems llgui names say what happened
        roots = ("distributed", "tornado", "bokeh", "asyncio")
        # (nor their errors: a comm to a stopped worker closing printed a traceback, in a
        # test run beside two CPU hogs; asyncio's "Task exception was never retrieved" too).
        # Every logger below them is set, not only the roots: Dask's logging settings give
        # some a level and a stderr handler of their own, tornado.application ERROR, and a
        # result still being fetched as the client closed (its comm aborted) was printed by
        # it as a CommClosedError traceback, "Exception in callback"
        names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in roots]
        for name in (*roots, *names):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        if self.plan.kind == "local":
            from llgui.campaign.local_workers import memory_problem, start_cluster

            self._cluster = start_cluster(self.plan, self.warm, _spawn_environ())
            # results fetched from the workers directly: by default the scheduler (in this
            # process) fetches them and hands them on to the client over a second
            # connection, copying each again (0.3 s of this process's CPU on gate 7's
            # 2-worker run, taken from the workers' two cores)
            self._client = Client(self._cluster, set_as_default=False,
                                  direct_to_workers=True)
            problem = memory_problem(self._client, self.plan.memory_limit)
            if problem is not None:
                self.__exit__(None, None, None)
                self._client = self._cluster = None
                raise WorkersTooSmall(problem)
        else:
            self._client = connect(self.plan.address, self.plan.connect_seconds)
            self._announce_dashboard()
        self.startup_s = time.monotonic() - began
        return self

    def _announce_dashboard(self) -> None:
        if self.announce is None:
            return
        try:
            info = self._client.scheduler_info()
            services = info.get("services", {})
            n = len(info.get("workers", {}))
        except Exception:
            return
        link = self._client.dashboard_link if "dashboard" in services else None
        if link and not _answers(link):   # listed, yet not served (--no-dashboard, no bokeh)
            link = None
        self.announce(f"{n} worker{'s' if n != 1 else ''} connected"
                      + (f"; dashboard: {link}" if link else "; no dashboard"))

    def __exit__(self, *exc) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def run(self, function: Callable[[dict], dict], tasks: Sequence[dict],
            should_stop: Callable[[], bool] | None = None,
            waiting: Callable[[str], None] | None = None,
            group_by: Sequence | None = None,
            sizes: Sequence[int] | None = None) -> Iterator[tuple[int, dict]]:
        """(index, result) of every task, as they finish. `waiting(text)` is called about
        once a second while no job finishes (how many run, the longest for how long).
        `group_by` (one key per task, e.g. its batch) lets consecutive tasks of equal keys go
        to a worker together, within `sizes` (bytes) (llgui.campaign.groups)."""
        if self._client is None:
            for index, task in enumerate(tasks):
                if should_stop is not None and should_stop():
                    return
                yield index, run_here(function, task)
            return
        groups = None
        if group_by is not None:
            from llgui.campaign.groups import group_bytes, plan_groups

            groups = plan_groups(group_by, sizes, sum((self._worker_threads() or {}).values())
                                 or max(1, self.plan.workers) * self.plan.threads,
                                 group_bytes(self.plan.cell_seconds))
        yield from self._run_distributed(function, tasks, should_stop, waiting, groups)

    def _run_distributed(self, function, tasks, should_stop, waiting, groups=None):
        from dask.distributed import as_completed

        client = self._client
        index_of: dict = {}     # key -> the task's index (a group's: its first)
        # key of a group -> its tasks' indices. With groups, every task goes in one (of one
        # when sent again alone): Dask then holds back all of them, as one family of root
        # tasks, until a worker is free (saturation 1.0), rather than queueing one more
        # behind a running one, which a worker's death would take down with it
        members_of: dict = {}
        left: dict = {}

        def track(future, members: list) -> object:
            if groups is not None:
                members_of[future.key] = members
            index_of[future.key] = members[0]
            left[future.key] = future
            return future

        def several(key) -> bool:
            """Whether `key` is a group of more than one task (split when it gives none)."""
            return len(members_of.get(key, ())) > 1

        if groups is None:
            futures = [track(client.submit(function, task, pure=False), [i])
                       for i, task in enumerate(tasks)]
        else:
            # in one call: Dask holds back a family of tasks (queues them on the scheduler,
            # one per free worker thread) only when it sees more of them than twice the
            # threads, and submitted one at a time the first four went to the workers at once,
            # a second one waiting behind each running one (outsider helper-49: a stopped
            # worker took such a waiting cell with it, named as having died while scoring)
            futures = [track(future, members) for members, future in zip(groups, client.map(
                run_group, [function] * len(groups), [[tasks[i] for i in m] for m in groups],
                pure=False))]
        started: dict = {}     # key -> (when first seen running, worker address)
        limit = self.plan.cell_seconds
        # results are fetched as each cell finishes (with_results), so a worker stopped later
        # does not take them with it
        queue = as_completed(futures, loop=client.loop, with_results=True, raise_errors=False)
        # only `left` holds a future from here: a fetched one is dropped, and Dask forgets
        # its result on the worker (this list held every result on the workers to the run's
        # end: 300 MB more a worker on 320 cells, and under --memory-limit the workers were
        # stopped one after another, outsider helper-57)
        del futures

        def split(key) -> None:
            """A group that gave no result: its cells sent again, each a task of its own."""
            left.pop(key, None)
            for i in members_of.pop(key):
                queue.add(track(client.submit(run_group, function, [tasks[i]], pure=False),
                                [i]))
        done_since: dict = {}   # key -> when seen finished but not yet fetched
        last_poll = last_done = time.monotonic()
        alone_since = None   # since when the cluster has had no worker
        local = self._cluster is not None
        alone_limit = min(limit, LOCAL_ALONE_SECONDS) if local else limit
        no_worker = ("no local worker process running" if local else
                     "no worker on the cluster")
        why = ("; llgui's local workers stopped" + (
            f" (each limited to --memory-limit {self.plan.memory_limit}: past 95 % of it Dask "
            f"stops a worker)" if self.plan.memory_limit else " (killed by the system?)")
            if local else "")
        self._lost_asked = last_poll   # (the first answer about lost keys LOST_CHECK from now)
        self._seen.update(self._worker_threads() or {})
        try:
            while left:
                if should_stop is not None and should_stop():
                    return
                batch = queue.next_batch(block=False) if queue.has_ready() else []
                for future, value in batch:
                    if future.key not in left:
                        continue   # timed out already: its problem was given
                    members = members_of.get(future.key)
                    if members and isinstance(value, list) and len(value) == len(members):
                        del left[future.key]
                        last_done = time.monotonic()
                        for i, outcome in zip(members, value):   # each cell's own result
                            yield i, outcome
                        continue
                    if several(future.key):   # a group that gave none: split
                        split(future.key)
                        continue
                    i = index_of[future.key]
                    # a cell's result is a dict (its errors come as (type, error, traceback));
                    # the future's status may already say otherwise: a worker that died after
                    # handing the result over makes Dask mark the task pending or lost again
                    # (the recovered cells were reported 'failed: dict: {...}')
                    if isinstance(value, dict) and not members:
                        outcome = value
                    else:
                        outcome = self._outcome(future, value, tasks[i],
                                                started.get(future.key),
                                                self.plan.memory_limit if self._cluster
                                                is not None else None)
                    del left[future.key]
                    last_done = time.monotonic()
                    yield i, outcome
                now = time.monotonic()
                if now - last_poll >= 1.0 and left:
                    last_poll = now
                    running = self._running(left, started, now)
                    for key in [k for k in running if now - started[k][0] > limit]:
                        future = left.pop(key)
                        future.cancel()
                        self._give_up(started[key][1])
                        if several(key):
                            split(key)
                            continue
                        i = index_of[key]
                        yield i, failed(tasks[i], f"no result after {limit:g} s on the worker "
                                                  f"at {started[key][1]} (the per-cell time "
                                                  f"limit, --cell-timeout): the worker is hung, "
                                                  f"stopped or too slow")
                    threads = self._worker_threads()
                    self._note_departures(threads)
                    if threads is not None and not threads:
                        alone_since = alone_since or now
                        if now - alone_since > alone_limit:
                            for key in list(left):
                                left.pop(key)
                                for i in members_of.get(key, [index_of[key]]):
                                    yield i, failed(tasks[i], f"not scored: {no_worker} for "
                                                              f"{alone_limit:g} s{why}")
                            break
                    else:
                        alone_since = None
                    for key, future in list(left.items()):   # finished, never handed over
                        if future.status != "finished":
                            continue
                        done_since.setdefault(key, now)
                        if now - done_since[key] <= min(limit, FETCH_SECONDS):
                            continue
                        # a fetch may wait on another worker's stop: given up once its
                        # holder was, or after FETCH_SECONDS
                        holders = sorted(self._who_has(future))
                        wait = (min(limit, FETCH_SECONDS) if holders and set(holders)
                                <= self._silent else FETCH_SECONDS)
                        if now - done_since[key] > wait:
                            left.pop(key)
                            self._silent |= set(holders)
                            if several(key):
                                split(key)
                                continue
                            where = f" from the worker at {', '.join(holders)}" if holders \
                                else ""
                            yield index_of[key], failed(
                                tasks[index_of[key]], f"its result could not be fetched"
                                f"{where} within {wait:g} s (the worker is hung or stopped)")
                    lost = self._lost(left, running, started, now)
                    for key in lost:
                        future = left.pop(key)
                        if several(key):
                            split(key)
                            continue
                        i = index_of[key]
                        yield i, failed(tasks[i], "failed on a worker, and its error could not "
                                                  "be read back here")
                    if waiting is not None and alone_since is not None and (
                            now - alone_since >= 2.0):   # (not while a worker restarts)
                        waiting(f"{no_worker} for {now - alone_since:.0f} s (limit "
                                f"{alone_limit:g} s)" + (why or f"; start workers with `dask "
                                                               f"worker {self.plan.address}`"))
                    elif waiting is not None and now - last_done >= 2.0 and left:
                        longest = max((now - started[k][0] for k in running if k in left),
                                      default=0.0)
                        waiting(f"no cell finished for {now - last_done:.0f} s; "
                                f"{running_text(len(running), threads)}, the longest for "
                                f"{longest:.0f} s (limit {limit:g} s)")
                if not batch:
                    time.sleep(0.05)
        finally:
            self._note_departures(self._worker_threads())
            self._client.cancel([f for f in left.values() if not f.done()])

    def _running(self, left: dict, started: dict, now: float) -> list:
        """Keys of `left` being run by a worker now (as the scheduler sees it)."""
        try:
            processing = self._client.processing()
        except Exception:
            return [k for k in left if k in started]
        running = []
        for worker, keys in processing.items():
            for key in keys:
                if key in left:
                    started.setdefault(key, (now, worker))
                    running.append(key)
        return running

    def _give_up(self, worker: str) -> None:
        """Take a worker that held a cell past the time limit out of the cluster (as Dask's
        worker-ttl would after minutes): its other cells go to the others. Its process is
        left alone; a worker that was only slow connects again."""
        if worker in self._silent:
            return
        self._silent.add(worker)
        try:
            self._client.run_on_scheduler(_on_scheduler()[0], address=worker)
        except Exception:
            pass

    def _worker_threads(self) -> dict | None:
        """{worker address: threads} on the cluster now (None if the scheduler did not say)."""
        try:
            return dict(self._client.nthreads())
        except Exception:
            return None

    def _note_departures(self, threads: dict | None) -> None:
        """A worker seen earlier in this run and gone now (died, killed, stopped by its
        nanny) is noted: Dask reschedules what it held, so the run may end whole, but the
        organiser should know a worker was lost (issue 32). Workers llgui took out itself
        (`_give_up`) have their own problem."""
        if threads is None:
            return
        for address in sorted(set(self._seen) - set(threads) - self._silent):
            self.notes.append(f"the worker at {address} left the cluster during the run "
                              f"(died, was killed or stopped); Dask rescheduled the cells it "
                              + ("held on the other workers" if threads else
                                 "held, for the workers that came after it"))
            self._seen.pop(address)
        self._seen.update(threads)

    def _workers(self) -> int:
        """Workers on the cluster now (-1 if the scheduler did not say)."""
        try:
            return len(self._client.nthreads())
        except Exception:
            return -1

    def _who_has(self, future) -> list:
        try:
            return list(self._client.who_has([future]).get(future.key, ()))
        except Exception:
            return []

    def _lost(self, left: dict, running: list, started: dict, now: float) -> list:
        """Keys of `left` the scheduler holds as erred or forgotten while this client still
        waits for them (an error that could not be sent back): asked every LOST_CHECK
        seconds about the keys not running, and lost when two answers running say so. A key
        the scheduler does not know yet (its submission still on the way: 576 cells sent at
        once to a scheduler in this busy process) reads as forgotten in one answer; taken for
        lost at once, 461 of gate 7's cells once failed in one run that way."""
        if now - self._lost_asked < LOST_CHECK:
            return []
        self._lost_asked = now
        idle = [k for k in left if k not in running]
        if not idle:
            self._suspects = set()
            return []
        try:
            states = self._client.run_on_scheduler(_on_scheduler()[1], keys=idle)
        except Exception:
            return []
        gone = {k for k in idle if states.get(k) in ("erred", "forgotten", None)
                and not left[k].done()}
        lost, self._suspects = gone & self._suspects, gone
        return [k for k in idle if k in lost]

    @staticmethod
    def _outcome(future, error, task: dict, seen, memory_limit: str | None = None) -> dict:
        """The problem of a cell that gave no result: `error` is what its future raised (as
        `as_completed(raise_errors=False)` gives it: (type, exception, traceback));
        `memory_limit`: the local workers' `--memory-limit`, named when one died."""
        if isinstance(error, tuple):
            error = next((e for e in error if isinstance(e, BaseException)), error)
        if future.status == "cancelled":
            return failed(task, "cancelled on the cluster (a worker or the scheduler went "
                                "away)")
        worker = _last_worker(error) or (seen[1] if seen else None)
        on = f" on the worker at {worker}" if worker else ""
        from distributed import KilledWorker

        if isinstance(error, KilledWorker):
            return failed(task, f"its worker process died while scoring it{on} (crashed, "
                                f"killed, or out of memory" + (
                                    f": Dask stops a worker past 95 % of its --memory-limit "
                                    f"{memory_limit}" if memory_limit else "") + ")")
        return failed(task, f"failed{on}: {_describe(error)}")

def connect(address: str, seconds: float):
    """A `Client` of the scheduler at `address`, or SchedulerUnreachable after `seconds`.

    Dask's own timeout does not cover a server that accepts the connection and answers in
    another protocol (an HTTP server, the dashboard's port): the Client waits forever. So the
    address is first asked for its identity over Dask's protocol, within the deadline; only a
    scheduler that answered is given to `Client`."""
    import asyncio

    from dask.distributed import Client

    try:
        identity = asyncio.run(asyncio.wait_for(_identity(address, seconds), seconds))
    except (asyncio.TimeoutError, TimeoutError) as error:
        raise SchedulerUnreachable(
            f"no Dask scheduler answered at {address} within {seconds:g} s; is this the "
            f"dashboard's port (8787) rather than the scheduler's (8786), or another "
            f"service?") from None
    except (OSError, ValueError, TypeError) as error:   # refused, unreachable, bad address
        raise SchedulerUnreachable(
            f"no Dask scheduler answered at {address} within {seconds:g} s "
            f"({_describe(error)}); is it running? `dask scheduler` prints its address "
            f"(tcp://HOST:8786)") from None
    except Exception:   # a peer speaking something else (its bytes read as Dask frames)
        raise SchedulerUnreachable(
            f"no Dask scheduler answered at {address}: something else did; is this the "
            f"dashboard's port (8787) rather than the scheduler's (8786), or another "
            f"service?") from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        raise SchedulerUnreachable(
            f"{address} is not a Dask scheduler (it answers as {kind or 'something else'}); "
            f"give the scheduler's address, which `dask scheduler` prints")
    try:
        return Client(address, timeout=f"{seconds}s", set_as_default=False)
    except Exception as error:
        raise SchedulerUnreachable(f"cannot use the Dask scheduler at {address} "
                                   f"({_describe(error)})") from None


async def _identity(address: str, seconds: float):
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    # TLS settings from Dask's config (distributed.comm.tls.*), as Client would use them
    comm = await open_comm(address, timeout=seconds,
                           **Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def _on_scheduler():
    """The functions run on the scheduler, made here so that they are sent by value (the
    scheduler's machine need not have llgui): (remove a worker, the states of tasks)."""

    async def remove_worker(address: str, dask_scheduler=None) -> None:
        # forget the worker at `address`: its tasks and the results it held are rescheduled
        await dask_scheduler.remove_worker(address=address, stimulus_id="llgui-cell-timeout",
                                           close=False)

    def task_states(keys, dask_scheduler=None) -> dict:
        tasks = dask_scheduler.tasks   # the state of each key (None: no such task)
        return {k: (tasks[k].state if k in tasks else None) for k in keys}

    return remove_worker, task_states


def _answers(url: str) -> bool:
    """Whether `url` is served within a second (a scheduler without bokeh still runs an
    HTTP server on the dashboard's port, for /health; its /status is then a 404)."""
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=1.0):
            return True
    except Exception:
        return False


def running_text(running: int, threads: dict | None) -> str:
    """"N running" as the workers can run them: the scheduler also counts cells queued on a
    worker behind the one it runs (two a single-threaded worker, by Dask's saturation), so
    at most as many as the workers have threads run; the rest wait there."""
    if threads is None:
        return f"{running} running or queued on the workers"
    capacity = sum(threads.values())
    if running <= capacity:
        return f"{running} running"
    return f"{capacity} running, {running - capacity} queued on the workers"


def run_group(function: Callable[[dict], dict], tasks: Sequence[dict]) -> list[dict]:
    """`function(task)` of every task, in order, on a worker: a list of results. A task that
    raises gives its own problem (the worker named), as it would as a task of its own."""
    out = []
    for task in tasks:
        try:
            out.append(compact(function(task)))
        except Exception as error:
            out.append(failed(task, f"failed{_on_worker()}: {_describe(error)}"))
    return out


def compact(result: dict) -> dict:
    """`result` with each statistics array in the smallest integer type that holds all its
    values exactly (`llgui.campaign.cache.smallest_exact`: counts as uint8, uint16 or int32),
    for the trip to the driver, which reads them back as float64 (`run_campaign`: exact);
    an array with a fraction, a NaN or a larger value stays as it is. Gate 7's cells are
    counts of at most a few hundred: 15 KB a cell (a byte a value) instead of 120 KB to
    send, read and copy."""
    from llgui.campaign.cache import smallest_exact

    stats = result.get("stats") if isinstance(result, dict) else None
    if not stats:
        return result
    return {**result, "stats": {name: smallest_exact(array) for name, array in stats.items()}}


def _on_worker() -> str:
    try:
        from distributed import get_worker

        return f" on the worker at {get_worker().address}"
    except Exception:   # (not on a worker: a test calling it here)
        return ""


def run_here(function: Callable[[dict], dict], task: dict) -> dict:
    """`function(task)` in this process; an exception (a bug, MemoryError) is the cell's
    named problem, as on a worker, rather than the end of the campaign."""
    try:
        return function(task)
    except Exception as error:
        return failed(task, f"failed in this process: {_describe(error)}")


def failed(task: dict, reason: str) -> dict:
    """The result of a job that gave none: one problem naming the cell."""
    where = task.get("hypothesis") or task.get("bundle") or ""
    label = task.get("label") or task.get("batch") or ""
    return {"stats": {}, "report": None, "figures": {},
            "problems": [[where, 0, f"cell {label}: {reason}" if label else reason]]}


def _last_worker(error) -> str | None:
    worker = getattr(error, "last_worker", None)
    return getattr(worker, "address", worker) if worker is not None else None


def _describe(error) -> str:
    text = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
