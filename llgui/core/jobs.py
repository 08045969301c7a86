"""Conventions for long jobs, shared by the core and the GUI's workers.

A long job is a plain function `run(inputs..., progress=None, should_stop=None) -> result`:
it calls `progress(fraction)` with fractions in [0, 1] now and then, checks `should_stop()`
between pieces of work and raises `Cancelled` when it returns True, and returns a frozen
result. It never touches Qt, so tests call it directly and the CLI runs it as it is; the GUI
wraps it in a thin runnable (`llgui.gui.workers`).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

Progress = Optional[Callable[[float], None]]
ShouldStop = Optional[Callable[[], bool]]


class Cancelled(Exception):
    """Raised by a job that stopped because `should_stop()` said so."""


def check(should_stop: ShouldStop) -> None:
    """Raise `Cancelled` if the job was asked to stop."""
    if should_stop is not None and should_stop():
        raise Cancelled()


def report(progress: Progress, fraction: float) -> None:
    if progress is not None:
        progress(min(1.0, max(0.0, float(fraction))))


def time_left(elapsed: float, fraction: float, least: float = 0.02) -> float | None:
    """Seconds a job that has done `fraction` of its work in `elapsed` seconds still needs,
    at the pace so far; None before `least` of it is done (no pace yet)."""
    if not (fraction >= least) or elapsed <= 0:
        return None
    return max(elapsed * (1.0 - min(fraction, 1.0)) / fraction, 0.0)


_collector = {"depth": 0, "enabled": False, "freeze": False}
_collector_lock = threading.Lock()


@contextmanager
def collector_paused(freeze: bool = True) -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, and what the block loaded kept
    out of its way after (`gc.freeze`): for a job's first imports (numba, sacrebleu), which
    create a few hundred thousand objects that live as long as the process. Imported with
    the collector on, they set off full collections, each a stretch of 20-70 ms in which the
    collecting thread holds the interpreter: the window's event loop, on another thread,
    stood still for as long (gate 9). Nested or concurrent blocks share one pause; the
    collector comes back on (if it was on) when the last ends. `freeze=False`: nothing is
    frozen after (a block whose objects are short-lived, as a campaign's look-ups: a
    thousand cells' small objects set off collections that cost a cached rerun 10-25 %),
    unless a block sharing the pause asked for it."""
    with _collector_lock:
        if _collector["depth"] == 0:
            _collector["enabled"] = gc.isenabled()
            _collector["freeze"] = False
            gc.disable()
        _collector["depth"] += 1
        _collector["freeze"] = _collector["freeze"] or freeze
    try:
        yield
    finally:
        with _collector_lock:
            _collector["depth"] -= 1
            if _collector["depth"] == 0:
                if _collector["freeze"]:
                    gc.freeze()
                if _collector["enabled"]:
                    gc.enable()
