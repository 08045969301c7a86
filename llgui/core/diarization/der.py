"""Diarization error rate (DER) and Jaccard error rate (JER), exact and fast, as pyannote.metrics.

The fast path (`der_components`, `jer_components`) sorts every turn boundary once with numpy,
counts the reference and hypothesis turns of each speaker on every elementary interval (one
cumulative sum), cuts the intervals with the scored spans (the UEM minus collars and, with
skip_overlap, reference overlap, extruded exactly as pyannote does) into the pieces pyannote
scores, builds the speaker co-occurrence matrix and finds the optimal one-to-one mapping with
`scipy.optimize.linear_sum_assignment`, breaking ties as pyannote does (its label renaming
decides the row and column order) — the computation of pyannote.metrics 4.2
(`DiarizationErrorRate`, `JaccardErrorRate`), re-expressed on arrays. About 2-3 ms for an hour
of audio with 1,000 turns per side, where pyannote takes about a second. Tests hold it equal to the
library to 1e-9 (seconds and percent); `pyannote_der_components` and `pyannote_jer_components`
(in `llgui.core.diarization.reference`, beside `llgui.core.verify`, their user)
run the library itself, for tests, the benchmark and the GUI's "exact re-check". The sweep
(the arrays, the elementary intervals, the scored pieces) is `llgui.core.diarization.sweep`.

Conventions, all pyannote's (DESIGN.md section 2):

- `collar` is the TOTAL width in seconds of the no-score zone centred on every reference
  boundary: md-eval's / dscore's `-c 0.25` (each side) is `collar=0.5` here.
- `skip_overlap=True` removes every region where two or more reference turns overlap (a
  speaker overlapping itself counts, as in pyannote) from both reference and hypothesis.
- `uem` is the scored extent as (start, end) pairs in seconds. Without one, the scored extent
  is the union of the reference and hypothesis extents (one span from the earliest start to
  the latest end of either); the components say which was used (`uem_given`, `uem_used`).
- Every turn is its own track, as `pyannote.database.load_rttm` builds them: two turns of one
  speaker that overlap both count, in the reference (two reference "speakers" there, one of
  which can only be missed) and in the hypothesis.
- pyannote ignores anything shorter than its `SEGMENT_PRECISION` (1 microsecond): turns,
  UEM pieces, collars and elementary intervals of that length or less are dropped here too.
  Where distinct boundaries lie less than 1 microsecond apart, pyannote's set operations and
  this sweep can disagree by such slivers (sub-microsecond times); the speaker mapping can
  also differ on exact ties of the co-occurrence matrix that are broken by rounding
  differently (never by more than rounding, and never in DER unless a speaker overlaps
  itself). Neither happens with times on a millisecond grid.
- `unmappable` hypothesis labels may never be mapped to a reference speaker (the impaired
  hypothesis of DESIGN.md 1.2): their speech is confusion or false alarm, never correct.

DER components are seconds; `der` is a percentage, `100 * (confusion + false_alarm + miss) /
total`, and, as in pyannote, 0 when nothing was scored and nothing was wrong, 100 when there
was an error but no reference speech. JER is a percentage too; pooled JER is the summed
per-speaker errors over the summed speaker count, as pyannote accumulates it (100 for no
reference speaker at all, pyannote's value).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from string import ascii_uppercase
from types import MappingProxyType
from typing import Collection, Iterable, Mapping, Sequence

import numpy as np

from llgui.core.types import Turn
from llgui.core.diarization.sweep import SEGMENT_PRECISION, Span, _Sweep, _sweep

__all__ = [
    "DERComponents", "JERComponents", "DERMetric", "JERMetric", "SEGMENT_PRECISION",
    "der_components", "jer_components", "error_regions", "optimal_mapping", "pyannote_version",
    "uem_mode",
]


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class DERComponents:
    """DER of one document (or a sum of documents' seconds), pyannote's components.

    Seconds: `miss`, `false_alarm`, `confusion`, `correct`, `total` (reference speech time,
    counted once per reference turn active). `mapping` is the optimal mapping used, hypothesis
    label -> reference label (only pairs that co-occur, as pyannote). `uem_used` is the extent
    before collars and overlap were removed: the given UEM (`uem_given`), or the union of the
    reference and hypothesis extents; `scored` is what was finally scored, as sorted disjoint
    (start, end) pairs (the UEM minus collars and, with skip_overlap, reference overlap).
    """

    miss: float
    false_alarm: float
    confusion: float
    correct: float
    total: float
    mapping: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    uem_used: tuple[Span, ...] = ()
    uem_given: bool = False
    scored: tuple[Span, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.mapping, MappingProxyType):
            object.__setattr__(self, "mapping", MappingProxyType(dict(self.mapping)))

    @property
    def error(self) -> float:
        """confusion + false alarm + miss, seconds (pyannote's order of summation)."""
        return self.confusion + self.false_alarm + self.miss

    @property
    def der(self) -> float:
        """Percent. 0 if nothing was scored and nothing was wrong; 100 if errors but no total."""
        return der_from_seconds(self.error, self.total)

    @property
    def scored_extent(self) -> Span | None:
        """(start, end) of the extent scored before collars / overlap, None if nothing."""
        if not self.uem_used:
            return None
        return (self.uem_used[0][0], self.uem_used[-1][1])

    def as_stats(self) -> np.ndarray:
        """[miss, false_alarm, confusion, correct, total] seconds: additive across documents."""
        return np.array([self.miss, self.false_alarm, self.confusion, self.correct, self.total],
                        dtype=float)


@dataclass(frozen=True)
class JERComponents:
    """JER of one document: per-reference-speaker Jaccard errors and their number.

    `speaker_error` is the sum over reference speakers of (FA + miss) / union for the speaker's
    mapped hypothesis speaker (1 for an unmapped reference speaker); `speaker_count` the number
    of reference speakers in the scored extent. `per_speaker` gives each speaker's error (0..1)
    and `mapping` the optimal mapping, reference label -> hypothesis label.
    """

    speaker_error: float
    speaker_count: float
    mapping: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    per_speaker: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    uem_used: tuple[Span, ...] = ()
    uem_given: bool = False

    def __post_init__(self) -> None:
        for name in ("mapping", "per_speaker"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    @property
    def jer(self) -> float:
        """Percent; 100 when there is no reference speaker (pyannote's value)."""
        return jer_from_stats(self.speaker_error, self.speaker_count)

    def as_stats(self) -> np.ndarray:
        """[speaker_error, speaker_count]: additive across documents (pooled as pyannote)."""
        return np.array([self.speaker_error, self.speaker_count], dtype=float)


def der_from_seconds(error: float, total: float) -> float:
    """DER percent from error and reference seconds, with pyannote's 0/0 and x/0 values."""
    if total == 0.0:
        return 0.0 if error == 0 else 100.0
    return 100.0 * (error / total)


def jer_from_stats(speaker_error: float, speaker_count: float) -> float:
    if speaker_count > 0.0:
        return 100.0 * (speaker_error / speaker_count)
    return 100.0


# --------------------------------------------------------------------------------------------
# The optimal mapping, with pyannote's label order (it decides how ties are broken)


@lru_cache(maxsize=64)
def _string_names(n: int) -> tuple[str, ...]:
    """pyannote.core's string_generator: A..Z, AA..ZZ, AAA..."""
    names: list[str] = []
    r = 1
    while len(names) < n:
        for c in itertools.product(ascii_uppercase, repeat=r):
            names.append("".join(c))
            if len(names) == n:
                break
        r += 1
    return tuple(names)


def _pyannote_order_int(n: int) -> np.ndarray:
    """Order of labels renamed 0..n-1 ("int" generator) once pyannote sorts them by str."""
    return np.array(sorted(range(n), key=str), dtype=np.intp)


def _pyannote_order_string(n: int) -> np.ndarray:
    names = _string_names(n)
    return np.array(sorted(range(n), key=lambda i: names[i]), dtype=np.intp)


def _linear_sum_assignment(cost: np.ndarray):
    from scipy.optimize import linear_sum_assignment  # scipy.optimize is slow to import

    return linear_sum_assignment(cost)


def _cooccurrence(sw: _Sweep, ref_idx: np.ndarray, hyp_idx: np.ndarray) -> np.ndarray:
    """(len(hyp_idx), len(ref_idx)) seconds of co-occurrence, counting every pair of turns
    (Annotation.__mul__), over the scored extent.

    Intervals of SEGMENT_PRECISION or less are left out: pyannote does not see two turns that
    overlap by less than that as intersecting (`Segment.intersects`), and a sliver such as
    0.3 vs 0.1 + 0.2 must not create a mapping pyannote would not make.
    """
    return sw.hyp[hyp_idx] @ (sw.ref[ref_idx] * sw.w).T


def _hungarian(sw: _Sweep, unmappable: Collection[str],
               reference_rows: bool = False) -> list[tuple[int, int]]:
    """pyannote's Hungarian mapping as label-index pairs.

    DiarizationErrorRate puts hypothesis labels in rows: (hyp, ref) pairs. JaccardErrorRate
    transposes the matrix (`reference_rows`): (ref, hyp) pairs; with ties the two can differ.
    Labels in `unmappable` take no part.
    """
    hyp_idx = sw.hyp_present
    if unmappable:
        blocked = set(unmappable)
        hyp_idx = np.array([i for i in hyp_idx if sw.hyp_turns.names[i] not in blocked],
                           dtype=np.intp)
    ref_idx = sw.ref_present
    if hyp_idx.size == 0 or ref_idx.size == 0:
        return []
    # hypothesis -> 0, 1, ... ("int"), reference -> A, B, ... ("string"), each sorted by str.
    hyp_idx = hyp_idx[_pyannote_order_int(hyp_idx.size)]
    ref_idx = ref_idx[_pyannote_order_string(ref_idx.size)]
    co = _cooccurrence(sw, ref_idx, hyp_idx)
    rows_idx, cols_idx = hyp_idx, ref_idx
    if reference_rows:
        co, rows_idx, cols_idx = co.T, ref_idx, hyp_idx
    rows, cols = _linear_sum_assignment(-co)
    return [(int(rows_idx[a]), int(cols_idx[b])) for a, b in zip(rows, cols) if co[a, b] > 0]


def _mapping_pairs(sw: _Sweep, mapping: Mapping[str, str]) -> list[tuple[int, int]]:
    """A given hyp -> ref mapping as index pairs (labels absent from the scored region skipped)."""
    h_index = {sw.hyp_turns.names[i]: int(i) for i in sw.hyp_present}
    r_index = {sw.ref_turns.names[i]: int(i) for i in sw.ref_present}
    return [(h_index[h], r_index[r]) for h, r in mapping.items() if h in h_index and r in r_index]


def _per_interval(sw: _Sweep, pairs: list[tuple[int, int]]):
    """(weight, n_ref, n_hyp, n_correct) per interval; the weight is 0 where not scored."""
    d, r, h = sw.w, sw.ref, sw.hyp
    nr = r.sum(axis=0)
    nh = h.sum(axis=0)
    if pairs:
        hi = np.array([p[0] for p in pairs], dtype=np.intp)
        ri = np.array([p[1] for p in pairs], dtype=np.intp)
        # LabelMatcher: the best one-to-one matching of tracks, i.e. per mapped label
        # min(#hyp tracks, #ref tracks).
        correct = np.minimum(h[hi], r[ri]).sum(axis=0)
    else:
        correct = np.zeros_like(nr)
    return d, nr, nh, correct


def _der_from_sweep(sw: _Sweep, pairs: list[tuple[int, int]]) -> DERComponents:
    d, nr, nh, correct = _per_interval(sw, pairs)
    both = np.minimum(nr, nh)
    mapping = {sw.hyp_turns.names[h]: sw.ref_turns.names[r] for h, r in pairs}
    return DERComponents(
        miss=float(d @ np.maximum(nr - nh, 0)),
        false_alarm=float(d @ np.maximum(nh - nr, 0)),
        confusion=float(d @ (both - correct)),
        correct=float(d @ correct),
        total=float(d @ nr),
        mapping=mapping,
        uem_used=sw.uem_used,
        uem_given=sw.uem_given,
        scored=sw.scored_spans,
    )


# --------------------------------------------------------------------------------------------
# Public fast path


def der_components(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> DERComponents:
    """DER components of one document, equal to pyannote's DiarizationErrorRate to 1e-9.

    `reference`, `hypothesis`: turns in seconds (any order). `uem`: (start, end) pairs or None
    (union of the reference and hypothesis extents). `collar`: total width in seconds.
    `unmappable`: hypothesis labels never mapped to a reference speaker.
    """
    sw = _sweep(reference, hypothesis, uem, float(collar), bool(skip_overlap))
    return _der_from_sweep(sw, _hungarian(sw, unmappable))


def optimal_mapping(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> dict[str, str]:
    """DiarizationErrorRate's optimal mapping, hypothesis label -> reference label."""
    return dict(der_components(reference, hypothesis, uem, collar, skip_overlap,
                               unmappable).mapping)


def jer_components(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> JERComponents:
    """JER components of one document, equal to pyannote's JaccardErrorRate to 1e-9.

    Same arguments as `der_components`. An unmappable label's speech counts for nothing in JER
    (only mapped hypothesis speakers enter it), except in the default extent it helps span.
    """
    sw = _sweep(reference, hypothesis, uem, float(collar), bool(skip_overlap))
    pairs = dict(_hungarian(sw, unmappable, reference_rows=True))
    d = sw.w_all
    ref = sw.ref > 0
    hyp = sw.hyp > 0
    per_speaker: dict[str, float] = {}
    error = 0.0
    for r in sw.ref_present:
        name = sw.ref_turns.names[r]
        h = pairs.get(int(r))
        if h is None:
            jer = 1.0
        else:
            r_on, h_on = ref[r], hyp[h]
            r_dur = float(d @ r_on)
            h_dur = float(d @ h_on)
            inter = float(d @ (r_on & h_on))
            union = float(d @ (r_on | h_on))
            fa = h_dur - inter
            miss = r_dur - inter
            jer = (fa + miss) / union
        per_speaker[name] = jer
        error += jer
    return JERComponents(
        speaker_error=error,
        speaker_count=float(len(sw.ref_present)),
        mapping={sw.ref_turns.names[r]: sw.hyp_turns.names[h] for r, h in pairs.items()},
        per_speaker=per_speaker,
        uem_used=sw.uem_used,
        uem_given=sw.uem_given,
    )


ERROR_KINDS = ("correct", "confusion", "miss", "false_alarm")


class RegionList(list):
    """`error_regions`' (start, end, kind) tuples, with the arrays they were made from:
    `arrays` = (starts, ends, kind indices into ERROR_KINDS), read-only, in the same order.
    A timeline draws from those (a 10-hour show has ~10,000 regions a step: made into
    tuples, then read back into arrays, cost ~25 ms a step)."""

    arrays: tuple | None = None


class RegionTuple(tuple):
    """A `RegionList` as a tuple (a step view's, cached by identity), its `arrays` kept."""

    arrays: tuple | None = None


def region_tuple(regions) -> tuple:
    """`regions` as a tuple, keeping a `RegionList`'s arrays."""
    if isinstance(regions, RegionTuple):
        return regions
    out = RegionTuple(regions)
    out.arrays = getattr(regions, "arrays", None)
    return out


def error_regions(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    mapping: Mapping[str, str] | None = None,
    unmappable: Collection[str] = (),
) -> list[tuple[float, float, str]]:
    """Where the DER's seconds come from, for colouring a timeline.

    Returns (start, end, kind) in seconds, kind in `ERROR_KINDS`, sorted by start then kind;
    runs of one kind are merged. In overlap, one stretch can carry several kinds (one
    speaker correct, another missed). `mapping` (hypothesis -> reference) defaults to the
    optimal one. Regions outside the scored extent (collars, skipped overlap) carry no kind.
    """
    sw = _sweep(reference, hypothesis, uem, float(collar), bool(skip_overlap))
    pairs = (_hungarian(sw, unmappable) if mapping is None
             else _mapping_pairs(sw, mapping))
    if sw.piece_start.size == 0:
        return []
    _, nr, nh, correct = _per_interval(sw, pairs)
    k = sw.piece_interval
    counts = {
        "correct": correct[k],
        "confusion": (np.minimum(nr, nh) - correct)[k],
        "miss": np.maximum(nr - nh, 0)[k],
        "false_alarm": np.maximum(nh - nr, 0)[k],
    }
    # runs of one kind: consecutive pieces, each starting where the last ended (numpy; a
    # 10-hour show has ~40,000 pieces)
    ps, pe = sw.piece_start, sw.piece_end
    runs = {}
    for kind in ERROR_KINDS:
        on = np.flatnonzero(counts[kind] > 0)
        if on.size == 0:
            continue
        goes_on = np.zeros(on.size, dtype=bool)
        goes_on[1:] = (on[1:] == on[:-1] + 1) & (ps[on[1:]] == pe[on[:-1]])
        first = np.flatnonzero(~goes_on)
        last = np.append(first[1:], on.size) - 1
        runs[kind] = (ps[on[first]], pe[on[last]])
    return region_list(runs)


def region_list(runs: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> list:
    """Each kind's runs (kind -> (starts, ends), as `IncrementalDER.error_region_arrays`
    keeps them) as `error_regions` gives them: a `RegionList` sorted by start, then kind."""
    parts = [(rank, runs[kind]) for rank, kind in enumerate(ERROR_KINDS)
             if kind in runs and len(runs[kind][0])]
    if not parts:
        return []
    start = np.concatenate([np.asarray(s, dtype=float) for _, (s, _) in parts])
    end = np.concatenate([np.asarray(e, dtype=float) for _, (_, e) in parts])
    rank = np.concatenate([np.full(len(s), r) for r, (s, _) in parts])
    order = np.lexsort((rank, start))   # by start, then kind
    start, end, rank = start[order], end[order], rank[order]
    out = RegionList(zip(start.tolist(), end.tolist(), [ERROR_KINDS[k] for k in rank.tolist()]))
    for a in (start, end, rank):
        a.flags.writeable = False
    out.arrays = (start, end, rank)
    return out


def error_pieces(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    mapping: Mapping[str, str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Where the DER's error seconds lie, with their weight: (starts, ends, errors per
    second, UEM seconds). `errors per second` of a piece is its missed + false alarm +
    confused speakers (max(n_ref, n_hyp) - n_correct under `mapping`, default the optimal
    one), so sum(errors x (ends - starts)) is the DER's error seconds. Only pieces with
    errors are returned (sorted, disjoint); the UEM seconds count the whole extent used
    (collars and skipped overlap included: they hold no error). The question value's pool
    (`llgui.core.effort`)."""
    sw = _sweep(reference, hypothesis, uem, float(collar), bool(skip_overlap))
    pairs = (_hungarian(sw, ()) if mapping is None else _mapping_pairs(sw, mapping))
    uem_seconds = float(sum(b - a for a, b in sw.uem_used))
    if sw.piece_start.size == 0:
        empty = np.empty(0)
        return empty, empty, empty, uem_seconds
    _, nr, nh, correct = _per_interval(sw, pairs)
    count = (np.maximum(nr, nh) - correct)[sw.piece_interval]
    on = count > 0
    return sw.piece_start[on], sw.piece_end[on], count[on].astype(float), uem_seconds


# --------------------------------------------------------------------------------------------
# Metric objects (llgui.core.track.Metric)


def pyannote_version() -> str:
    """The installed pyannote.metrics version, for signatures (read from metadata: importing
    the library is slow and stays off the scoring path)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyannote.metrics")
    except PackageNotFoundError:  # pragma: no cover - a broken environment
        return "unknown"


UEM_MODES = {
    "auto": "given-or-union",
    "given": "given",
    "union": "union",
}
"""How documents' scored extents were chosen, as the signature states it: `given` (every
document had a UEM), `union` (none had: pyannote's default, the union of the reference and
hypothesis extents), `auto` (each document its UEM if given, else that union)."""


def uem_mode(uems: Iterable[object]) -> str:
    """The `uem` argument of DERMetric / JERMetric for documents with these UEMs (None = none)."""
    given = [u is not None for u in uems]
    if given and all(given):
        return "given"
    if not any(given):
        return "union"
    return "auto"


class _DiarMetric:
    name = "?"
    higher_is_better = False

    def __init__(self, collar: float = 0.0, skip_overlap: bool = False, uem: str = "auto"):
        collar = float(collar)
        if not collar >= 0.0:
            raise ValueError(f"collar must be a number >= 0 (seconds, total width), not {collar!r}")
        if uem not in UEM_MODES:
            raise ValueError(f"uem must be one of {', '.join(UEM_MODES)}, not {uem!r}")
        self.collar = collar
        self.skip_overlap = bool(skip_overlap)
        self.uem = uem
        self._signature: str | None = None

    @property
    def signature(self) -> str:
        """e.g. `der|collar:0.5|skip_overlap:no|uem:given|pyannote.metrics:4.2.0`. The collar
        is pyannote's total width in seconds (md-eval's `-c 0.25` is `collar:0.5`)."""
        if self._signature is None:
            self._signature = (
                f"{self.name}|collar:{self.collar:g}|skip_overlap:"
                f"{'yes' if self.skip_overlap else 'no'}|uem:{UEM_MODES[self.uem]}"
                f"|pyannote.metrics:{pyannote_version()}"
            )
        return self._signature

    @property
    def description(self) -> str:
        """The signature in words, for tooltips."""
        return (f"{self.name.upper()} as pyannote.metrics computes it: collar {self.collar:g} s "
                f"total width ({self.collar / 2:g} s each side of every reference boundary), "
                f"overlap {'skipped' if self.skip_overlap else 'scored'}, scored extent "
                f"{UEM_MODES[self.uem]}")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(collar={self.collar!r}, "
                f"skip_overlap={self.skip_overlap!r}, uem={self.uem!r})")

    def evaluate(self, reference: Sequence[Turn], hypothesis: Sequence[Turn],
                 uem: Iterable[Span] | None = None, unmappable: Collection[str] = ()):
        raise NotImplementedError

    def stats(self, reference: Sequence[Turn], hypothesis: Sequence[Turn],
              uem: Iterable[Span] | None = None, unmappable: Collection[str] = ()) -> np.ndarray:
        """The additive statistics of one document (see the subclass for the layout)."""
        return self.evaluate(reference, hypothesis, uem, unmappable).as_stats()


class DERMetric(_DiarMetric):
    """DER as a `Metric`: stats are [miss, false_alarm, confusion, correct, total] seconds."""

    name = "der"

    def evaluate(self, reference: Sequence[Turn], hypothesis: Sequence[Turn],
                 uem: Iterable[Span] | None = None,
                 unmappable: Collection[str] = ()) -> DERComponents:
        return der_components(reference, hypothesis, uem, self.collar, self.skip_overlap,
                              unmappable)

    def score(self, stats: np.ndarray) -> float:
        miss, fa, confusion, _, total = (float(x) for x in stats)
        return der_from_seconds(confusion + fa + miss, total)

    def errors(self, stats: np.ndarray) -> tuple[float, float]:
        miss, fa, confusion, _, total = (float(x) for x in stats)
        return (confusion + fa + miss, total)

    def scored(self, stats: np.ndarray) -> bool:
        """False when no reference time was scored (UEM outside the speech, collars wider
        than the turns): pyannote's 0 % then measures nothing."""
        return float(stats[4]) > 0.0

    def components(self, stats: np.ndarray) -> dict[str, float]:
        """Seconds, under the names of the CLI's JSON (DESIGN.md section 7)."""
        miss, fa, confusion, correct, total = (float(x) for x in stats)
        return {"miss": miss, "false_alarm": fa, "confusion": confusion, "correct": correct,
                "total": total}


class JERMetric(_DiarMetric):
    """JER as a `Metric`: stats are [summed per-speaker errors, number of reference speakers]."""

    name = "jer"

    def evaluate(self, reference: Sequence[Turn], hypothesis: Sequence[Turn],
                 uem: Iterable[Span] | None = None,
                 unmappable: Collection[str] = ()) -> JERComponents:
        return jer_components(reference, hypothesis, uem, self.collar, self.skip_overlap,
                              unmappable)

    def score(self, stats: np.ndarray) -> float:
        return jer_from_stats(float(stats[0]), float(stats[1]))

    def errors(self, stats: np.ndarray) -> None:
        return None

    def scored(self, stats: np.ndarray) -> bool:
        """False when no reference speaker was scored (pyannote's 100 % measures nothing)."""
        return float(stats[1]) > 0.0

    def components(self, stats: np.ndarray) -> dict[str, float]:
        return {"speaker_error": float(stats[0]), "speaker_count": float(stats[1])}
