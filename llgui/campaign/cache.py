"""The campaign cell cache: finished cells on disk, addressed by the content of their inputs.

A cell's key is the SHA-256 of its kind, the SHA-256 of every input file's bytes (hypothesis,
references, UEM), its metrics, settings and the versions of the libraries that score it
(llgui, sacrebleu or pyannote.metrics, numpy). So a killed run restarts with only the missing
cells, a changed hypothesis file changes only its own cells' keys, and an upgrade of sacrebleu
recomputes everything. (This is not `core/stats_cache.py`, the per-segment cache of the
interactive MT views.)

Where: `$LLGUI_CACHE_DIR/campaign/` when that variable is set, else the platform's cache folder
(`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
Windows) + `llgui/campaign/`. Deleting the folder clears it; nothing else is kept there.

An entry is one `.cell` file: one line of JSON (the key, the metrics, each array's shape and
a SHA-256 of the bytes that follow), then the arrays' float64 values, little-endian, one after
the other. No archive and no compression: reading an entry is one read, one JSON line and one
checksum (the `.npz` of format 1 spent most of a cached rerun parsing zip directories and
array headers, gate 7), and an entry costs at most its own size in memory whatever its
header claims. An online run's summary is one `.json` file with the same header. Entries are
written atomically (`llgui.utils.atomic`, without an fsync: the checksum catches what a power
cut could tear); an entry that does not open, names another key, holds other sizes than its
header says or fails its checksum is deleted and recomputed, never trusted. An online run's key is the SHA-256 of its loaded bundle (every document's
text or turns, the log's steps, settings, cost model), so it follows the content of every file
the bundle names.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Mapping

import numpy as np

from llgui.utils.atomic import write_atomic
from llgui.utils.cachedir import cache_root
from llgui.utils.regular import read_regular

MAX_ENTRY_BYTES = 1 << 30
"""The largest cache entry read (a cell of 10**6 segments is ~100 MB)."""


CACHE_FORMAT = 2
"""Format 1 was one `.npz` per cell; format 2 the `.cell` of the module docstring. The format
is part of every key, so entries of another format are never looked for."""
MAX_HEADER_BYTES = 1 << 16
"""The longest header line read (a cell's metrics and shapes take about 300 bytes)."""


def default_cache_dir() -> Path:
    """The folder of the campaign cache (see the module docstring; ValueError when the
    cache setting cannot be used, `llgui.utils.cachedir`)."""
    return cache_root() / "campaign"


def file_digest(path: str | Path) -> str:
    """SHA-256 (hex) of a file's bytes; '' when it cannot be read (the job will say why)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return ""
    return digest.hexdigest()


def library_versions(task: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from llgui._version import __version__

    names = ["numpy"] + (["sacrebleu", "jiwer", "rapidfuzz"] if task == "mt"
                         else ["pyannote.metrics", "scipy"])
    out = {"llgui": __version__}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "?"
    return out


def cell_key(kind: str, inputs: list[str], metrics, settings: Mapping, versions: Mapping,
             extra: Mapping | None = None) -> str:
    """The content address of a cell: SHA-256 of its canonical description."""
    description = {"format": CACHE_FORMAT, "kind": kind, "inputs": list(inputs),
                   "metrics": list(metrics), "settings": dict(settings),
                   "versions": dict(versions), "extra": dict(extra or {})}
    text = json.dumps(description, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pack(key: str, stats: Mapping[str, np.ndarray]) -> bytes:
    """A cell entry's bytes: the header line, then every array's float64 values (C order,
    little-endian) in the order of its metrics."""
    arrays = [np.ascontiguousarray(stats[m], dtype="<f8") for m in stats]
    payload = b"".join(a.tobytes() for a in arrays)
    header = {"format": CACHE_FORMAT, "key": key, "metrics": list(stats),
              "shapes": [list(a.shape) for a in arrays],
              "digest": hashlib.sha256(payload).hexdigest()}
    return json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n" + payload


def _unpack(data: bytes, key: str) -> dict[str, np.ndarray]:
    """The arrays of the entry `data` stored under `key`; ValueError when anything differs
    from what `_pack` writes (another key or format, a shape that is not 2-D, sizes that do
    not add up to the bytes there are, a checksum, a value that is not finite). Nothing is
    allocated beyond the entry's own size."""
    end = data.find(b"\n", 0, MAX_HEADER_BYTES)
    if end < 0:
        raise ValueError("entry has no header line")
    header = json.loads(data[:end].decode("ascii"))
    metrics, shapes = header["metrics"], header["shapes"]
    if (header.get("format") != CACHE_FORMAT or header.get("key") != key
            or len(metrics) != len(shapes) or len(set(metrics)) != len(metrics)
            or not all(isinstance(m, str) for m in metrics)
            or not all(isinstance(s, list) and len(s) == 2
                       and all(type(n) is int and 0 <= n < 1 << 40 for n in s)
                       for s in shapes)):
        raise ValueError("entry header does not match its key or format")
    payload = memoryview(data)[end + 1:]
    sizes = [rows * cols for rows, cols in shapes]
    if 8 * sum(sizes) != len(payload):
        raise ValueError("entry holds other sizes than its header says")
    if header.get("digest") != hashlib.sha256(payload).hexdigest():
        raise ValueError("entry fails its checksum")
    flat = np.frombuffer(payload, dtype="<f8").astype(np.float64)  # one writable copy
    if not np.isfinite(flat).all():
        raise ValueError("entry holds a value that is not finite")
    stats, offset = {}, 0
    for name, shape, size in zip(metrics, shapes, sizes):
        stats[name] = flat[offset:offset + size].reshape(shape)
        offset += size
    return stats


class CellCache:
    """Finished cells under `root` (created on first write). `corrupt` counts the entries
    found damaged and removed during this object's life, `damaged` names them."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()
        self.damaged: list[str] = []   # 'PATH (what it held)' of each
        self.unwritable: str | None = None   # why entries could not be written, if so

    @property
    def corrupt(self) -> int:
        return len(self.damaged)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.cell"

    def get(self, key: str, widths: Mapping[str, int] | None = None, what: str | None = None
            ) -> dict[str, np.ndarray] | None:
        """The statistics of cell `key`, or None (absent, or damaged: then removed).

        Only a regular file of bounded size is read (a FIFO, a directory, a symlink to
        /dev/zero are damage); its arrays must be 2-D, finite, of one row count, and of
        `widths[metric]` columns when given. `what`: the cell's name, said with a damaged
        entry's path (`damaged`)."""
        path = self.path(key)
        data = self._read(path, what)
        if data is None:
            return None
        try:
            stats = _unpack(data, key)
            rows = {a.shape[0] for a in stats.values()}
            if (len(rows) > 1
                    or any(widths and m in widths and a.shape[1] != widths[m]
                           for m, a in stats.items())):
                raise ValueError("entry has arrays of the wrong shape")
        except Exception:  # any damage at all: never trust it
            self._discard(path, what)
            return None
        return stats

    def _read(self, path: Path, what: str | None = None) -> bytes | None:
        """An entry's bytes, or None when it is absent, or not a regular file of bounded size
        (a FIFO, a directory, a symlink to /dev/zero: damage, then discarded)."""
        if not os.path.lexists(path):
            return None
        try:
            return read_regular(path, MAX_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except OSError:
            self._discard(path, what)
            return None

    def _discard(self, path: Path, what: str | None = None) -> None:
        """A damaged entry: counted, named (with `what` it held) and removed (a directory
        too), never trusted."""
        self.damaged.append(f"{path} ({what})" if what else str(path))
        try:
            if path.is_dir() and not path.is_symlink():
                import shutil

                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        except OSError:
            pass

    def put(self, key: str, stats: Mapping[str, np.ndarray]) -> None:
        self._write(self.path(key), _pack(key, stats))

    def _write(self, path: Path, data: bytes | str) -> None:
        """Write an entry; a cache that cannot be written (read-only, full, a file where a
        folder should be) is skipped: the run goes on, `unwritable` says so."""
        try:
            if path.is_dir() and not path.is_symlink():
                self._discard(path)
            write_atomic(path, data, fsync=False)  # checksummed
        except OSError as exc:
            self.unwritable = self.unwritable or f"{self.root}: {exc.strerror or exc}"

    # -- JSON entries (online runs: a report, not arrays) ---------------------------------

    def json_path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get_json(self, key: str, what: str | None = None):
        """The JSON value stored under `key`, or None (absent, or damaged: then removed);
        `what` it holds is said with a damaged entry's path."""
        path = self.json_path(key)
        data = self._read(path, what)
        if data is None:
            return None
        try:
            entry = json.loads(data.decode("utf-8"))
            payload = json.dumps(entry["payload"], sort_keys=True)
            if (entry.get("format") != CACHE_FORMAT or entry.get("key") != key
                    or entry.get("digest") != hashlib.sha256(payload.encode()).hexdigest()):
                raise ValueError("entry does not match its key or checksum")
        except Exception:
            self._discard(path, what)
            return None
        return entry["payload"]

    def put_json(self, key: str, payload) -> None:
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        text = json.dumps({"format": CACHE_FORMAT, "key": key, "digest": digest,
                           "payload": payload}, allow_nan=False)
        self._write(self.json_path(key), text)
