"""A test build of a Dask worker: `dask worker ... --preload tests/campaign/worker_hooks.py`.

Never imported by llgui. In a worker started with it, a cell whose hypothesis lies in a folder
named `crash` ends its worker process (`os._exit`), one in a folder named `crash-once` does so the first time only (a death Dask
recovers from by running the cell on another worker), one in a folder named `stop` stops it
(SIGSTOP, as `kill -STOP` would), and `$LLGUI_TEST_FAKE_SACREBLEU`, when set, is the sacrebleu
version this worker reports: the faults of tests/campaign/test_campaign_cluster.py, made by a
real worker process on real cells.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path

import llgui.campaign.cells as cells
from llgui.campaign import cache

# Dask may run a preload file twice: the originals are kept once, on the modules
_score_mt_cell = cells.__dict__.setdefault("_unhooked_score_mt_cell", cells.score_mt_cell)


def score_mt_cell(task: dict) -> dict:
    parts = Path(task["hypothesis"]).parts
    if "crash" in parts:
        os._exit(13)
    if "crash-once" in parts:   # the first worker to take it dies; Dask retries it elsewhere
        marker = Path(task["hypothesis"]).with_suffix(".died")
        try:
            marker.open("x").close()
        except FileExistsError:
            return _score_mt_cell(task)
        os._exit(13)
    if "stop" in parts:
        os.kill(os.getpid(), signal.SIGSTOP)
    return _score_mt_cell(task)


cells.score_mt_cell = score_mt_cell

_FAKE = os.environ.get("LLGUI_TEST_FAKE_SACREBLEU")
if _FAKE:
    _library_versions = cache.__dict__.setdefault("_unhooked_library_versions",
                                                  cache.library_versions)

    def library_versions(task: str) -> dict:
        return {**_library_versions(task), "sacrebleu": _FAKE}

    cache.library_versions = library_versions
