"""Conventions for long jobs, shared by the core and the GUI's workers.

A long job is a plain function `run(inputs..., progress=None, should_stop=None) -> result`:
it calls `progress(fraction)` with fractions in [0, 1] now and then, checks `should_stop()`
between pieces of work and raises `Cancelled` when it returns True, and returns a frozen
result. It never touches Qt, so tests call it directly and the CLI runs it as it is; the GUI
wraps it in a thin runnable (`llgui.gui.workers`).
"""
from __future__ import annotations

from typing import Callable, Optional

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
