"""A LocalCluster worker process that has closed ends at once, without the interpreter's
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


class ExitWithoutTeardown(WorkerPlugin):
    name = "llgui-exit-without-teardown"

    def teardown(self, worker) -> None:
        # multiprocessing's spawned child ends with `sys.exit(exitcode)` once the worker's
        # loop has returned and its queues are flushed (multiprocessing.spawn.spawn_main)
        sys.exit = _exit_now
