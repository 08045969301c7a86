"""Atomic file writes: a temporary file in the same folder, then a rename.

An interrupted write (a crash, a full disk) leaves the previous file as it was, never half a
file: sessions, policies and exports all go through `write_atomic`.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | Path, text: str | bytes, durable: bool = True) -> None:
    """Write `text` (UTF-8 when a str) to `path` through a temporary file, then rename.

    `durable=False` skips the fsync: the rename still makes the write all-or-nothing for a
    process that is killed, but not across a power cut; for caches whose entries carry a
    checksum (a torn entry is detected and recomputed), where an fsync per entry would cost
    more than the entry."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
