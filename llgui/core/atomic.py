"""Atomic file writes: a temporary file in the same folder, then a rename.

An interrupted write (a crash, a full disk) leaves the previous file as it was, never half a
file: sessions, policies and exports all go through `write_atomic`.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | Path, text: str | bytes, *, fsync: bool = True) -> None:
    """Write `text` (UTF-8 when a str) to `path` through a temporary file, then rename.
    `fsync=False` skips flushing to the disk first: still all-or-nothing for readers while
    the machine runs, but a crash may leave an empty or partial file (for caches that check
    their content, where thousands of fsyncs would cost seconds)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
