"""Atomic file writes: a temporary file in the same folder, then a rename.

An interrupted write (a crash, a full disk) leaves the previous file as it was, never half a
file: sessions, policies and exports all go through `write_atomic`.

- The temporary file is `.NAME.PID.RANDOM.tmp` beside the target, created with mode 0o666
  so the process umask applies (a session or an export gets the permissions any other file
  the user creates gets, not a private 0600).
- After the rename the folder is fsynced (POSIX), so the rename itself survives a power cut.
- A process killed between creating and renaming leaves its temporary file behind: each write
  removes the leftovers of the same target whose process is gone (`clean_stale`), and the
  window cleans its session's on start.
"""
from __future__ import annotations

import os
import re
import secrets
from pathlib import Path


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True   # it exists (owned by someone else) or we cannot tell: keep its file
    return True


_CLEANED: set[Path] = set()
"""Folders whose stale temporary files this process already removed (see write_atomic)."""


def clean_stale(path: str | Path) -> int:
    """Remove the temporary files `write_atomic` left beside `path` for processes that no
    longer run (killed during a write). Returns how many were removed; never raises."""
    path = Path(path)
    return _clean_folder(path.parent, path.name)


def _clean_folder(folder: Path, name: str | None = None) -> int:
    """Remove stale temporary files in `folder` (of the file `name`, or of any file)."""
    stem = re.escape(name) if name is not None else r".+"
    pattern = re.compile(rf"\.{stem}\.(\d+)\.[0-9a-f]+\.tmp")
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or _alive(int(found.group(1))):
            continue
        try:
            os.unlink(entry.path)
            removed += 1
        except OSError:
            pass
    return removed


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass   # some file systems refuse fsync on a folder; the rename is done
    finally:
        os.close(fd)


def write_atomic(path: str | Path, text: str | bytes, *, fsync: bool = True) -> None:
    """Write `text` (UTF-8 when a str) to `path` through a temporary file, then rename.
    `fsync=False` skips flushing to the disk first: still all-or-nothing for readers while
    the machine runs, but a crash may leave an empty or partial file (for caches that check
    their content, where thousands of fsyncs would cost seconds)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fsync:
        clean_stale(path)
    elif path.parent not in _CLEANED:
        # cache folders hold thousands of entries: scanned for stale temporary files once
        # per process rather than on every write
        _CLEANED.add(path.parent)
        _clean_folder(path.parent)
    data = text.encode("utf-8") if isinstance(text, str) else text
    tmp = _temp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync:
        _fsync_folder(path.parent)
