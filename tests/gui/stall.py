"""The event loop's stalls as llgui causes them, on a machine that may be shared.

A 10 ms QTimer measures the gaps between its ticks; from each gap we take away the time the
OS kept the main thread runnable but off a CPU (Linux `/proc/self/task/TID/schedstat`, field
2): on this project's shared 2-core machine other processes alone make gaps of 0.1-0.3 s. A
wait on anything of ours (a lock, the GIL held by a busy worker, a pipe) still counts in full.
Where schedstat is missing (not Linux), the plain gap is used.

What tests assert is `BusyClock`: the main thread's own CPU time between two ticks, how long
the event loop worked without a break. It does not grow with the machine's load (a wait for a
core, or for the GIL held by a worker, uses no CPU), so the bound holds on a busy laptop; the
wall-clock stalls, which do grow with load, are the benchmarks' (gates 3, 9 and 14), measured
on a quiet machine and with a CPU hog beside the window.
"""
from __future__ import annotations

import threading
import time


def runqueue_wait(tid: int) -> float:
    """Seconds thread `tid` of this process has spent runnable but not running."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


class MainThreadClock:
    """`gap(now)`: the time since the last call, less the main thread's run-queue wait."""

    def __init__(self, now: float):
        self.tid = threading.get_native_id()
        self.last, self.wait = now, runqueue_wait(self.tid)

    def reset(self, now: float) -> None:
        self.last, self.wait = now, runqueue_wait(self.tid)

    def gap(self, now: float) -> float:
        wait = runqueue_wait(self.tid)
        gap = (now - self.last) - (wait - self.wait)
        self.last, self.wait = now, wait
        return gap


class BusyClock:
    """`busy()`: the main thread's CPU time since the last call (call it on the main thread)."""

    def __init__(self):
        self.last = time.thread_time()

    def reset(self) -> None:
        self.last = time.thread_time()

    def busy(self) -> float:
        now = time.thread_time()
        spent, self.last = now - self.last, now
        return spent


LOADED_BUSY_LIMIT = 0.250
"""The longest the event loop may work without a break in a test, in seconds of main-thread
CPU. DESIGN.md's 100 ms is a wall-clock limit on a quiet machine, held by the benchmarks
(gates 3, 9, 14); on a machine running two CPU-bound processes beside the suite the same
work measured up to 107 ms of CPU (cache and core contention), so tests hold 250 ms: far
below what work left on the main thread by mistake costs (a document scored there: seconds)."""
