"""The LocalCluster llgui starts itself (never a cluster it connects to): its Dask settings
(`start_cluster`: no dashboard chores, never paused for memory, kept by each nanny for the
workers it restarts), a memory limit checked as it starts (`memory_problem`), and what its
worker processes get: each warms up as it starts, and ends at once when closed.

`WarmUp`: a fresh worker's first cell paid its imports and the metrics' compiled kernels
(numba's compiler, 0.9 s here; 2 s for MT with sacrebleu's imports). The per-cell time limit
counted that as the cell's: with `--cell-timeout 1`, the first cells ran past it on both
workers, both were given up and nothing was scored (outsider helper-49). The worker now pays
it on a sentence of its own (`llgui.campaign.cells.warm_up`) before it joins the run, and the
cluster's start-up time includes it.

`IgnoreInterrupt`: Ctrl-C reaches every process of the terminal's process group; the llgui
process stops the run and closes the cluster, and each worker printed a 25-line
KeyboardInterrupt traceback besides (outsider helper-49). Workers ignore SIGINT.

`ExitWithoutTeardown`: a worker process that has closed ends without the interpreter's
teardown.

A worker that has scored cells has numba's compiler loaded; its Python teardown (LLVM's
destructors, thousands of modules) took 0.45-0.7 s of CPU per worker after the run was over,
and `LocalCluster.close` waits for it: a second of gate 7's 14 s at 2 workers. The worker has
nothing left to write by then (its results were fetched, the driver writes the cache), so once
Dask has closed it (`teardown`), the `sys.exit(code)` that ends a spawned process is made an
`os._exit(code)` after flushing its output: the exit code is kept. Only the workers llgui
starts itself get it, never those of a cluster it connects to.
"""
from __future__ import annotations

import logging
import os
import sys

from distributed.diagnostics.plugin import WorkerPlugin

QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "250ms",
}
"""Dask's housekeeping on the LocalCluster llgui starts itself (never a cluster it connects
to). Its defaults serve a dashboard and a long-lived shared cluster: each worker samples its
own stack every 10 ms for the dashboard's profile page, every process checks its event loop
every 20 ms and samples psutil every 500 ms, and each nanny (in the llgui process) reads its
worker's memory every 100 ms. Idle, that cost the llgui process 5.5 % of a core and each
worker 3.9 %, taken from the cells on a machine whose cores all run workers (gate 7's
2-worker run); with these settings 1.3 % and 0.4 %. A local cluster here has no dashboard
(`dashboard_address=None`), so the profile is never looked at; the memory limit is still
watched four times a second."""

NO_PAUSE = {
    "distributed.worker.memory.target": False,
    "distributed.worker.memory.spill": False,
    "distributed.worker.memory.pause": False,
}
"""Local workers are never paused for memory (nor spill): Dask pauses a worker at 80 % of its
limit until its memory goes down, which is for workers holding data they can spill. A cell
worker holds none: the memory its last cell grew to stays with the process, so a paused worker
stayed paused, and with `--memory-limit 512MiB` both workers of a campaign of 6,000-line
batches (410 and 480 MiB after their first cells) stopped taking cells; the run waited with
none running, past any time limit (outsider helper-53). A worker past 95 % is still stopped
by its nanny, and the cell it ran is named."""

MEMORY_SHARE = 0.4
"""A local worker holding this share of its `--memory-limit` once started is refused: its
nanny stops it past 95 %, and a cell needs room of its own (an MT cell of 6,000 lines took a
worker of ~190 MiB to 450-580 MiB: with 330MiB no cell was scored, outsider helper-54)."""

MEMORY_ADVICE = 5
"""The limit advised for a refused one: this many times what a worker holds as it starts
(~960 MiB for MT: a 6,000-line batch's cells fit)."""


def start_cluster(plan, warm, spawn_environ: dict):
    """The LocalCluster of `plan` (its workers, threads, memory limit), its workers warmed
    up for `warm` ((task, metrics, settings) or None), started with `spawn_environ`: forked
    from llgui's worker server where there is one (`llgui.campaign.worker_server`), else
    spawned."""
    import copy
    import warnings

    from llgui.campaign import worker_server

    method = worker_server.prepare(warm, spawn_environ)   # (started ahead by the run, or now)
    import dask
    from dask.distributed import LocalCluster

    # a cell that kills its worker is named after its first death, not retried on every
    # worker in turn; only this machine's loopback is listened on and a worker is sent its
    # next task only when it has finished one (saturation 1.0; Dask's 1.1 queued a second
    # task there, which a worker's death took with it: a cell named as killing its worker
    # that was only waiting behind the one that did); with cells in groups
    # (llgui.campaign.groups) the wait between two tasks is a millisecond against a group's
    # quarter of a second
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.scheduler.worker-saturation": 1.0,
                          "distributed.nanny.pre-spawn-environ": spawn_environ,
                          "distributed.worker.multiprocessing-method": method,
                          **QUIET_CLUSTER, **(NO_PAUSE if plan.memory_limit else {})}):
        kwargs = {"plugins": {ExitWithoutTeardown(), IgnoreInterrupt(), *(
            [WarmUp(*warm)] if warm is not None else []), *(
            [Environment(worker_server.environment(spawn_environ))]
            if method == "forkserver" else [])}}
        if plan.memory_limit:
            kwargs["memory_limit"] = plan.memory_limit
        # each nanny keeps these settings for the workers it restarts: it merges its config
        # into Dask's only one level deep, and the `distributed` section this block sets is
        # put back when it ends, so a restarted worker had Dask's defaults (paused at 80 % of
        # its memory limit: outsider helper-53)
        kwargs["config"] = {"distributed": copy.deepcopy(dask.config.get("distributed"))}
        with warnings.catch_warnings():
            # with no dashboard, the scheduler's small HTTP server (/health) still asks for
            # port 8787 and warns on stderr when another program holds it (outsider
            # helper-49); it takes another port, as it says
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            return LocalCluster(n_workers=plan.workers, threads_per_worker=plan.threads,
                                processes=True, dashboard_address=None, host="127.0.0.1",
                                silence_logs=logging.CRITICAL, **kwargs)


def memory_problem(client, memory_limit: str | None) -> str | None:
    """Why `memory_limit` (a local cluster's `--memory-limit`) is refused, or None: the
    workers already come near it once started, their libraries loaded (outsider helper-53:
    with 64MB for workers of ~200 MB, Dask stopped each one as it started and restarted it,
    and the run waited ten minutes for a worker, advising to start one)."""
    if not memory_limit:
        return None
    from dask.utils import parse_bytes

    limit = parse_bytes(memory_limit)
    try:
        held = client.run(_resident, wait=True)
    except Exception:
        held = {}
    most = max(held.values(), default=None)
    if most is not None and most < MEMORY_SHARE * limit:
        return None
    mib = 2 ** 20
    need = -(-int(most * MEMORY_ADVICE) // (64 * mib)) * 64 if most else None   # (in MiB)
    return (f"--memory-limit {memory_limit}: "
            + (f"a worker process holds {most / mib:.0f} MiB before its first cell (its "
               f"libraries loaded), {most / limit:.0%} of the limit"
               if most else "the worker processes stopped as they started")
            + "; Dask stops a worker past 95 % of its limit. Give "
            + (f"at least {need}MiB" if need else "more")
            + " a worker (more for batches of more than a few thousand lines), or leave the "
              "option out (the workers then share this machine's memory)")


def _resident() -> int:
    """This process's resident memory (bytes): run on a worker (`memory_problem`)."""
    import psutil

    return psutil.Process().memory_info().rss



def _exit_now(code=0) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code if isinstance(code, int) else (0 if code is None else 1))


class WarmUp(WorkerPlugin):
    name = "llgui-warm-up"

    def __init__(self, task: str, metrics, settings) -> None:
        self.task, self.metrics, self.settings = task, list(metrics), dict(settings)

    def setup(self, worker) -> None:
        from llgui.campaign.cells import warm_up

        try:
            warm_up(self.task, self.metrics, self.settings)
        except Exception:   # a cell will say what is wrong, with its name
            pass


class Environment(WorkerPlugin):
    """A worker forked from the worker server gets the llgui process's environment of its
    cluster's start, `environ`, as a spawned one had it (the server's is that of its own
    start): variables set since are set, those removed since removed."""
    name = "llgui-environment"

    def __init__(self, environ: dict) -> None:
        self.environ = dict(environ)

    def setup(self, worker) -> None:
        for name in [n for n in os.environ if n not in self.environ]:
            os.environ.pop(name, None)
        os.environ.update(self.environ)


class IgnoreInterrupt(WorkerPlugin):
    name = "llgui-ignore-interrupt"

    def setup(self, worker) -> None:
        import signal

        try:   # (the worker's event loop runs on its process's main thread)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:
            pass


class ExitWithoutTeardown(WorkerPlugin):
    name = "llgui-exit-without-teardown"

    def teardown(self, worker) -> None:
        # multiprocessing's spawned child ends with `sys.exit(exitcode)` once the worker's
        # loop has returned and its queues are flushed (multiprocessing.spawn.spawn_main);
        # a forked one (worker_server) with `os._exit` already
        sys.exit = _exit_now
