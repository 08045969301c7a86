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


def machine_busy(hogs: int = 0) -> bool:
    """True when the machine has no core to spare besides our `hogs` (wall-clock times
    would measure the neighbours as much as the window)."""
    return os.getloadavg()[0] - hogs > (os.cpu_count() or 1) - 0.5
