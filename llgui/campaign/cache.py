"""The campaign cell cache: finished cells on disk, addressed by the content of their inputs.

A cell's key is the SHA-256 of its kind, the SHA-256 of every input file's bytes (hypothesis,
references, UEM), its metrics, settings and the versions of the libraries that score it
(llgui, sacrebleu or pyannote.metrics, numpy). So a killed run restarts with only the missing
cells, a changed hypothesis file changes only its own cells' keys, and an upgrade of sacrebleu
recomputes everything. (This is not `core/stats_cache.py`, the per-segment cache of the
interactive MT views.)

Where: `$LLGUI_CACHE_DIR/campaign/` when that variable is set, else the platform's cache folder
(`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
Windows) + `llgui/campaign/`. Deleting the folder clears it; nothing else is kept there but
`digests.index`, the input files' digests remembered by their status (`llgui.campaign.digests`),
and `heads/`, each campaign's cell heads in one file (`llgui.campaign.heads`).

An entry is one `.cell` file: a header line (the SHA-256 of the head, a space, a line of
JSON: the key, the metrics, each array's shape and row type, and a SHA-256 of the rows), each
array's column sums (float64), then the arrays' rows, little-endian, one after the other: each
array in the smallest type that holds all its values exactly (counts: uint8, uint16 or int32,
`smallest_exact`; float64 otherwise), read back as float64. No archive and no compression. A
cached rerun reads the heads only (a few hundred bytes an entry: a report needs the sums
alone, gate 7's 576 entries hold 9 MB of rows, 69 MB in float64); the rows are read and
checked when something asks for them (persistence figures, agreement, paired tests:
`StoredCell`). An entry costs at most its own size in memory whatever its header claims. An
online run's summary is one `.json` file with a checksummed header too. Entries are written
atomically (`llgui.utils.atomic`, without an fsync: the checksums catch what a power cut could
tear); an entry that does not open, names another key, holds other sizes than its header says
or fails a checksum is deleted and recomputed, never trusted (a damaged head when it is read,
damaged rows when they are). An online run's key is the SHA-256 of its loaded bundle (every document's
text or turns, the log's steps, settings, cost model), so it follows the content of every file
the bundle names.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from llgui.utils.atomic import write_atomic
from llgui.utils.cachedir import cache_root
from llgui.utils.regular import read_head, read_regular

MAX_ENTRY_BYTES = 1 << 30
"""The largest cache entry read (a cell of 10**6 segments is ~100 MB)."""


CACHE_FORMAT = 4
"""Format 1 was one `.npz` per cell; format 2 a `.cell` whose header had no checksum of its
own and no sums; format 3 a `.cell` whose rows were all float64; format 4 the `.cell` of the
module docstring (writing 576 entries of 120 KB cost gate 7's driver 0.3 s of CPU, most of it
the kernel's, taken from the workers' two cores). The format is part of every key,
so entries of another format are never looked for."""
MAX_HEADER_BYTES = 1 << 16
"""The longest header line read (a cell's metrics, shapes and sums take about 1.5 KB)."""
HEAD_READ = 1 << 13
"""The bytes read first for a header (`CellCache.head`); a longer header is read whole."""


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


_VERSIONS: dict[str, dict[str, str]] = {}
"""`library_versions` of each task, read once a process: the libraries it has imported do not
change under it (reading the installed metadata took ~8 ms a run, 4 % of a cached rerun)."""


def library_versions(task: str) -> dict[str, str]:
    """The versions that sign a `task`'s cells: llgui's and its scoring libraries'."""
    if task not in _VERSIONS:
        _VERSIONS[task] = _read_versions(task)
    return dict(_VERSIONS[task])


def _read_versions(task: str) -> dict[str, str]:
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


def cell_keys(kind: str, metrics, settings: Mapping, versions: Mapping,
              extra: Mapping | None = None) -> Callable[[list[str]], str]:
    """`cell_key` of these, as a function of the inputs (digests: strings): the rest of the
    description's text made once (a cached rerun of 576 cells spent 19 ms describing them,
    9 % of it). The same keys as `cell_key`."""
    mark = "\x00inputs\x00"
    text = json.dumps({"format": CACHE_FORMAT, "kind": kind, "inputs": mark,
                       "metrics": list(metrics), "settings": dict(settings),
                       "versions": dict(versions), "extra": dict(extra or {})},
                      sort_keys=True, separators=(",", ":"), default=str)
    parts = text.split(json.dumps(mark))
    encode = json.JSONEncoder(separators=(",", ":")).encode

    def key(inputs: list[str]) -> str:
        if len(parts) != 2 or any(type(item) is not str for item in inputs):
            return cell_key(kind, inputs, metrics, settings, versions, extra)
        before, after = parts
        whole = before + encode(list(inputs)) + after
        return hashlib.sha256(whole.encode("utf-8")).hexdigest()

    return key


ROW_TYPES = ("|u1", "<u2", "<i4", "<f8")
"""The types an entry's rows may be stored in (`smallest_exact`)."""
_ITEM_BYTES = {kind: np.dtype(kind).itemsize for kind in ROW_TYPES}


def _count_type(high) -> type:
    """The smallest of uint8, uint16 and int32 holding counts from 0 to `high`."""
    return np.uint8 if high <= 255 else np.uint16 if high <= 65535 else np.int32


def smallest_exact(array: np.ndarray) -> np.ndarray:
    """`array` in the smallest of uint8, uint16 and int32 that holds all its values exactly
    (counts), else as it is: a fraction, a negative value, a NaN or one past 2**31 keeps a
    float array float. Read back as float64, every value is the one given."""
    array = np.asarray(array)
    if array.dtype.kind in "iu" and array.size:   # (a worker's `executor.compact` sent it)
        low, high = int(array.min()), int(array.max())
        if low >= 0 and high <= np.iinfo(np.int32).max:
            return array.astype(_count_type(high), copy=False)
        return array.astype(np.int32 if low >= np.iinfo(np.int32).min and
                            high <= np.iinfo(np.int32).max else np.float64)
    if array.dtype.kind == "f" and array.size:
        low, high = array.min(), array.max()   # (NaN: neither comparison holds)
        if low >= 0 and high <= np.iinfo(np.int32).max:
            kind = _count_type(high)
            as_int = array.astype(kind)
            if np.array_equal(as_int, array):
                return as_int
    return array


def _pack(key: str, stats: Mapping[str, np.ndarray]) -> bytes:
    """A cell entry's bytes: a header line (the SHA-256 of what follows it up to the rows, a
    space, a JSON object), each array's column sums (float64), then each array's values (C
    order, little-endian, each in its `smallest_exact` type) in the order of its metrics. The
    sums are what the driver sums from the float64 arrays, so a report is built from the heads
    of the entries alone (`CellCache.head`)."""
    # (counts a worker sent as integers are packed as they came: no float64 copy)
    values = [np.ascontiguousarray(stats[m]) for m in stats]
    values = [a if a.dtype.kind in "iu" else a.astype("<f8", copy=False) for a in values]
    arrays = [smallest_exact(a) for a in values]
    arrays = [a.astype(a.dtype.newbyteorder("<"), copy=False) for a in arrays]
    # one copy of the rows and one of the whole entry (each `+` of bytes copied it again)
    payload = b"".join(a.tobytes() for a in arrays)
    # float64 sums, as of the float64 arrays (integers: exact either way, below 2**53)
    sums = np.concatenate([np.atleast_1d(a.sum(axis=0, dtype="<f8")) for a in values]
                          ).tobytes() if values else b""
    header = {"format": CACHE_FORMAT, "key": key, "metrics": list(stats),
              "shapes": [list(a.shape) for a in arrays],
              "types": [a.dtype.str for a in arrays],
              "digest": hashlib.sha256(payload).hexdigest()}
    text = json.dumps(header, separators=(",", ":")).encode("ascii") + b"\n"
    return b"".join((hashlib.sha256(text + sums).hexdigest().encode("ascii"), b" ", text, sums,
                     payload))


def _header(data: bytes, key: str, size: int) -> tuple[dict, int, list[int]] | int:
    """The checked head of an entry of `size` bytes whose first bytes are `data`: (header,
    where its rows start, each array's number of values), with the column sums as arrays in
    `header["sums"]`; or the number of bytes the head needs when `data` holds fewer. ValueError
    when anything differs from what `_pack` writes (no header line, its checksum, another key
    or format, a shape that is not 2-D, sums that are not finite, sizes that do not add up to
    the entry's)."""
    end = data.find(b"\n", 0, MAX_HEADER_BYTES)
    if end < 65 or data[64:65] != b" ":
        raise ValueError("entry has no header line")
    header = json.loads(data[65:end].decode("ascii"))
    metrics, shapes, types = header["metrics"], header["shapes"], header["types"]
    if (header.get("format") != CACHE_FORMAT or header.get("key") != key
            or type(types) is not list or len(metrics) != len(shapes) or len(types) !=
            len(shapes) or len(set(metrics)) != len(metrics)
            or not set(types) <= _ITEM_BYTES.keys()):
        raise ValueError("entry header does not match its key or format")
    sizes, widths, row_bytes = [], 0, 0
    for name, shape, kind in zip(metrics, shapes, types):
        if not (type(name) is str and type(shape) is list and len(shape) == 2
                and type(shape[0]) is int and type(shape[1]) is int
                and 0 <= shape[0] < 1 << 40 and 0 <= shape[1] < 1 << 40):
            raise ValueError("entry header does not match its key or format")
        sizes.append(shape[0] * shape[1])
        widths += shape[1]
        row_bytes += sizes[-1] * _ITEM_BYTES[kind]
    start = end + 1 + 8 * widths
    if row_bytes != size - start:
        raise ValueError("entry holds other sizes than its header says")
    if len(data) < start:
        return start
    if hashlib.sha256(memoryview(data)[65:start]).hexdigest().encode("ascii") != data[:64]:
        raise ValueError("entry header fails its checksum")
    flat = np.frombuffer(data, dtype="<f8", count=(start - end - 1) // 8, offset=end + 1)
    if not np.isfinite(flat).all():
        raise ValueError("entry's sums are not finite")
    flat, header["sums"], offset = flat.astype(np.float64), [], 0   # one copy, owned
    for _, cols in shapes:
        header["sums"].append(flat[offset:offset + cols])
        offset += cols
    return header, start, sizes


def _unpack(data: bytes, key: str) -> dict[str, np.ndarray]:
    """The arrays of the entry `data` stored under `key`; ValueError when anything differs
    from what `_pack` writes (`_header`, the rows' checksum, a value that is not finite,
    rows that do not add up to the head's sums). Nothing is allocated beyond the entry's own
    size."""
    checked = _header(data, key, len(data))
    if isinstance(checked, int):   # cannot be: the sizes were checked against len(data)
        raise ValueError("entry is shorter than its head")
    header, start, sizes = checked
    payload = memoryview(data)[start:]
    if header.get("digest") != hashlib.sha256(payload).hexdigest():
        raise ValueError("entry fails its checksum")
    stats, offset = {}, 0
    for name, shape, size, kind, sums in zip(header["metrics"], header["shapes"], sizes,
                                             header["types"], header["sums"]):
        # a writable float64 copy of each (the caller owns it)
        stats[name] = np.frombuffer(payload, dtype=kind, count=size, offset=offset).astype(
            np.float64).reshape(shape)
        offset += size * np.dtype(kind).itemsize
        if not np.isfinite(stats[name]).all():
            raise ValueError("entry holds a value that is not finite")
        if stats[name].sum(axis=0).tobytes() != sums.tobytes():
            raise ValueError("entry's values do not add up to its head's sums")
    return stats


@dataclass(frozen=True)
class CellHead:
    """What a cell entry's header says: its metrics' row count and column sums (the report
    needs only these)."""

    rows: int
    sums: dict[str, np.ndarray]


class StoredCell(Mapping):
    """A cached cell's statistics, read when first asked for: `sums` (each metric's column
    sums, from the checked header) at once, the per-row arrays (what persistence, agreement
    and paired tests use) on the first `cell[metric]`. An entry whose payload is found
    damaged then is removed (named in the cache's `damaged`) and the cell is computed again
    by `recompute()` (-> {metric: array}), so damage is never trusted, only found later."""

    def __init__(self, cache: "CellCache", key: str, head: CellHead, widths, what,
                 recompute: Callable[[], Mapping[str, np.ndarray]]):
        self.sums = head.sums
        self._cache, self._key, self._widths, self._what = cache, key, widths, what
        self._recompute, self._stats = recompute, None
        self.recomputed = False   # its rows were found damaged and computed again

    def _load(self) -> dict[str, np.ndarray]:
        if self._stats is None:
            stats = self._cache.get(self._key, self._widths, self._what)
            if stats is None or set(stats) != set(self.sums):
                stats = {m: np.ascontiguousarray(a, dtype=np.float64)
                         for m, a in self._recompute().items()}
                self._cache.put(self._key, stats)
                self.recomputed = True
            self._stats = stats
        return self._stats

    def __getitem__(self, metric: str) -> np.ndarray:
        return self._load()[metric]

    def __contains__(self, metric) -> bool:
        return metric in self.sums

    def __iter__(self):
        return iter(self.sums)

    def __len__(self) -> int:
        return len(self.sums)


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

    def head(self, key: str, widths: Mapping[str, int] | None = None, what: str | None = None
             ) -> CellHead | None:
        """What the header of cell `key` says, or None (absent, or damaged: then removed), from
        its first bytes and its size, with the checks of `get` but the payload's: a regular
        file of bounded size, a header whose checksum, key, format, shapes, sums and widths
        hold, one row count, and as many bytes as the shapes say. The payload is checked when
        it is read (`StoredCell`)."""
        path = os.path.join(self.root, key[:2], key + ".cell")   # self.path(key), quicker
        try:
            data, size = read_head(path, HEAD_READ, MAX_ENTRY_BYTES)
            if b"\n" not in data and size > len(data):   # a long header: read it whole
                data = read_head(path, MAX_HEADER_BYTES, MAX_ENTRY_BYTES)[0]
            checked = _header(data, key, size)
            if isinstance(checked, int):   # many sums: read the whole head
                checked = _header(read_head(path, checked, MAX_ENTRY_BYTES)[0], key, size)
            if isinstance(checked, int):
                raise ValueError("entry is shorter than its head")
            header = checked[0]
            rows = {shape[0] for shape in header["shapes"]}
            if len(rows) > 1 or any(
                    widths and m in widths and shape[1] != widths[m]
                    for m, shape in zip(header["metrics"], header["shapes"])):
                raise ValueError("entry has arrays of the wrong shape")
        except FileNotFoundError:
            return None
        except Exception:  # any damage at all (not a regular file too): never trust it
            self._discard(Path(path), what)
            return None
        return CellHead(rows=rows.pop() if rows else 0,
                        sums=dict(zip(header["metrics"], header["sums"])))

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

    def put(self, key: str, stats: Mapping[str, np.ndarray]) -> CellHead | None:
        """Store cell `key`; returns its head as `head` will read it back (the sums of the
        entry's own header), None when `head` would refuse it (sums not finite, arrays not
        2-D: it is stored all the same, and found damaged when read)."""
        data = _pack(key, stats)
        self._write(self.path(key), data)
        try:
            header = _header(data, key, len(data))[0]
        except ValueError:
            return None
        rows = {shape[0] for shape in header["shapes"]}
        return CellHead(rows=rows.pop() if rows else 0,
                        sums=dict(zip(header["metrics"], header["sums"])))

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
