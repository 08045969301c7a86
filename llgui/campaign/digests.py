"""Input files' digests remembered by their status, as git's index remembers its files'.

A cell's key holds the SHA-256 of each input file's bytes (`llgui.campaign.cache`); a cached
rerun of gate 7's campaign hashed its 588 files again (43 ms of its 180). `DigestMemo` keeps,
in the cache folder (`digests.index`, written atomically at the end of a run), each file's
digest with what `os.stat` said of it then: size, modification and change times in
nanoseconds, inode. A file whose status is the same is not read again. Writing to a file
moves its change time (which no program can set back, unlike the modification time), and
a file changed within two seconds of being hashed is not remembered at all (a second write
in the same clock tick could leave its status as it was: git's "racy" files). Anything in
the memo that is not what this module writes is ignored (the whole file when its checksum,
the SHA-256 of the JSON before it, fails; else entry by entry); the memo is only ever a
shortcut to the digest the file's bytes would give, and a cell job checks the bytes it
scores against it (`llgui.campaign.cells`).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

from llgui.utils.atomic import write_atomic
from llgui.utils.regular import read_regular

MEMO_NAME = "digests.index"
MEMO_FORMAT = 1
MAX_MEMO_BYTES = 64 << 20
"""The largest memo read (about 200 bytes an entry)."""
MAX_ENTRIES = 100_000
"""Entries kept; past it the memo starts again from the files of the run writing it."""
RACY_NS = 2_000_000_000
"""A file changed this recently (ns) when hashed is not remembered."""

_HEX = re.compile(r"[0-9a-f]{64}\Z")
_BOUND = 1 << 63


def _valid(entry) -> bool:
    return (type(entry) is list and len(entry) == 5 and type(entry[4]) is str
            and _HEX.match(entry[4]) is not None
            and all(type(v) is int and 0 <= v < _BOUND for v in entry[:4]))


class DigestMemo:
    """`digest(path)`: `hash_file(path)`'s value, read from the memo under `root` when the
    file's status has not changed since; `save()` writes what was learnt. A memo that cannot
    be read or written is no memo (every file hashed)."""

    def __init__(self, root: str | Path | None, hash_file):
        self.path = Path(root) / MEMO_NAME if root is not None else None
        self.hash_file = hash_file
        self.entries: dict[str, list] = {}
        self.used: dict[str, list] = {}   # the entries of this run's files
        self.changed = False
        if self.path is None:
            return
        try:
            data = read_regular(self.path, MAX_MEMO_BYTES)
            if hashlib.sha256(data[65:]).hexdigest().encode("ascii") != data[:64]:
                return   # torn or edited: a wrong digest would refuse a file as changed
            memo = json.loads(data[65:].decode("utf-8"))
        except (OSError, ValueError):
            return
        if type(memo) is dict and memo.get("format") == MEMO_FORMAT \
                and type(memo.get("files")) is dict:
            self.entries = {p: e for p, e in memo["files"].items()
                            if type(p) is str and _valid(e)}

    def digest(self, path: str | Path) -> str:
        name = os.path.abspath(path)
        try:
            info = os.stat(name)
        except (OSError, ValueError):
            return self.hash_file(path)
        status = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
        entry = self.entries.get(name)
        if entry is not None and entry[:4] == status:
            self.used[name] = entry
            return entry[4]
        digest = self.hash_file(path)
        if digest and time.time_ns() - max(status[1], status[2]) > RACY_NS \
                and all(0 <= v < _BOUND for v in status):
            self.entries[name] = self.used[name] = status + [digest]
            self.changed = True
        return digest

    def save(self) -> None:
        """Write the memo (atomically) if this run learnt a digest; skipped silently when
        the folder cannot be written (the cache says so itself)."""
        if self.path is None or not self.changed:
            return
        files = self.entries if len(self.entries) <= MAX_ENTRIES else self.used
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_dir() and not self.path.is_symlink():   # (damage: as an entry's)
                import shutil

                shutil.rmtree(self.path, ignore_errors=True)
            text = json.dumps({"format": MEMO_FORMAT, "files": files},
                              separators=(",", ":")).encode("utf-8")
            write_atomic(self.path, hashlib.sha256(text).hexdigest().encode("ascii") + b" "
                         + text, fsync=False)
        except OSError:
            return
        self.changed = False
