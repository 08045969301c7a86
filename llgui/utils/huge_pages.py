"""The window's memory on transparent huge pages (issue 36): a step is seen at the user's pace,
after a pause in which the machine forgets which memory pages it touched.

A step after a reader's pause of 0.3 s runs mostly on memory pages the step before touched.
On a virtual machine whose host tracks its guests' page accesses (as cloud hosts do), the
first touch of each 4-KiB page after such a pause costs microseconds: here, 16,384 pages
touched 0.3 s after the last time took 4-63 ms depending on the hour, against 0.1-1.7 ms at
once; on 2-MiB pages, 1.1-4.8 ms. The window's step touches thousands of pages (Python
objects, Qt's heap).

`collapse` asks Linux (6.1 or newer) to move the process's anonymous memory, its heap and
Python's arenas, onto 2-MiB pages now (`madvise(MADV_COLLAPSE)`, which works whatever the
system's THP setting but "never"), and marks that memory for the kernel's own collapsing
later (`MADV_HUGEPAGE`). It copies what it moves: about 0.3 s of one core for 100 MB, done by
the window on a thread of its own once its loads are over (`llgui.gui.window.huge_pages`),
not in a step's code. Memory grows by what fills each 2-MiB page (a few MB).

The window restarted itself with glibc's and Python's allocators set to huge pages before
(`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, `PYTHONMALLOC=malloc`): the restart cost 60-115 ms
of start-up (gate 5 went past its 2x), and pymalloc's speed. `LLGUI_HUGE_PAGES=0` (or off,
no, false) turns this off. Elsewhere than Linux nothing happens. `llgui simulate` collapses
too, on a thread at each document (its steps come after the system's replies: pauses as
well); the other commands and the library never do: their computations are not paced.
"""
from __future__ import annotations

import ctypes
import os
import platform
import re
import sys
import threading
from pathlib import Path
from typing import Callable

SWITCH = "LLGUI_HUGE_PAGES"     # "0": nothing is moved
OFF = {"0", "off", "no", "false"}
HUGE = 2 << 20                  # the x86-64 and arm64 (4-KiB granule) huge page
MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25
CHUNK = 8 << 20                 # asked at a time: a stop is seen within ~30 ms
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def wanted(environ) -> bool:
    """True on Linux 6.1 or newer with transparent huge pages not set to "never", unless
    turned off (`LLGUI_HUGE_PAGES` 0, off, no or false)."""
    if environ.get(SWITCH, "1").strip().lower() in OFF or sys.platform != "linux":
        return False
    release = re.match(r"(\d+)\.(\d+)", platform.release())
    if release is None or tuple(map(int, release.groups())) < (6, 1):   # no MADV_COLLAPSE
        return False
    try:
        setting = THP_SETTING.read_text(encoding="ascii")
    except OSError:
        return False
    return "[never]" not in setting


def anonymous_ranges(maps: str, least: int = HUGE) -> list[tuple[int, int]]:
    """The 2-MiB-aligned parts, `least` bytes or more, of the private writable anonymous
    mappings (the heap, Python's arenas, Qt's images) in `maps` (/proc/PID/maps' text); not
    the stacks, files or shared memory."""
    out = []
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 5 or fields[1] != "rw-p":
            continue
        name = fields[5].strip() if len(fields) == 6 else ""
        if name not in ("", "[heap]"):
            continue
        try:
            start, end = (int(x, 16) for x in fields[0].split("-"))
        except ValueError:
            continue
        low, high = -(-start // HUGE) * HUGE, end // HUGE * HUGE
        if high - low >= least:
            out.append((low, high))
    return out


def collapse(should_stop: Callable[[], bool] | None = None, chunk: int = CHUNK) -> int:
    """Move this process's anonymous memory onto huge pages (module text); the bytes the
    kernel took (0 where it cannot: an older kernel, THP off, not Linux). Releases the GIL
    while the kernel copies: call it from a thread of its own. `should_stop` is asked before
    each `chunk` bytes (a caller may also wait in it: the window does while it draws)."""
    if not wanted(os.environ):
        return 0
    try:
        maps = Path("/proc/self/maps").read_text(encoding="ascii", errors="replace")
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    taken = 0
    for low, high in anonymous_ranges(maps):
        for start in range(low, high, chunk):
            if should_stop is not None and should_stop():
                return taken
            size = min(chunk, high - start)
            # (a range unmapped since /proc was read: ENOMEM, skipped)
            madvise(start, size, MADV_HUGEPAGE)
            # (a part the kernel will not move, EINVAL or EAGAIN, is passed over)
            if madvise(start, size, MADV_COLLAPSE) == 0:
                taken += size
    return taken


def huge_bytes() -> int:
    """This process's anonymous memory on huge pages now (/proc/self/smaps_rollup)."""
    try:
        text = Path("/proc/self/smaps_rollup").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) * 1024
    return 0


_BACKGROUND: list[threading.Thread] = []


def collapse_in_background() -> threading.Thread | None:
    """`collapse` on a daemon thread of its own, unless one runs already or it is not wanted
    (`llgui simulate` at each document: its steps come after the system's replies)."""
    if not wanted(os.environ) or any(t.is_alive() for t in _BACKGROUND):
        return None
    thread = threading.Thread(target=collapse, name="llgui-huge-pages", daemon=True)
    _BACKGROUND[:] = [thread]
    thread.start()
    return thread
