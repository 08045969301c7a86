"""One run at a time in an output folder: `hold(folder, option)` (issue 38.2).

Two `llgui simulate` into one `--out` used to both run, interleaving their lines in one
`logs/system.jsonl` (one cut inside a number). Now a run holds `FOLDER/.llgui.lock` while it
writes: an exclusive `fcntl.flock` on the file, which holds the holder's pid, command line
and start time (one JSON line). A second run finds the lock taken and is refused
(`FolderBusy`, a ValueError: exit 2) with that holder named.

Stale locks cannot stop anyone: the kernel releases a `flock` when its process ends, however
it ends (SIGKILL, a crash), so a lock file left by a dead run is simply taken over. The
file is removed when the run ends; a run that took the lock checks that the file it locked is
still the one at the path (another run may have removed it in between) and retries.
Where `fcntl` is missing (Windows) the folder is not locked.
"""
from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

LOCK_NAME = ".llgui.lock"


class FolderBusy(ValueError):
    """Another live run holds the folder; the message names it."""


def _holder_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            holder = json.loads(f.read(4096) or "{}")
    except (OSError, ValueError):
        holder = {}
    if not isinstance(holder, dict):
        holder = {}
    pid, command, started = holder.get("pid"), holder.get("command"), holder.get("started")
    command = str(command)[:200] if command else "?"
    return f"pid {pid if isinstance(pid, int) else '?'}, `{command}`, started {started or '?'}"


@contextmanager
def hold(folder: str | Path, option: str = "--out") -> Iterator[Path]:
    """Hold `folder` for this run (see the module text); FolderBusy when another run does."""
    try:
        import fcntl
    except ImportError:   # pragma: no cover - not POSIX
        yield Path(folder)
        return
    path = Path(folder) / LOCK_NAME
    for _ in range(10):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise FolderBusy(f"{option} {folder}: cannot create its lock file {LOCK_NAME} "
                             f"({exc.strerror or type(exc).__name__})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise FolderBusy(f"{option} {folder}: another run is writing there ("
                             f"{_holder_text(path)}); wait for it to end or choose another "
                             f"folder") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)   # the file was removed after we opened it: lock the new one
    else:   # pragma: no cover - ten removals in a row
        raise FolderBusy(f"{option} {folder}: its lock file keeps changing")
    try:
        argv = ["llgui" if a.endswith("__main__.py") else a for a in sys.argv[:1]] + sys.argv[1:]
        holder = {"pid": os.getpid(), "command": " ".join(argv)[:1000],
                  "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        try:
            os.ftruncate(fd, 0)
            os.write(fd, (json.dumps(holder) + "\n").encode("utf-8"))
        except OSError:
            pass   # a full disk: the lock holds all the same, its holder is not named
        yield path
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)
