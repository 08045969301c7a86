"""Local workers forked from one warm process (multiprocessing's forkserver), not spawned.

Spawned, each local worker was a fresh interpreter: it imported Dask (0.25 s), then the
metrics and numba's compiled kernels (0.35 s for MT, `llgui.campaign.cells.warm_up`), 0.6-0.7
s of CPU per worker and per run before its first cell. That start was most of what a run on
local workers paid beyond its cells: gate 7's 576 cells take 7-9 s at one worker on a 2-core
machine, and their start, first cell and close about 1 s at either size, which alone kept its
parallel efficiency near 80 %.

A worker server is one process, started once per llgui process (`prepare`), that imports all
of that once (`llgui.campaign.worker_preload`, warmed for the campaign's task, metrics and
settings); each local worker is then a fork of it: up in 0.07-0.1 s, its libraries' pages
shared with the other workers until written. So:

- a run starts its workers in a tenth of the time once the server is up; N workers cost one
  import, not N (on a machine with more cores than 2, N x 0.6 s of CPU and N x 190 MB);
- the server is started as soon as a run knows it will need local workers (its first cell not
  in the cache, `llgui.campaign.run`), so that its imports run on another core while the
  driver looks up the other cells and imports Dask itself;
- it ends with the llgui process (multiprocessing's own: its pipe closes).

A forked worker gets the environment of the server's start: `environment()` gives each worker
the llgui process's environment of the moment its cluster starts (what a spawned worker had),
applied as it starts (`local_workers.Environment`); variables read only as an interpreter
starts (PYTHONHASHSEED, the BLAS thread counts: Dask's, given to the server as it starts) are
the server's.

Where there is no forkserver (Windows) or it cannot be started, the workers are spawned, as
before; a server whose warm-up fails still forks workers, which then warm up themselves (the
WarmUp plugin, as a spawned worker does).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import threading

PRELOAD = "llgui.campaign.worker_preload"
"""The module the server imports before it forks any worker."""

WARM_VARIABLE = "LLGUI_WORKER_WARM"
"""How the server learns what to warm up: JSON [task, metrics, settings], set in its
environment as it is started (`prepare`), read by `PRELOAD`."""

SINGLE_THREADED = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The server's BLAS libraries start no thread pool of their own (a process is forked safely
only with one thread); Dask's own variables for workers, when given, come after these."""

_lock = threading.Lock()
_state: dict = {"started": False, "warm": None}


def available() -> bool:
    """Whether workers can be forked from a server here (POSIX, with a forkserver)."""
    return os.name == "posix" and "forkserver" in multiprocessing.get_all_start_methods()


def started() -> bool:
    """Whether this process has started its worker server (it may still be warming up)."""
    return bool(_state["started"])


def prepare(warm: tuple | None, spawn_environ: dict) -> str:
    """Start the worker server unless it runs; returns the start method local workers get:
    "forkserver", or "spawn" where there is none or it cannot be started. The first call's
    `warm`, (task, metrics, settings), is what the server warms up (workers of another task
    warm up their own as they start); `spawn_environ`, Dask's variables for worker processes,
    go into its environment besides this process's and SINGLE_THREADED. Returns at once: the
    server imports on its own core, and a worker asked of it waits until it is done."""
    if not available():
        return "spawn"
    from multiprocessing import forkserver

    with _lock:
        extra = {**SINGLE_THREADED,
                 **{k: str(v) for k, v in spawn_environ.items() if v is not None}}
        if not _state["started"]:
            multiprocessing.get_context("forkserver").set_forkserver_preload([PRELOAD])
            _state["warm"] = _warm_text(warm)
        extra[WARM_VARIABLE] = _state["warm"] or ""
        saved = {name: os.environ.get(name) for name in extra}
        os.environ.update(extra)   # (the server is started with this process's environment)
        try:
            forkserver.ensure_running()   # (started again if it ended)
        except OSError:
            return "spawn"
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        if not _state["started"]:
            _keep_dask_off_the_preload()   # (after the start: it imports Dask, 0.25 s)
        _state["started"] = True
    return "forkserver"


def environment(spawn_environ: dict) -> dict:
    """The environment a worker forked now gets: this process's, with Dask's variables for
    workers (`spawn_environ`, its `distributed.nanny.environ`), as a spawned one had it."""
    import dask

    dask_environ = {**spawn_environ, **(dask.config.get("distributed.nanny.environ", {})
                                        or {})}
    return {**os.environ, **{k: str(v) for k, v in dask_environ.items() if v is not None}}


def _warm_text(warm: tuple | None) -> str | None:
    if warm is None:
        return None
    task, metrics, settings = warm
    try:
        return json.dumps([task, list(metrics), dict(settings)], sort_keys=True)
    except (TypeError, ValueError):   # settings that are not plain data: no warm-up ahead
        return None


def _keep_dask_off_the_preload() -> None:
    """Dask sets the forkserver's preload itself the first time it is asked for its
    multiprocessing context: its own packages, importing pandas and lz4 in this process to
    see whether they are there (0.2 s here) and replacing llgui's list. Marked as done."""
    try:
        import distributed.utils as dask_utils
    except ImportError:   # pragma: no cover - distributed is a dependency
        return
    if hasattr(dask_utils, "_forkserver_preload_set"):
        dask_utils._forkserver_preload_set = True
