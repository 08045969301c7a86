"""The window's heap on transparent huge pages (issue 36): a step is seen at the user's pace,
after a pause in which the machine forgets which memory pages it touched.

A step after a reader's pause of 0.3 s runs mostly on memory pages the step before touched.
On a virtual machine whose host tracks its guests' page accesses (as cloud hosts do), the
first touch of each 4-KiB page after such a pause costs microseconds: here, 16,384 pages
touched 0.3 s after the last time took 50-63 ms, against 1.7 ms at once; on 2-MiB pages,
2.6-4.2 ms. The window's step touches thousands of pages (Python objects, Qt's heap), and
took 36-70 ms where the same step, repeated at once, took 15-20.

glibc puts its heap on transparent huge pages when told so at start (`GLIBC_TUNABLES`
`glibc.malloc.hugetlb=1`: `madvise(MADV_HUGEPAGE)` on what it maps), and Python allocates its
objects there when its own allocator is off (`PYTHONMALLOC=malloc`; pymalloc's 1-MiB arenas
are never on huge pages). Both are read when a process starts, so the window's launcher
starts itself again with them (`restart_environ`) before Qt is imported, and the process
then puts the environment back as it was (`restore_environ`): a system under evaluation, a
Dask worker or a player it starts gets the user's environment, not the window's.

The restart is an exec: the same process (its id) runs again. A `PYTHONMALLOC` or a
`glibc.malloc.hugetlb` tunable the user set is kept (a debug allocator stays), and with both
set there is no restart. Linux with glibc only (elsewhere nothing changes);
`LLGUI_HUGE_PAGES=0` (or off, no, false) turns it off. The CLI and the library never restart:
their computations are not paced by a reader.
"""
from __future__ import annotations

import json
import os
import platform
import sys

MARK = "LLGUI_ENVIRON_BEFORE"   # the values the restart changed, to be put back (JSON)
SWITCH = "LLGUI_HUGE_PAGES"     # "0": the window runs as started
TUNABLE = "glibc.malloc.hugetlb=1"
WANTED = {"PYTHONMALLOC": "malloc"}
OFF = {"0", "off", "no", "false"}
NAMES = ("GLIBC_TUNABLES", *WANTED)   # what a restart may change, and puts back


def wanted(environ) -> bool:
    """True when the window should restart on huge pages: Linux with glibc, not turned off
    (`LLGUI_HUGE_PAGES` 0, off, no or false), not restarted already, and something left to
    set (a `PYTHONMALLOC` or a `glibc.malloc.hugetlb` tunable of the user's own is kept)."""
    if environ.get(SWITCH, "1").strip().lower() in OFF or MARK in environ:
        return False
    if sys.platform != "linux" or platform.libc_ver()[0] != "glibc":
        return False
    return bool(_settings(environ))


def _settings(environ) -> dict[str, str]:
    """What the restart sets: each of the two settings the user has not set already."""
    out = {}
    tunables = [t for t in environ.get("GLIBC_TUNABLES", "").split(":") if t]
    if not any(t.startswith("glibc.malloc.hugetlb=") for t in tunables):
        out["GLIBC_TUNABLES"] = ":".join([*tunables, TUNABLE])
    if "PYTHONMALLOC" not in environ:
        out.update(WANTED)
    return out


def restart_environ(environ) -> dict[str, str]:
    """`environ` with the huge-page settings added where the user set none (their other
    tunables kept) and the values they replace noted in MARK."""
    env = dict(environ)
    env.update(_settings(environ))
    env[MARK] = json.dumps({name: environ.get(name) for name in NAMES})
    return env


def restore_environ(environ) -> bool:
    """Put back in `environ` (os.environ) what `restart_environ` changed; True when this
    process was restarted so. A MARK that is not ours (not a JSON object of strings or
    nulls) is dropped and changes nothing else."""
    raw = environ.pop(MARK, None)
    if raw is None:
        return False
    try:
        before = json.loads(raw)
    except ValueError:
        return False
    if not isinstance(before, dict) or set(before) != set(NAMES) or not all(
            value is None or isinstance(value, str) for value in before.values()):
        return False
    for name in NAMES:
        if before[name] is None:
            environ.pop(name, None)
        else:
            environ[name] = before[name]
    return True


def restart_on_huge_pages() -> None:
    """Start this command again with the heap on huge pages (`wanted`), or return: when it
    is not wanted, or the restart fails (the window then runs as it is)."""
    if not wanted(os.environ):
        return
    argv = list(getattr(sys, "orig_argv", ()))
    if len(argv) < 2 or not sys.executable:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, *argv[1:]], restart_environ(os.environ))
    except OSError:
        return


def window_environ(environ) -> dict[str, str]:
    """The environment a window launched from `environ` runs in: for a benchmark that runs
    the window's work in a process of its own, as the app runs."""
    return restart_environ(environ) if wanted(environ) else dict(environ)
