"""Reading a file only when it is a regular file of bounded size (the one path guard).

`check_regular(path, limit)` looks at the file without opening it; `read_regular(path,
limit)` reads it, opened non-blocking and checked again after opening, so a FIFO never
blocks, a device (`/dev/zero`, or a symlink to it) is never read, and a file larger than
`limit` is refused before it is read. Both raise `NotRegularFile` (an OSError) with the reason.
Every reader of llgui goes through here: the loaders (`llgui.io._read`), the caches, the live
session files.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


_size = size_text
MAX_INPUT_BYTES = 1 << 30


class NotRegularFile(OSError):
    """A path that is not a regular file, or one too large; the message is the reason."""


def file_size(path: str | Path) -> int:
    """The size of `path` in bytes; 0 when it cannot be read (its reader says why)."""
    try:
        return os.path.getsize(path)
    except (OSError, ValueError):
        return 0


def check_regular(path: str | Path, limit: int = MAX_INPUT_BYTES) -> int:
    """The size of `path` in bytes; NotRegularFile (an OSError) when it is not a regular file
    or is larger than `limit`. Looks at the file only, never opens it."""
    info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(21, "is a directory, not a file", str(path))
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device"
                if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a file")
        raise NotRegularFile(f"is not a regular file ({kind}); only regular files are read")
    if info.st_size > limit:
        raise NotRegularFile(f"is too large ({_size(info.st_size)}; files larger than "
                             f"{_size(limit)} are not read)")
    return info.st_size


def _open_regular(path: str | Path, limit: int) -> tuple[int, os.stat_result]:
    """`path` opened read-only (a file descriptor, and its fstat), after `check_regular` and
    checked again once open, non-blocking: a path swapped for a FIFO or a device between the
    check and the open is refused without blocking."""
    check_regular(path, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile("is not a regular file; only regular files are read")
        if info.st_size > limit:
            raise NotRegularFile(f"is too large (files larger than {_size(limit)} are not read)")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_regular(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (see `check_regular`;
    opened as `_open_regular` says)."""
    fd, _ = _open_regular(path, limit)
    try:
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 24, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:   # the file grew after the check
                raise NotRegularFile(f"is too large (files larger than {_size(limit)} "
                                     f"are not read)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_head(path: str | Path, head: int, limit: int = MAX_INPUT_BYTES) -> tuple[bytes, int]:
    """The first `head` bytes of the regular file `path` and its size (the guards of
    `read_regular`: never a FIFO or a device, never more than `limit`)."""
    fd, info = _open_regular(path, limit)
    try:
        return os.read(fd, head), info.st_size
    finally:
        os.close(fd)


def output_folder(path: Path, option: str = "--out", inputs=(), writes=()) -> Path:
    """`path` as a folder llgui may write into: created when missing; refused (ValueError
    with the reason) when it is a file or a device, cannot be created or written, or when
    one of the `inputs` is (inside) one of the files or folders `writes` the command writes
    there (the output would overwrite what it reads)."""
    import tempfile

    text = str(path)
    if not text.strip() or "\x00" in text:
        raise ValueError(f"{option} {text!r}: not a folder name")
    try:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{option} {text}: exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except ValueError:
        raise
    except OSError as exc:
        raise ValueError(f"{option} {text}: cannot write there "
                         f"({exc.strerror or type(exc).__name__})") from None
    targets = [(path / w).resolve() for w in writes]
    for item in inputs:
        try:
            resolved = Path(item).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if any(resolved == t or t in resolved.parents for t in targets):
            raise ValueError(f"{option} {text}: holds the input {item}; the output would "
                             f"overwrite it (choose a new or empty folder)")
    return path
