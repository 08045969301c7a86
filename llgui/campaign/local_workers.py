"""What llgui gives the worker processes of the LocalCluster it starts itself (never those
of a cluster it connects to): each warms up as it starts, and ends at once when closed.

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

import os
import sys

from distributed.diagnostics.plugin import WorkerPlugin


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
        # loop has returned and its queues are flushed (multiprocessing.spawn.spawn_main)
        sys.exit = _exit_now
