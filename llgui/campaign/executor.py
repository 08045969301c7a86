"""Where the cell jobs run: in this process, on a `LocalCluster`, or on an existing cluster.

With no option the campaign uses every core of the machine with no set-up: a
`dask.distributed.LocalCluster` of one single-threaded worker process per core (the scoring is
pure Python under the GIL, so processes, not threads), unless the work is too small to pay for
starting the processes (about a second each), in which case the jobs run in this process.
`workers=N` asks for N worker processes (`workers=0`: in this process); `scheduler=ADDRESS`
connects to a running cluster (`dask scheduler` / `dask worker`). `Plan.reason` is the one
line the CLI prints to say which was chosen and why.

`Executor.run(function, tasks)` yields (index, result) as jobs finish, in whatever order; the
caller merges by index, so the results do not depend on the order or the number of workers.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

IN_PROCESS_SECONDS = 4.0
"""Below this estimated single-core time, worker processes cost more than they save."""

SECONDS_PER_BYTE = {"mt": 3e-5, "diarization": 2e-7}
"""Rough scoring time per byte of hypothesis (MT: BLEU + chrF + TER on news-like text;
diarization: the fast DER sweep), only to decide whether a cluster is worth starting."""


class SchedulerUnreachable(ConnectionError):
    """`--scheduler ADDRESS` named no running Dask scheduler."""


@dataclass(frozen=True)
class Plan:
    kind: str            # "in-process" | "local" | "scheduler"
    workers: int         # worker processes (0 for in-process; -1: the cluster's own)
    address: str | None
    reason: str


def choose(n_jobs: int, work_bytes: int, task: str, workers: int | None = None,
           scheduler: str | None = None) -> Plan:
    """The executor for `n_jobs` jobs reading `work_bytes` of hypotheses."""
    if scheduler:
        return Plan("scheduler", -1, scheduler, f"the Dask cluster at {scheduler} (--scheduler)")
    cores = os.cpu_count() or 1
    if workers is not None:
        if workers <= 0:
            return Plan("in-process", 0, None, "in this process (--workers 0)")
        return Plan("local", workers, None,
                    f"a local Dask cluster of {workers} worker process"
                    f"{'es' if workers != 1 else ''} (--workers {workers})")
    estimate = work_bytes * SECONDS_PER_BYTE.get(task, 1e-5)
    if n_jobs <= 1 or cores <= 1 or estimate < IN_PROCESS_SECONDS:
        why = ("one core" if cores <= 1 else
               f"{n_jobs} job{'s' if n_jobs != 1 else ''}, about {estimate:.1f} s of work: "
               f"too small to gain from worker processes")
        return Plan("in-process", 0, None, f"in this process ({why})")
    n = min(cores, n_jobs)
    return Plan("local", n, None, f"a local Dask cluster of {n} worker processes (every core; "
                                  f"{n_jobs} jobs, about {estimate:.0f} s of work on one core)")


class Executor:
    """Runs jobs according to a `Plan`; a context manager that shuts its cluster down."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._client = None
        self._cluster = None

    def __enter__(self) -> "Executor":
        if self.plan.kind == "in-process":
            return self
        from dask.distributed import Client, LocalCluster

        for name in ("distributed", "tornado", "bokeh"):
            logging.getLogger(name).setLevel(logging.ERROR)
        if self.plan.kind == "local":
            self._cluster = LocalCluster(n_workers=self.plan.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         silence_logs=logging.ERROR)
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.plan.address, timeout="20s")
            except Exception as error:   # refused, timed out, or not a Dask scheduler at all
                # (a TCP service speaking another protocol fails in many ways)
                raise SchedulerUnreachable(
                    f"cannot reach the Dask scheduler at {self.plan.address} "
                    f"({type(error).__name__}: {error})") from None
        return self

    def __exit__(self, *exc) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def run(self, function: Callable[[dict], dict], tasks: Sequence[dict],
            should_stop: Callable[[], bool] | None = None) -> Iterator[tuple[int, dict]]:
        """(index, result) of every task, as they finish."""
        if self._client is None:
            for index, task in enumerate(tasks):
                if should_stop is not None and should_stop():
                    return
                yield index, function(task)
            return
        from dask.distributed import as_completed

        futures = [self._client.submit(function, task, pure=False) for task in tasks]
        index_of = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in as_completed(futures):
                if should_stop is not None and should_stop():
                    return
                yield index_of[future.key], future.result()
        finally:
            self._client.cancel([f for f in futures if not f.done()])
