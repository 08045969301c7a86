"""The window's freed memory kept for its next job (glibc's malloc; issue 36, gate 3).

A window's jobs allocate large arrays and free them: a DET of 10^6 trials makes and drops
about 100 MB of numpy arrays. glibc gives such memory back to the system at once (an array
above its mmap threshold is unmapped when freed; a worker thread's arena, at most 64 MB a
heap, is trimmed), and the next run touches fresh pages again: on this virtual machine 2,000-
7,000 page faults and 75-160 ms of system time in a run of 60-70 ms (the same DET on a worker
took 67 ms or 220 ms by turns). With one arena for every thread, a 32-MB mmap threshold (the
largest glibc takes on 64-bit systems) and 256 MB that may stay free before the heap is
trimmed, a repeated job runs on the pages its last run had: no fault at all from the third.

`keep_freed_memory()` is called by the window as it starts (`MainWindow`); the commands and
the library never call it (a command's process ends when its one computation does).
`LLGUI_KEEP_FREED=0` (off, no, false) turns it off; elsewhere than glibc nothing happens.
The price: up to 256 MB a window may hold that it no longer uses, and worker threads
allocating large blocks take one arena's lock in turn (Python's own objects do not go
through it: pymalloc has arenas of its own).
"""
from __future__ import annotations

import ctypes
import os
import platform

from llgui.utils.huge_pages import OFF   # (the same words turn either switch off)

SWITCH = "LLGUI_KEEP_FREED"
M_TRIM_THRESHOLD = -1           # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD = 32 << 20       # glibc's largest on 64-bit (HEAP_MAX_SIZE / 2)
TRIM_THRESHOLD = 256 << 20


def keep_freed_memory(environ=None) -> bool:
    """Set glibc's malloc to keep freed memory for the next job (module docstring). Returns
    True when every setting was taken; False when switched off, not glibc, or refused."""
    environ = os.environ if environ is None else environ
    if environ.get(SWITCH, "").strip().lower() in OFF or platform.system() != "Linux":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):   # (musl and others: no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return all([mallopt(M_ARENA_MAX, 1) == 1,
                mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1,
                mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1])
