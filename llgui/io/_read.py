"""Reading an input file into text lines, reporting file-level problems the same way everywhere.

Every loader goes through `read_bytes` then `decode_lines`, so "file not found", "file is
empty" and invalid UTF-8 read the same whatever the format:

- line 0 (the file as a whole): `file not found`, `is a directory, not a file`,
  `is not a regular file (...)`, `is too large (...)`, `cannot read (...)`,
  `file is empty`;
- only regular files are read, and only up to a size cap checked BEFORE reading: a device
  (`/dev/zero`) would be read until memory runs out, a FIFO would block forever, and a sparse
  2 GiB file would be read whole before being refused;
- invalid UTF-8: one problem per bad line, `invalid UTF-8 byte 0xff at column 5 (file offset
  123)`, where the column counts BYTES from 1 within the line (a character column does not exist
  for bytes that are not characters) and the offset counts bytes from 0 in the file.

Lines are split on "\\n" only, never with `str.splitlines` (which also breaks at U+2028, U+0085,
form feed, ... and would silently shift line numbers); one "\\r" before the "\\n" is removed. A
final "\\n" does not start an extra line.
"""
from __future__ import annotations

import os
import struct
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from llgui.core.errors import Problems
from llgui.utils.regular import NotRegularFile, check_regular, read_regular, size_text as _size

__all__ = ["NotRegularFile", "check_regular", "read_regular", "read_bytes", "decode_lines",
           "observing"]

_observer = threading.local()


@contextmanager
def observing(callback: Callable[[str, bytes], None]):
    """Within the block, every file that this thread's loaders read (`read_bytes`) is also
    passed to `callback(path, its bytes)`: a campaign's cell job checks that what it scored
    is the content its cache key was made of (`llgui.campaign.cells`)."""
    previous = getattr(_observer, "callback", None)
    _observer.callback = callback
    try:
        yield
    finally:
        _observer.callback = previous

BOM = "\ufeff"

MAX_INPUT_BYTES = 1 << 30
"""1 GiB: the largest input file read (a 10**6-document bundle or 10**7 trials fit well under)."""


MAX_RTTM_LINES = 2_000_000
"""Lines of one RTTM/MDTM/UEM file (10**6 turns: ~40 s and 0.7 GB to score on 2 cores)."""
MAX_SCORE_LINES = 10_000_000
"""Lines of one detection score or key file (10**7 trials: ~40 s and 2.8 GB)."""
MAX_BUNDLE_LINES = 2_000_000
"""Lines of one bundle file (TOML is parsed whole: ~300,000 documents)."""


def read_bytes(path: str | Path, problems: Problems, limit: int = MAX_INPUT_BYTES,
               max_lines: int | None = None, split: str = "") -> bytes | None:
    """The file's bytes, or None after adding a line-0 problem (missing, not a regular file,
    larger than `limit` bytes, unreadable, more than `max_lines` lines: then `split` says how
    to cut it). Never blocks on a FIFO, never reads a device. (The line limits bound memory:
    a reader holds a few hundred bytes per line, so 10**7 lines are ~3 GB; issue 38.6.)"""
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        problems.add(0, "file not found")
    except IsADirectoryError:
        problems.add(0, "is a directory, not a file")
    except PermissionError:
        problems.add(0, "cannot read (permission denied)")
    except NotRegularFile as exc:
        problems.add(0, str(exc))
    except (OSError, ValueError) as exc:  # ValueError: a path with a NUL character
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        problems.add(0, f"cannot read ({reason})")
    else:
        if max_lines is not None:
            count = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
            if count > max_lines:
                problems.add(0, f"has {count:,} lines: at most {max_lines:,} are read"
                                + (f" ({split})" if split else ""))
                return None
        callback = getattr(_observer, "callback", None)
        if callback is not None:
            callback(os.fspath(path), data)
        return data
    return None


LIBRARY_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, RuntimeError, OSError, EOFError, struct.error, OverflowError, MemoryError,
    RecursionError, IndexError, KeyError, TypeError)
"""What a parsing library (`wave`, `soundfile`, `json`, `tomllib`, numpy) can raise on a file
that lies about itself: the guard every reader of a binary or structured file catches, so a
file's content is a problem at its line or a warning, never an internal error. (`wave` alone
raises `wave.Error`, `EOFError`, `struct.error`, `RuntimeError` from a chunk whose size runs
past the file, `OverflowError` and `MemoryError` on a size field of 2**32 - 16.)"""


def library_reason(exc: BaseException) -> str:
    """A library's exception as a reason for a message (its text, or its kind when it has
    none; a MemoryError is a size the file announces and does not hold)."""
    if isinstance(exc, MemoryError):
        return "a size in its header is larger than memory"
    if isinstance(exc, RecursionError):
        return "too deeply nested"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return describe_reason(text)


def describe_reason(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def decode_lines(data: bytes, problems: Problems, *, strip_bom: bool) -> list[str | None]:
    """Split `data` into lines and decode each as UTF-8.

    Returns one entry per line (index i is line i + 1); a line that is not valid UTF-8 is None
    and has had its problem added. `strip_bom` removes one U+FEFF at the start of the file (for
    structured formats, where editors add it; plain-text segments keep it as data).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        lines = _decode_each(data, problems)
    else:
        lines = text.split("\n")
    if lines and lines[-1] == "" and data.endswith(b"\n"):
        lines.pop()
    out: list[str | None] = []
    for line in lines:
        if line is not None and line.endswith("\r"):
            line = line[:-1]
        out.append(line)
    if strip_bom and out and out[0] is not None and out[0].startswith(BOM):
        out[0] = out[0][1:]
    return out


def _decode_each(data: bytes, problems: Problems) -> list[str | None]:
    lines: list[str | None] = []
    offset = 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            bad = " ".join(f"0x{b:02x}" for b in raw[exc.start:exc.end])
            noun = "byte" if exc.end - exc.start == 1 else "bytes"
            problems.add(
                number,
                f"invalid UTF-8 {noun} {bad} at column {exc.start + 1} "
                f"(file offset {offset + exc.start})",
            )
            lines.append(None)
        offset += len(raw) + 1
    return lines


def foreign(data: bytes, shaped: Callable[[bytes], bool], comment: bytes | None = None,
            first_only: bool = False) -> Callable[[], bool]:
    """For `Problems.expect_format`: a function telling whether no content line of `data`
    (not blank, not a `comment`; with `first_only`, only the first such line, a header) has
    the format's shape, `shaped(stripped line bytes)`. Computed only when there is a problem."""
    def check() -> bool:
        for raw in data.split(b"\n"):
            stripped = raw.strip()
            if not stripped or (comment and stripped.startswith(comment)):
                continue
            if shaped(stripped):
                return False
            if first_only:
                return True
        return True
    return check


def raise_in_line_order(problems: Problems) -> None:
    """`problems.raise_if_any()` with each file's problems sorted by line (file-wide ones,
    line 0, last), for loaders that check a file column by column rather than line by line."""
    order: dict[str, int] = {}
    for p in problems.items:
        order.setdefault(p.file, len(order))
    problems.items.sort(key=lambda p: (order[p.file], p.line == 0, p.line))
    problems.raise_if_any()


def describe(value: str, limit: int = 40) -> str:
    """`value` quoted for a message, shortened so one bad line cannot flood the terminal."""
    if len(value) > limit:
        value = value[: limit - 3] + "..."
    return repr(value)


def value_error_reason(exc: ValueError) -> str:
    """A parser's ValueError as a reason (Python's integer-length limit said plainly)."""
    text = str(exc)
    if "integer string conversion" in text:
        return "an integer has too many digits"
    return text[:1].lower() + text[1:]
