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

An entry is one `.npz` file (numpy arrays only, read with `allow_pickle=False`) holding the
statistics and a small JSON header with the key and a SHA-256 of the arrays; an online run's
summary is one `.json` file with the same header. Entries are written atomically
(`llgui.utils.atomic`, without an fsync: the checksum catches what a power cut could tear); an
entry that does not open, names another key or fails its checksum is deleted and recomputed,
never trusted. An online run's key is the SHA-256 of its loaded bundle (every document's
text or turns, the log's steps, settings, cost model), so it follows the content of every file
the bundle names.
"""
from __future__ import annotations

import hashlib
import io
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


def _check_stored(data: bytes) -> None:
    """Raise ValueError unless every member of the .npz archive `data` is stored as it is
    (`np.savez` writes them so) and no larger than the archive: a compressed member is not
    ours, and may inflate 2.5 MB into 4.9 GB (a zip bomb, issue 38.6; zlib runs in C for
    seconds, deaf to SIGTERM). So an entry costs at most its own size in memory."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED or info.file_size > len(data):
                raise ValueError(f"entry member {info.filename[:40]!r} is compressed or "
                                 "larger than the entry")

CACHE_FORMAT = 1


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


def _arrays_digest(stats: Mapping[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(stats):
        array = np.ascontiguousarray(stats[name], dtype=np.float64)
        digest.update(name.encode("utf-8"))
        digest.update(repr(array.shape).encode("ascii"))
        digest.update(array.tobytes())
    return digest.hexdigest()


class CellCache:
    """Finished cells under `root` (created on first write). `corrupt` counts the entries
    found damaged and removed during this object's life."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()
        self.corrupt = 0
        self.unwritable: str | None = None   # why entries could not be written, if so

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.npz"

    def get(self, key: str, widths: Mapping[str, int] | None = None
            ) -> dict[str, np.ndarray] | None:
        """The statistics of cell `key`, or None (absent, or damaged: then removed).

        Only a regular file of bounded size is read (a FIFO, a directory, a symlink to
        /dev/zero are damage); its arrays must be 2-D, finite, of one row count, and of
        `widths[metric]` columns when given."""
        path = self.path(key)
        data = self._read(path)
        if data is None:
            return None
        try:
            _check_stored(data)   # a zip bomb is damage, before anything is inflated
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                header = json.loads(bytes(archive["header"]).decode("utf-8"))
                stats = {name: np.array(archive[f"stats_{i}"], dtype=np.float64)
                         for i, name in enumerate(header["metrics"])}
            if (header.get("format") != CACHE_FORMAT or header.get("key") != key
                    or header.get("digest") != _arrays_digest(stats)):
                raise ValueError("entry does not match its key or checksum")
            rows = {a.shape[0] for a in stats.values() if a.ndim == 2}
            if (any(a.ndim != 2 or not np.isfinite(a).all() for a in stats.values())
                    or len(rows) > 1
                    or any(widths and m in widths and a.shape[1] != widths[m]
                           for m, a in stats.items())):
                raise ValueError("entry has arrays of the wrong shape")
        except Exception:  # any damage at all: never trust it
            self._discard(path)
            return None
        return stats

    def _read(self, path: Path) -> bytes | None:
        """An entry's bytes, or None when it is absent, or not a regular file of bounded size
        (a FIFO, a directory, a symlink to /dev/zero: damage, then discarded)."""
        if not os.path.lexists(path):
            return None
        try:
            return read_regular(path, MAX_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except OSError:
            self._discard(path)
            return None

    def _discard(self, path: Path) -> None:
        """A damaged entry: counted and removed (a directory too), never trusted."""
        self.corrupt += 1
        try:
            if path.is_dir() and not path.is_symlink():
                import shutil

                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        except OSError:
            pass

    def put(self, key: str, stats: Mapping[str, np.ndarray]) -> None:
        metrics = list(stats)
        header = {"format": CACHE_FORMAT, "key": key, "metrics": metrics,
                  "digest": _arrays_digest(stats)}
        arrays = {f"stats_{i}": np.asarray(stats[m], dtype=np.float64)
                  for i, m in enumerate(metrics)}
        arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        self._write(self.path(key), buffer.getvalue())

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

    def get_json(self, key: str):
        """The JSON value stored under `key`, or None (absent, or damaged: then removed)."""
        path = self.json_path(key)
        data = self._read(path)
        if data is None:
            return None
        try:
            entry = json.loads(data.decode("utf-8"))
            payload = json.dumps(entry["payload"], sort_keys=True)
            if (entry.get("format") != CACHE_FORMAT or entry.get("key") != key
                    or entry.get("digest") != hashlib.sha256(payload.encode()).hexdigest()):
                raise ValueError("entry does not match its key or checksum")
        except Exception:
            self._discard(path)
            return None
        return entry["payload"]

    def put_json(self, key: str, payload) -> None:
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        text = json.dumps({"format": CACHE_FORMAT, "key": key, "digest": digest,
                           "payload": payload}, allow_nan=False)
        self._write(self.json_path(key), text)
