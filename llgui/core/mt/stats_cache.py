"""A per-segment statistics cache on disk for the MT metrics (BLEU, chrF, TER, WER).

A segment's statistics are a pure function of its hypothesis text, its references, the metric's
settings and the library versions, so they are stored under those: opening the same bundle
twice, or the same hypothesis in another bundle or campaign, rescores nothing; a changed line
rescores that segment only.

Layout (content-addressed; nothing is ever edited in place):

    $LLGUI_CACHE_DIR (default: the platform cache folder, e.g. ~/.cache/llgui)
      stats-v1/<namespace>/<content hash>.pack

- `namespace`: a hash of the metric name, its settings, its statistics width, the versions of
  llgui and of the metric's library (sacrebleu; jiwer for WER) and this format's version: a
  new library version starts afresh.
- a `.pack` file holds (key, statistics row) records: the key is a 16-byte BLAKE2b digest of
  the segment's hypothesis and references, the row float64; a checksum closes the file. Its
  name is the hash of its content, and it is written through `llgui.utils.atomic.write_atomic`
  (a temporary file, then a rename; no fsync: a cache needs no durability, and a file a crash
  left damaged fails its checksum). A damaged or unreadable pack is ignored and deleted; its
  segments are recomputed and written again.
- Two processes writing at once each write their own pack (or the very same bytes under the
  same name); a reader sees whole files only. Past `COMPACT_AT` packs a namespace is merged
  into one; past the size limit (`$LLGUI_CACHE_MAX_MB`, default 512 MB) the least recently
  written packs are removed.

Set `LLGUI_NO_CACHE=1`, pass `--no-cache` to `llgui score`/`replay`, or call
`configure(enabled=False)` to compute everything afresh and write nothing.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import math
import os
import struct
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from llgui.core.numbers import env_number
from llgui.utils.cachedir import FOLDER_VARIABLES, cache_root
from llgui.utils.regular import read_regular

from llgui.utils.atomic import write_atomic

FORMAT = 1
_MAGIC = b"LLGUISC1"
_HEADER = struct.Struct("<8sIQ")  # magic, n_stats, count
_KEY = 16
_CHECK = 16
COMPACT_AT = 32
MAX_PACK_BYTES = 1 << 30
REFRESH_S = 0.5
DEFAULT_MAX_MB = 512.0   # as llgui.core.numbers.ENV_NUMBERS

counts: Counter = Counter()
"""Rows served from the cache ("hit") and computed ("computed") in this process (for tests
and the benchmark)."""

_lock = threading.Lock()
_stores: dict[tuple[str, str], "_Store"] = {}
_enabled: bool | None = None  # None: follow $LLGUI_NO_CACHE


def configure(*, enabled: bool | None = None) -> None:
    """Turn the cache on or off for this process (None: back to $LLGUI_NO_CACHE)."""
    global _enabled
    _enabled = enabled


def enabled() -> bool:
    if _enabled is not None:
        return _enabled
    return os.environ.get("LLGUI_NO_CACHE", "") not in ("1", "true", "yes")


def cache_dir() -> Path:
    """$LLGUI_CACHE_DIR, else the platform's cache folder for llgui (`llgui.utils.cachedir`;
    ValueError when the setting cannot be used). Looked up once per setting: every segment
    row goes through here, and the lookup stats the folder (54 us, a third of a simulation
    step at character level)."""
    key = tuple(os.environ.get(name) for name in (*FOLDER_VARIABLES, "HOME"))
    found = _roots.get(key)
    if found is None:
        try:
            found = cache_root()
        except ValueError as exc:
            found = exc
        if len(_roots) > 16:
            _roots.clear()
        _roots[key] = found
    if isinstance(found, ValueError):
        raise ValueError(str(found))
    return found


_roots: dict[tuple, "Path | ValueError"] = {}


def max_bytes() -> int:
    """The size limit of the cache folder: $LLGUI_CACHE_MAX_MB megabytes (default 512; a
    value that is not a finite number in range is the default here, refused by the CLI)."""
    return int(env_number("LLGUI_CACHE_MAX_MB") * 1e6)


def namespace(metric) -> str:
    """The hash naming a metric's settings and versions (see the module docstring)."""
    from importlib.metadata import PackageNotFoundError, version

    from llgui._version import __version__

    versions = {"llgui": __version__}
    # the library the metric runs on (reading package metadata costs ~0.1 s: only that one)
    package = "jiwer" if metric.name == "wer" else "sacrebleu"
    try:
        versions[package] = version(package)
    except PackageNotFoundError:
        versions[package] = None
    what = {"format": FORMAT, "metric": type(metric).__name__, "name": metric.name,
            "n_stats": int(metric.n_stats), "settings": metric.settings, "versions": versions}
    text = json.dumps(what, sort_keys=True, default=repr)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def metric_namespace(metric) -> str:
    """`namespace(metric)`, computed once per metric object (its settings are fixed once it
    is made)."""
    name = getattr(metric, "_llgui_cache_namespace", None)
    if name is None:
        name = namespace(metric)
        try:
            metric._llgui_cache_namespace = name
        except AttributeError:
            pass
    return name


def segment_key(hypothesis: str, references: Sequence[str | None]) -> bytes:
    """16-byte digest of one segment's hypothesis and references (order kept, None kept):
    of `json.dumps([hypothesis, list(references)], ensure_ascii=False)`, written here with
    json's own string encoder and separators (the same text: json.dumps' machinery was 7 us
    of a segment's 9, and a 100,000-sentence document's keys are read at every opening)."""
    if type(hypothesis) is not str or any(r is not None and type(r) is not str
                                          for r in references):
        text = json.dumps([hypothesis, list(references)], ensure_ascii=False)
    else:
        text = "[" + _quote(hypothesis) + ", [" + ", ".join(
            "null" if r is None else _quote(r) for r in references) + "]]"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_KEY).digest()


_quote = json.encoder.encode_basestring   # what json.dumps(ensure_ascii=False) writes a str as


LOOKUP_CHUNK = 512
"""Segments looked up in the cache between two checkpoints of `segment_rows`."""

INDEX_CHUNK = 4096
"""Rows of a pack joined to the in-memory index per call (about 1.5 ms of the interpreter)."""


def segment_rows(
    metric,
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str | None]],
    compute: Callable[[int], np.ndarray],
    checkpoint: Callable[[], None] | None = None,
) -> np.ndarray:
    """Statistics rows (n, n_stats) of segments i = 0..n-1, read from the cache where present;
    `compute(i)` gives the missing ones, which are then stored. `references[i]` are segment
    i's references. Observers (`observe`) hear of every row computed. `checkpoint()` is
    called between chunks of LOOKUP_CHUNK segments looked up (a job's cancel, or its pause
    while the window draws: 10,000 segments' keys and lookups are ~0.1 s of Python)."""
    n = len(hypotheses)
    rows = np.zeros((n, metric.n_stats), dtype=np.float64)
    store = _store(metric) if enabled() else None
    use = store is not None
    if use:
        keys, found = [], []
        for start in range(0, n, LOOKUP_CHUNK):
            if start and checkpoint is not None:
                checkpoint()
            chunk = [segment_key(h, r) for h, r in zip(hypotheses[start:start + LOOKUP_CHUNK],
                                                       references[start:start + LOOKUP_CHUNK])]
            keys += chunk
            found += store.lookup(chunk)
        missing = []
        for start in range(0, n, LOOKUP_CHUNK * 8):   # (10^5 rows: ~50 ms of Python)
            if start and checkpoint is not None:
                checkpoint()
            for i in range(start, min(n, start + LOOKUP_CHUNK * 8)):
                row = found[i]
                if row is None:
                    missing.append(i)
                else:
                    rows[i] = row
        if n > len(missing):
            counts["hit"] += n - len(missing)
    else:
        missing = list(range(n))
    _notify(0, len(missing))
    for i in missing:
        rows[i] = compute(i)
        counts["computed"] += 1
        _notify(1, 0)
    if use and missing:
        store.add([keys[i] for i in missing], rows[missing])
        store.flush()
    return rows


_observers: list[Callable[[int, int], None]] = []


@contextmanager
def observe(callback: Callable[[int, int], None]) -> Iterator[None]:
    """Within the block, `callback(computed, expected)` hears of rows about to be computed
    (`expected`, once per batch) and of each row computed (`computed`); for progress bars.
    Rows served from the cache are not reported: they cost nothing."""
    _observers.append(callback)
    try:
        yield
    finally:
        _observers.remove(callback)


def _notify(computed: int, expected: int) -> None:
    if expected or computed:
        for callback in list(_observers):
            callback(computed, expected)


def remember(metric, hypothesis: str, references: Sequence[str | None],
             compute: Callable[[], np.ndarray]) -> np.ndarray:
    """One segment's row through the cache (written on the next flush or at exit)."""
    store = _store(metric) if enabled() else None
    if store is None:
        counts["computed"] += 1
        return compute()
    key = segment_key(hypothesis, references)
    row = store.lookup([key])[0]
    if row is not None:
        counts["hit"] += 1
        return np.array(row, dtype=np.float64)
    _notify(0, 1)
    row = np.asarray(compute(), dtype=np.float64)
    counts["computed"] += 1
    _notify(1, 0)
    store.add([key], row[None, :])
    return row


def flush() -> None:
    """Write every store's pending rows (called after a bulk computation and at exit)."""
    with _lock:
        stores = list(_stores.values())
    for store in stores:
        store.flush()


def forget() -> None:
    """Drop the in-memory indexes (tests that change $LLGUI_CACHE_DIR call this)."""
    flush()
    with _lock:
        _stores.clear()


def _store(metric) -> "_Store | None":
    """The metric's store, or None when the cache folder cannot be one ($LLGUI_CACHE_DIR a
    file or /dev/null: skipped as a read-only cache is, issue 38.6; the CLI says so once)."""
    try:
        root = cache_dir() / f"stats-v{FORMAT}"
    except ValueError:
        return None
    name = metric_namespace(metric)
    key = (str(root), name)
    with _lock:
        store = _stores.get(key)
        if store is None:
            if not _stores:
                atexit.register(flush)
            store = _stores[key] = _Store(root / name, int(metric.n_stats), root)
        return store


# ------------------------------------------------------------------------------------------------
# pack files


def encode_pack(keys: Sequence[bytes], rows: np.ndarray) -> bytes:
    n_stats = rows.shape[1] if rows.ndim == 2 else 0
    body = (_HEADER.pack(_MAGIC, n_stats, len(keys)) + b"".join(keys)
            + np.ascontiguousarray(rows, dtype="<f8").tobytes())
    return body + hashlib.blake2b(body, digest_size=_CHECK).digest()


def decode_pack(data: bytes, n_stats: int) -> tuple[list[bytes], np.ndarray]:
    """(keys, rows) of a pack; ValueError if it is damaged or of another width."""
    if len(data) < _HEADER.size + _CHECK:
        raise ValueError("truncated")
    body, check = data[:-_CHECK], data[-_CHECK:]
    if hashlib.blake2b(body, digest_size=_CHECK).digest() != check:
        raise ValueError("checksum mismatch")
    magic, width, count = _HEADER.unpack_from(body)
    if magic != _MAGIC or width != n_stats:
        raise ValueError("not a statistics pack of this width")
    start = _HEADER.size
    if len(body) != start + count * (_KEY + 8 * width):
        raise ValueError("wrong length")
    keys = [body[start + k * _KEY: start + (k + 1) * _KEY] for k in range(count)]
    rows = np.frombuffer(body, dtype="<f8", offset=start + count * _KEY,
                         count=count * width).reshape(count, width)
    if not np.isfinite(rows).all():
        raise ValueError("non-finite statistics")
    return keys, rows


class _Store:
    """The packs of one namespace folder, indexed in memory (thread-safe)."""

    def __init__(self, folder: Path, n_stats: int, root: Path) -> None:
        self.folder = folder
        self.root = root
        self.n_stats = n_stats
        self._index: dict[bytes, np.ndarray] = {}
        self._loaded: set[str] = set()
        self._pending: dict[bytes, np.ndarray] = {}
        self._refreshed = -math.inf
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        """Load packs written since the last look (by this or another process)."""
        try:
            names = [e.name for e in os.scandir(self.folder) if e.name.endswith(".pack")]
        except OSError:
            return
        for name in names:
            if name in self._loaded:
                continue
            path = self.folder / name
            try:
                # a regular file of bounded size only: a FIFO would block, a symlink to
                # /dev/zero fill the memory
                data = read_regular(path, MAX_PACK_BYTES)
                keys, rows = decode_pack(data, self.n_stats)
            except FileNotFoundError:  # compacted away by another process meanwhile
                continue
            except (OSError, ValueError):
                _remove(path)  # damaged: ignored; its segments are recomputed and rewritten
                continue
            self._loaded.add(name)
            self._join(keys, rows)

    def _join(self, keys: Sequence[bytes], rows: np.ndarray) -> None:
        """A pack's rows into the in-memory index (a key is its row's content address: a key
        known already holds the same row), INDEX_CHUNK at a time: one update of a
        100,000-row pack held the interpreter 35 ms, which a window beside this worker
        waited for in full (a thread switch happens only between such calls)."""
        for k in range(0, len(keys), INDEX_CHUNK):
            self._index.update(zip(keys[k:k + INDEX_CHUNK], rows[k:k + INDEX_CHUNK]))

    def lookup(self, keys: Sequence[bytes]) -> list[np.ndarray | None]:
        with self._lock:
            found = self._find(keys)
            # the folder is read again only for rows missing here, at most every REFRESH_S
            # (a step's lookups must cost microseconds, not a directory listing each)
            now = time.monotonic()
            if any(row is None for row in found) and now - self._refreshed >= REFRESH_S:
                self._refreshed = now
                self._refresh()
                found = self._find(keys)
            return found

    def _find(self, keys: Sequence[bytes]) -> list[np.ndarray | None]:
        index, pending = self._index, self._pending
        return [index.get(k, pending.get(k)) for k in keys]

    def add(self, keys: Sequence[bytes], rows: np.ndarray) -> None:
        with self._lock:
            for key, row in zip(keys, np.asarray(rows, dtype=np.float64)):
                if key not in self._index:
                    self._pending[key] = np.array(row)

    def flush(self) -> None:
        with self._lock:
            if not self._pending:
                return
            keys = list(self._pending)
            rows = np.array([self._pending[k] for k in keys], dtype=np.float64)
            rows = rows.reshape(len(keys), self.n_stats)
            try:
                name = self._write(keys, rows)
            except OSError:
                return  # a read-only or full disk: scoring goes on without the cache
            self._loaded.add(name)
            self._join(keys, rows)
            self._pending.clear()
            if len(self._loaded) > COMPACT_AT:
                self._compact()
        _evict(self.root, max_bytes(), keep=self.folder)

    def _write(self, keys: Sequence[bytes], rows: np.ndarray) -> str:
        data = encode_pack(keys, rows)
        name = hashlib.blake2b(data, digest_size=16).hexdigest() + ".pack"
        path = self.folder / name
        if not path.exists():
            write_atomic(path, data, fsync=False)
        return name

    def _compact(self) -> None:
        """Merge every loaded pack of the folder into one (same content, fewer files)."""
        old = set(self._loaded)
        keys = list(self._index)
        rows = np.array([self._index[k] for k in keys], dtype=np.float64).reshape(
            len(keys), self.n_stats)
        try:
            name = self._write(keys, rows)
        except OSError:
            return
        for stale in old - {name}:
            _remove(self.folder / stale)
        self._loaded = {name}


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _evict(root: Path, limit: int, keep: Path) -> None:
    """Remove the least recently written packs until the folder holds at most `limit` bytes
    (down to 80 % of it, so eviction is rare); the newest pack is never removed."""
    entries = []
    try:
        for ns in os.scandir(root):
            if not ns.is_dir():
                continue
            for e in os.scandir(ns.path):
                if e.name.endswith(".pack"):
                    st = e.stat()
                    entries.append((st.st_mtime, st.st_size, e.path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return
    entries.sort()
    for _, size, path in entries[:-1]:
        if total <= 0.8 * limit:
            break
        _remove(Path(path))
        total -= size
