"""One CPU-bound process on another core, for the gates measured "with a CPU hog".

    with cpu_hog():
        ...   # measured while a `while True: pass` Python runs beside

The hog is a child of this process, ended by its own id when the block ends.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time


@contextlib.contextmanager
def cpu_hog():
    process = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    time.sleep(0.2)   # running before the measure starts
    try:
        yield process
    finally:
        process.kill()
        process.wait(10)


def machine_busy(hogs: int = 0, look: float = 1.0) -> bool:
    """True when the machine has no core to spare besides our `hogs` (wall-clock times
    would measure the neighbours as much as the window): by the load average, or by the
    cores' use over the next `look` seconds (`/proc/stat`), since the load average lags a
    minute (a run started beside a test suite that had just begun was judged on wall time
    with a load average of 0.9, and measured the suite as much as the window)."""
    spare = (os.cpu_count() or 1) - 0.5
    return os.getloadavg()[0] - hogs > spare or cores_in_use(look) - hogs > spare


def cores_in_use(seconds: float) -> float:
    """How many cores the machine kept busy over `seconds` (Linux; 0.0 elsewhere)."""
    def sample():
        fields = _cpu_times()
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)   # idle + iowait
        return sum(fields[:8]), idle   # (guest time is counted in user time already)

    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return 0.0
    if total1 <= total0:
        return 0.0
    return (os.cpu_count() or 1) * (1.0 - (idle1 - idle0) / (total1 - total0))


def steal_seconds() -> float:
    """CPU time the hypervisor has given this virtual machine's cores to others since boot
    (`steal` of /proc/stat, all cores), in seconds; 0.0 where it is not known. A quiet
    machine of ours may still be a busy host's: stolen time is wall time in which our
    thread ran on no core, yet neither its CPU time nor a wait of its own."""
    try:
        return _cpu_times()[7] / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _cpu_times() -> list[int]:
    """The machine's cores' times since boot, in clock ticks: /proc/stat's `cpu` line
    (user, nice, system, idle, iowait, irq, softirq, steal, ...)."""
    with open("/proc/stat", encoding="ascii") as stat:
        return [int(v) for v in stat.readline().split()[1:]]


class Stolen:
    """The hypervisor's steal over a block, as a share of the machine's cores' time:
    `Stolen()` at its start, `.text()` at its end."""

    def __init__(self):
        self.start, self.wall = steal_seconds(), time.perf_counter()

    def share(self) -> float:
        wall = max(time.perf_counter() - self.wall, 1e-9)
        return (steal_seconds() - self.start) / (wall * (os.cpu_count() or 1))

    def text(self) -> str:
        return (f"the host took {100 * self.share():.1f} % of this machine's CPU time "
                f"meanwhile (steal)")
