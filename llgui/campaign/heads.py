"""The heads of a campaign's cached cells in one file, so that a cached rerun opens one file
instead of one a cell.

A report needs each cell's column sums alone (`CellCache.head`); reading them from 576
entries was 45 of a cached rerun's 105 ms (gate 7: an open, a read and a checked header a
cell). `HeadIndex` keeps, per campaign file, `heads/<hash of its path>.index` in the cache
folder: for each cell key, the status of its entry (size, modification time in ns) and the
head read from it or written into it. An index entry is used only while its cell's entry has
that same status (a rewritten, removed or replaced entry is read again, as without the
index), and only as this module writes it: the file's checksum, every sum finite, each
metric's width the scorer's. Written atomically at the end of a run, with the cells of that
run only. The sums are the entries' own (float64, exact in JSON), so a report is the same to
the byte with or without the index.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Mapping

import numpy as np

from llgui.campaign.cache import CellHead
from llgui.utils.atomic import write_atomic
from llgui.utils.regular import read_regular

INDEX_FORMAT = 1
_FLOAT = {float}
MAX_INDEX_BYTES = 256 << 20
"""The largest index read (gate 7's 576 cells: 300 KB)."""


def index_path(root: str | Path, campaign_path: str) -> Path:
    name = hashlib.sha256(os.path.abspath(campaign_path).encode("utf-8", "surrogatepass"))
    return Path(root) / "heads" / f"{name.hexdigest()[:32]}.index"


class HeadIndex:
    """`head(key, widths)`: cell `key`'s head from the index, or None (not there, its entry
    changed since, or anything in it not as written here); `note(key, head)` a head read or
    written by this run; `save()` writes this run's heads."""

    def __init__(self, cache, campaign_path: str | None):
        self.cache = cache
        self.path = (index_path(cache.root, campaign_path)
                     if cache is not None and campaign_path else None)
        self.known: dict = {}
        self._root = str(cache.root) if cache is not None else ""
        self.now: dict[str, list] = {}   # this run's cells: key -> [size, mtime, rows, sums]
        if self.path is None:
            return
        try:
            data = read_regular(self.path, MAX_INDEX_BYTES)
            if hashlib.sha256(data[65:]).hexdigest().encode("ascii") != data[:64]:
                return
            index = json.loads(data[65:].decode("utf-8"))
        except (OSError, ValueError):
            return
        if type(index) is dict and index.get("format") == INDEX_FORMAT \
                and type(index.get("cells")) is dict:
            self.known = index["cells"]

    def _status(self, key: str) -> list[int] | None:
        try:   # (the entry's path as `CellCache.path` makes it, without pathlib: 576 a rerun)
            info = os.stat(os.path.join(self._root, key[:2], key + ".cell"))
        except (OSError, ValueError):
            return None
        return [info.st_size, info.st_mtime_ns]

    def head(self, key: str, widths: Mapping[str, int]) -> CellHead | None:
        entry = self.known.get(key)
        if self.path is None or type(entry) is not list or len(entry) != 4:
            return None
        size, mtime, rows, sums = entry
        if [size, mtime] != self._status(key) or type(rows) is not int or rows < 0 \
                or type(sums) is not dict:
            return None
        arrays = {}
        for metric, values in sums.items():
            if type(values) is not list or (metric in widths and len(values) != widths[metric]):
                return None
            if not set(map(type, values)) <= _FLOAT:   # (not a str numpy would parse)
                return None
            arrays[metric] = array = np.array(values, dtype=np.float64)
            if not np.isfinite(array).all():
                return None
        self.now[key] = entry
        return CellHead(rows=rows, sums=arrays)

    def note(self, key: str, head: CellHead | None) -> None:
        if self.path is None or head is None:
            return
        status = self._status(key)
        if status is not None:
            self.now[key] = status + [head.rows, {m: a.tolist() for m, a in head.sums.items()}]

    def save(self) -> None:
        """Write this run's heads (atomically), unless they are what the index held;
        skipped silently when the folder cannot be written."""
        if self.path is None or not self.now or self.now == self.known:
            return
        text = json.dumps({"format": INDEX_FORMAT, "cells": self.now},
                          separators=(",", ":"), allow_nan=False).encode("utf-8")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.is_dir() and not self.path.is_symlink():   # (damage: as an entry's)
                import shutil

                shutil.rmtree(self.path, ignore_errors=True)
            write_atomic(self.path, hashlib.sha256(text).hexdigest().encode("ascii") + b" "
                         + text, fsync=False)
        except (OSError, ValueError):
            return
