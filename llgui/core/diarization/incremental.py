"""DER of a hypothesis that changes in places: only the changed region is swept again.

With the speaker mapping fixed, every DER component is a sum over the scored pieces of the
timeline (miss, false alarm, the seconds where both sides speak, reference speech), and so are
the two matrices the mapping needs: the co-occurrence of each hypothesis label with each
reference label (pyannote's mapping maximises it) and the per-pair matched seconds (pyannote's
LabelMatcher counts min(#hyp turns, #ref turns) of a mapped pair). The scored pieces are a
function of the reference and the UEM alone (collars and skipped overlap come from the
reference), so a hypothesis that differs from the current one only inside [a, b] changes these
sums only inside [a, b]: sweep the turns around [a, b] before and after, swap the region's
sums, and solve the mapping again on the updated (labels x labels) matrix, with pyannote's
label order for ties. The cost depends on the region and the number of speakers, not on the
length of the show.

Exactness: [a, b] is widened to points at least 2 microseconds from every boundary the sweep
cuts at (turn edges, collar edges, UEM edges), so no piece is split into a sliver pyannote
would drop; sums are cleaned of float residues below 1e-9 s (real overlaps are at least 1e-6 s).
A change of the hypothesis' extent when no UEM is given (the scored extent is then the union
of both sides' extents) falls back to a full sweep, as does a region covering most of the show.
Tests hold every result equal to `der_components` (and so to pyannote.metrics) on random logs.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from functools import lru_cache
from operator import attrgetter
from typing import Collection, Sequence

import numpy as np

from llgui.core.diarization.der import (
    DERComponents, JERComponents, _linear_sum_assignment, _pyannote_order_int, _pyannote_order_string, _sweep,
    ERROR_KINDS, der_components, error_regions, jer_components,
)
from llgui.core.diarization.small_sweep import SMALL, small_sums
from llgui.core.types import Turn
from llgui.utils.common_ends import equal_ends

_START, _END, _SPEAKER = attrgetter("start"), attrgetter("end"), attrgetter("speaker")
EPS = 1e-9         # float residues of swapped sums below this are zeros
CLEARANCE = 2e-6   # region edges keep this far from every cut of the sweep


class _Sums:
    """The additive sums of one sweep, keyed by label names."""

    __slots__ = ("miss", "fa", "both", "total", "co", "matched", "hyp_time", "ref_time",
                 "inter", "hyp_on", "ref_on")

    def __init__(self):
        self.miss = self.fa = self.both = self.total = 0.0
        self.co: dict[tuple[str, str], float] = {}
        self.matched: dict[tuple[str, str], float] = {}
        self.hyp_time: dict[str, float] = {}
        self.ref_time: dict[str, float] = {}
        # JER: seconds (slivers kept, as pyannote's label timelines) where a label speaks,
        # and where a hypothesis label and a reference label both speak
        self.inter: dict[tuple[str, str], float] = {}
        self.hyp_on: dict[str, float] = {}
        self.ref_on: dict[str, float] = {}

    @classmethod
    def of(cls, reference, hypothesis, uem, collar, skip_overlap) -> "_Sums":
        sums = cls()
        if uem is not None and len(reference) + len(hypothesis) <= SMALL:
            return small_sums(sums, reference, hypothesis, uem, collar, skip_overlap)
        sw = _sweep(reference, hypothesis, uem, collar, skip_overlap)
        d, r, h = sw.w, sw.ref, sw.hyp
        if d.size == 0:
            return sums
        nr, nh = r.sum(axis=0), h.sum(axis=0)
        sums.miss = float(d @ np.maximum(nr - nh, 0))
        sums.fa = float(d @ np.maximum(nh - nr, 0))
        sums.both = float(d @ np.minimum(nr, nh))
        sums.total = float(d @ nr)
        hyp_names, ref_names = sw.hyp_turns.names, sw.ref_turns.names
        co_array = h @ (r * d).T
        co = co_array.tolist()
        if h.shape[0] * r.shape[0] * d.size <= 1 << 16:
            # all pairs at once: a step's region holds a few turns
            matched = (np.minimum(h[:, None, :], r[None, :, :]) @ d).tolist()
        else:     # a whole show: only the pairs that co-occur, one at a time
            matched = np.zeros(co_array.shape)
            for i, j in zip(*np.nonzero(co_array > 0)):
                matched[i, j] = d @ np.minimum(h[i], r[j])
            matched = matched.tolist()
        wa = sw.w_all
        h_on, r_on = (h > 0).astype(float), (r > 0).astype(float)
        inter = (h_on @ (r_on * wa).T).tolist()
        sums.hyp_time = dict(zip(hyp_names, (h @ d).tolist()))
        sums.ref_time = dict(zip(ref_names, (r @ d).tolist()))
        sums.hyp_on = dict(zip(hyp_names, (h_on @ wa).tolist()))
        sums.ref_on = dict(zip(ref_names, (r_on @ wa).tolist()))
        for i, hn in enumerate(hyp_names):
            co_i, matched_i, inter_i = co[i], matched[i], inter[i]
            for j, rn in enumerate(ref_names):
                if co_i[j] > 0:
                    sums.co[(hn, rn)] = co_i[j]
                    sums.matched[(hn, rn)] = matched_i[j]
                if inter_i[j] > 0:
                    sums.inter[(hn, rn)] = inter_i[j]
        return sums

    def swapped(self, old: "_Sums", new: "_Sums") -> "_Sums":
        """self - old + new, residues below EPS set to zero."""
        out = _Sums()
        clean = _clean
        out.miss = clean(self.miss - old.miss + new.miss)
        out.fa = clean(self.fa - old.fa + new.fa)
        out.both = clean(self.both - old.both + new.both)
        out.total = clean(self.total - old.total + new.total)
        for name in ("co", "matched", "hyp_time", "ref_time", "inter", "hyp_on", "ref_on"):
            merged = dict(getattr(self, name))
            for key, value in getattr(old, name).items():
                merged[key] = merged.get(key, 0.0) - value
            for key, value in getattr(new, name).items():
                merged[key] = merged.get(key, 0.0) + value
            setattr(out, name, {k: v for k, v in merged.items() if abs(v) > EPS})
        return out

    def _labels(self, unmappable: Collection[str]) -> tuple[list, list, list, list]:
        """The labels with scored speech, sorted by str (hypothesis ones in `unmappable`
        left out), and the same in pyannote's label order (its mapping's tie order)."""
        blocked = set(unmappable)
        hyp = sorted((h for h, t in self.hyp_time.items() if t > 0 and h not in blocked),
                     key=str)
        ref = sorted((r for r, t in self.ref_time.items() if t > 0), key=str)
        hyp_order, ref_order = _orders(len(hyp), len(ref))
        return hyp, ref, [hyp[i] for i in hyp_order], [ref[i] for i in ref_order]

    def components(self, unmappable: Collection[str] = ()) -> DERComponents:
        """DER components with pyannote's optimal mapping (ties broken in its label order)."""
        _, _, hyp, ref = self._labels(unmappable)
        pairs: list[tuple[str, str]] = []
        if hyp and ref:
            get = self.co.get
            pairs = _mapped(hyp, ref, [[get((h, r), 0.0) for r in ref] for h in hyp])
        correct = _clean(sum(self.matched.get(p, 0.0) for p in pairs))
        return DERComponents(miss=max(self.miss, 0.0), false_alarm=max(self.fa, 0.0),
                             confusion=max(_clean(self.both - correct), 0.0),
                             correct=max(correct, 0.0), total=max(self.total, 0.0),
                             mapping=dict(pairs))

    def jer(self, unmappable: Collection[str] = ()) -> JERComponents:
        """JER components as `jer_components`: JaccardErrorRate's mapping (reference labels
        in rows, ties broken in pyannote's label order), one Jaccard error per reference
        speaker, summed in label order."""
        _, ref, hyp_o, ref_o = self._labels(unmappable)
        pairs: dict[str, str] = {}
        if hyp_o and ref_o:
            get = self.co.get
            pairs = dict(_mapped(ref_o, hyp_o, [[get((h, r), 0.0) for h in hyp_o]
                                                for r in ref_o]))
        per_speaker: dict[str, float] = {}
        error = 0.0
        for r in ref:
            h = pairs.get(r)
            if h is None:
                jer = 1.0
            else:
                r_dur, h_dur = self.ref_on.get(r, 0.0), self.hyp_on.get(h, 0.0)
                inter = self.inter.get((h, r), 0.0)
                union = r_dur + h_dur - inter
                jer = ((h_dur - inter) + (r_dur - inter)) / union
            per_speaker[r] = jer
            error += jer
        return JERComponents(speaker_error=error, speaker_count=float(len(ref)),
                             mapping=pairs, per_speaker=per_speaker)


@lru_cache(maxsize=256)
def _orders(n_hyp: int, n_ref: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """pyannote's label orders of n_hyp hypothesis and n_ref reference labels (sorted by
    str), kept: each step's four mappings ask for the same few sizes."""
    return (tuple(_pyannote_order_int(n_hyp).tolist()),
            tuple(_pyannote_order_string(n_ref).tolist()))


def _mapped(rows: list, cols: list, co: list[list[float]]) -> list[tuple]:
    """pyannote's Hungarian mapping of the `rows` labels to the `cols` labels on the
    co-occurrence `co` (rows x cols seconds), pairs that co-occur only."""
    at_rows, at_cols = _linear_sum_assignment(-np.array(co))
    return [(rows[a], cols[b]) for a, b in zip(at_rows.tolist(), at_cols.tolist())
            if co[a][b] > 0]


def _clean(value: float) -> float:
    return 0.0 if abs(value) <= EPS else value


def _raw(turns: Sequence[Turn]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts, ends and labels of a turn list, in its own order (to diff two lists)."""
    n = len(turns)
    # attrgetter keeps the per-turn work in C: this is the one pass over a new turn list
    speakers = np.empty(n, dtype=object)
    speakers[:] = list(map(_SPEAKER, turns))
    return (np.fromiter(map(_START, turns), dtype=float, count=n),
            np.fromiter(map(_END, turns), dtype=float, count=n), speakers)


def _arrays(turns: Sequence[Turn]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Starts, ends (by start) and the order, of a turn list."""
    n = len(turns)
    starts = np.fromiter((t.start for t in turns), dtype=float, count=n)
    ends = np.fromiter((t.end for t in turns), dtype=float, count=n)
    order = np.argsort(starts, kind="stable")
    return starts[order], ends[order], order


LIST_LIMIT = 2000
"""Turns up to which a hypothesis' sorted starts and ends are made Python lists for bisection
(`_searchable`); a longer one is bisected as its numpy arrays."""


def _searchable(array: np.ndarray):
    """`array` as bisection reads it fastest over a step: a list (a probe costs ~50 ns) for
    a short hypothesis; the array itself (a probe ~150 ns, a numpy scalar) for a long one,
    whose lists cost more to make at every step than all its probes (10,000 turns: ~0.8 ms
    a step, most of a 10-hour show's step, which then grew 2.5-fold from an hour's). The
    values compared are the same doubles either way."""
    return array.tolist() if array.size <= LIST_LIMIT else array


def _lists(starts: np.ndarray, ends: np.ndarray, order: np.ndarray) -> tuple:
    """`_arrays`' starts, ends and order for `_around` (`_searchable`): a step looks up the
    turns around its windows a dozen times, and a bisection costs a microsecond or two where
    a numpy search and mask cost tens (their call overheads, on a handful of turns)."""
    return _searchable(starts), _searchable(ends), _searchable(order)


def _around(turns: Sequence[Turn], lists: tuple, reach: float, a: float,
            b: float) -> list[Turn]:
    """The turns that overlap (a, b); `lists` (`_lists`: lists, or a long hypothesis'
    arrays): their starts (sorted), ends and places in
    `turns` (turns[order[k]] starts at starts[k]), `reach`: the longest turn. Only turns
    starting in [a - reach, b) can overlap."""
    starts, ends, order = lists
    lo, hi = bisect_left(starts, a - reach), bisect_left(starts, b)
    return [turns[order[k]] for k in range(lo, hi) if ends[k] > a]


class IncrementalDER:
    """DER of one document's hypotheses, each scored by its difference from the current one.

    `current()` gives the current hypothesis' components; `score_replaced(a, b, turns)`
    those of the current hypothesis with its turns that overlap (a, b) replaced by `turns`
    (a step's corrected or impaired version: only the turns around its windows are built);
    `score_changed(turns, region)` those of a whole turn list equal to the current one
    outside `region`; `advance(turns)` makes a new hypothesis current (its difference is found
    by comparing the turn lists). Settings as `der_components` (uem, collar total width,
    skip_overlap).
    """

    def __init__(self, reference: Sequence[Turn], hypothesis: Sequence[Turn], uem=None,
                 collar: float = 0.0, skip_overlap: bool = False):
        self.reference = tuple(reference)
        self.uem = None if uem is None else tuple((float(a), float(b)) for a, b in uem)
        self.collar, self.skip_overlap = float(collar), bool(skip_overlap)
        self._ref_s, self._ref_e, order = _arrays(self.reference)
        self._ref_reach = float((self._ref_e - self._ref_s).max()) if len(order) else 0.0
        self._ref_lists = _lists(self._ref_s, self._ref_e, order)
        fixed = [self._ref_s, self._ref_e]
        if self.collar > 0:
            fixed += [self._ref_s - 0.5 * self.collar, self._ref_s + 0.5 * self.collar,
                      self._ref_e - 0.5 * self.collar, self._ref_e + 0.5 * self.collar]
        if self.uem:
            fixed.append(np.array([x for span in self.uem for x in span], dtype=float))
        # the cuts a region is cleared of, as sorted lists (see `_neighbours`)
        self._fixed_cuts = np.unique(np.concatenate(fixed)).tolist() if fixed else []
        self._set(tuple(hypothesis), None)

    # -- the current hypothesis -------------------------------------------------------------

    def _set(self, hypothesis: tuple[Turn, ...], sums: _Sums | None,
             raw: tuple | None = None, same: tuple[int, int] | None = None) -> None:
        """Make `hypothesis` current (`raw`: its `_raw`; `same`: a head and tail of it equal
        to the current one's, see `_raw_of`)."""
        old = getattr(self, "_raw", None)
        self.hypothesis = hypothesis
        self._raw = raw if raw is not None else _raw(hypothesis)
        starts, ends, speakers = self._raw
        self._count_labels(speakers, old, same)
        order = np.argsort(starts, kind="stable")
        self._hyp_s, self._hyp_e = starts[order], ends[order]
        self._hyp_e_sorted = _searchable(np.sort(ends))
        self._hyp_reach = float((self._hyp_e - self._hyp_s).max()) if len(order) else 0.0
        self._hyp_lists = _lists(self._hyp_s, self._hyp_e, order)
        self._extent = self._extent_of(self._hyp_s, self._hyp_e)
        self._sums = sums if sums is not None else _Sums.of(
            self.reference, hypothesis, self.uem, self.collar, self.skip_overlap)
        self._components: DERComponents | None = None
        self._jer: JERComponents | None = None
        self._regions: dict | None = None
        self._last_swap = None
        self._memo: dict = {}     # this hypothesis' scored replacements (sums, components)

    def _count_labels(self, speakers: np.ndarray, old: tuple | None,
                      same: tuple[int, int] | None) -> None:
        """`labels`: the current hypothesis' speakers, from a count of its turns by speaker
        kept over steps (a step recounts only the turns between the equal head and tail; a
        set of a 10-hour show's 10,000 labels cost 0.23 ms a step)."""
        if same is None or old is None:
            self._label_count = Counter(speakers.tolist())
        else:
            p, s = same
            count = self._label_count
            count.subtract(old[2][p:old[2].size - s].tolist())
            count.update(speakers[p:speakers.size - s].tolist())
            for label in [k for k, v in count.items() if v <= 0]:
                del count[label]
        self.labels = frozenset(self._label_count)

    def current(self) -> DERComponents:
        if self._components is None:
            self._components = self._sums.components()
        return self._components

    def current_jer(self) -> JERComponents:
        """JER components of the current hypothesis."""
        if self._jer is None:
            self._jer = self._sums.jer()
        return self._jer

    def _result(self, sums: "_Sums | None", turns, unmappable, jer: bool):
        """Components from updated sums, or from a full sweep of `turns` when None."""
        if sums is None:
            full = jer_components if jer else der_components
            return full(self.reference, turns, self.uem, self.collar, self.skip_overlap,
                        unmappable)
        return sums.jer(unmappable) if jer else sums.components(unmappable)

    def _extent_of(self, starts, ends) -> tuple[float, float] | None:
        """The scored extent when no UEM is given (union of both sides' extents)."""
        if self.uem is not None:
            return None
        lo = [a.min() for a in (self._ref_s, starts) if a.size]
        hi = [a.max() for a in (self._ref_e, ends) if a.size]
        return (float(min(lo)), float(max(hi))) if lo else (0.0, 0.0)

    # -- a changed hypothesis ---------------------------------------------------------------

    def score_changed(self, turns: Sequence[Turn], region: tuple[float, float],
                      unmappable: Collection[str] = (), jer: bool = False):
        """Components (DER, or JER with `jer`) of `turns`, equal to the current hypothesis
        outside `region`."""
        turns = tuple(turns)
        return self._result(self._sums_changed(turns, region), turns, unmappable, jer)

    def overlapping(self, a: float, b: float, reference: bool = False) -> list[Turn]:
        """The current hypothesis' (or the reference's) turns that overlap (a, b)."""
        if reference:
            return _around(self.reference, self._ref_lists, self._ref_reach, a, b)
        return _around(self.hypothesis, self._hyp_lists, self._hyp_reach, a, b)

    def score_replaced(self, a: float, b: float, turns: Sequence[Turn],
                       unmappable: Collection[str] = (), jer: bool = False):
        """Components (DER, or JER with `jer`) of the current hypothesis with its turns
        overlapping (a, b) replaced by `turns` (which must lie within the span of (a, b) and
        of the turns they replace)."""
        turns = list(turns)
        key = (a, b, tuple(turns), tuple(unmappable), jer)
        if key in self._memo:     # the DER and JER tracks of a document ask the same
            return self._memo[key]
        result = self._replaced(a, b, turns, unmappable, jer)
        self._memo[key] = result
        return result

    def _replaced(self, a, b, turns, unmappable, jer):
        removed = self.overlapping(a, b)
        spans = [(t.start, t.end) for t in removed + turns]
        lo = min([a] + [s for s, _ in spans])
        hi = max([b] + [e for _, e in spans])
        sums_key = (a, b, tuple(turns))
        if sums_key in self._memo:
            sums = self._memo[sums_key]
        else:
            sums = self._memo[sums_key] = self._sums_local(lo, hi, removed, turns)
        whole = None
        if sums is None:
            gone = set(map(id, removed))
            whole = [t for t in self.hypothesis if id(t) not in gone] + turns
        return self._result(sums, whole, unmappable, jer)

    def _sums_local(self, lo: float, hi: float, removed: list[Turn], added: list[Turn]
                    ) -> _Sums | None:
        """The sums after `removed` turns of the current hypothesis (all within (lo, hi))
        give way to `added` ones (all within (lo, hi)); None where a full sweep is needed."""
        if self.uem is None:
            hyp_lo = self._hyp_s[0] if self._hyp_s.size else np.inf
            hyp_hi = self._hyp_e.max() if self._hyp_e.size else -np.inf
            if not (hyp_lo < lo and hi < hyp_hi):
                return None               # may move the scored extent: sweep it all
        # the added turns' edges lie in [lo, hi] and a cleared point keeps CLEARANCE outside
        # it, so they are left out of the cuts: a step's corrected and impaired versions (the
        # same lo, hi) then share one region, and its `before` sums
        cuts = (self._fixed_cuts, self._hyp_lists[0], self._hyp_e_sorted)
        a, b = _clear_point(cuts, lo, -1), _clear_point(cuts, hi, +1)
        before = self.overlapping(a, b)
        gone = set(map(id, removed))
        after = [t for t in before if id(t) not in gone] + list(added)
        return self._swap(a, b, before, after)

    def _swap(self, a: float, b: float, before: list[Turn], after: list[Turn]
              ) -> _Sums | None:
        """The current sums with (a, b)'s share swept from `before` replaced by `after`'s
        (both: every turn of its hypothesis that overlaps (a, b)); a, b already cleared."""
        lo, hi = self._extent if self._extent is not None else (a, b)
        if self._extent is not None and (b - a) > 0.5 * (hi - lo):
            return None                       # most of the show: a full sweep is as cheap
        if self.uem is None:
            uem = [(max(a, lo), min(b, hi))] if min(b, hi) > max(a, lo) else []
        else:
            uem = [(max(s, a), min(e, b)) for s, e in self.uem if min(e, b) > max(s, a)]
        if not uem:
            self._last_swap = (a, b, [], after, [])
            return self._sums
        margin = self.collar + CLEARANCE
        ref = self.overlapping(a - margin, b + margin, reference=True)
        self._last_swap = (a, b, ref, after, uem)
        old = self._memo.get(("old", a, b))   # `before` is the current hypothesis' turns
        if old is None:
            old = self._memo[("old", a, b)] = _Sums.of(ref, before, uem, self.collar,
                                                      self.skip_overlap)
        new = _Sums.of(ref, after, uem, self.collar, self.skip_overlap)
        return self._sums.swapped(old, new)

    def advance(self, turns: Sequence[Turn]) -> DERComponents:
        """Make `turns` the current hypothesis; returns its components."""
        turns = tuple(turns)
        if turns is self.hypothesis:
            return self.current()
        raw, same = self._raw_of(turns)
        if raw is self._raw:              # the same turns (a system that kept them)
            self.hypothesis = turns
            return self.current()
        region = self._difference(raw, same)
        if region[0] > region[1]:   # the same turns
            self.hypothesis, self._raw = turns, raw
            return self.current()
        regions = self._regions
        mapping = dict(self.current().mapping) if regions is not None else None
        self._last_swap = None
        sums = self._sums_changed(turns, region, raw, same)
        swap = self._last_swap
        self._set(turns, sums, raw, same)
        if regions is not None and sums is not None and swap is not None \
                and dict(self.current().mapping) == mapping:
            a, b, ref, after, uem = swap
            local = error_regions(ref, after, uem, self.collar, self.skip_overlap, mapping) \
                if uem else []
            self._regions = _splice(regions, a, b, local)
        return self.current()

    def _raw_of(self, turns: tuple[Turn, ...]) -> tuple[tuple, tuple[int, int]]:
        """`_raw(turns)`, the arrays of the turns in a common head and tail with the current
        hypothesis (`equal_ends`: mostly the same objects, compared in C) taken from the
        current arrays: a step changes a few turns of thousands; and the lengths of that head
        and tail. The current arrays themselves when every turn is equal."""
        old = self.hypothesis
        n, m = len(turns), len(old)
        p, s = equal_ends(turns, old)
        if p == n == m:
            return self._raw, (p, s)
        if 2 * (p + s) < n:
            return _raw(turns), (p, s)
        middle = _raw(turns[p:n - s])
        return tuple(np.concatenate((a[:p], b, a[m - s:]))
                     for a, b in zip(self._raw, middle)), (p, s)

    # -- where the errors are ---------------------------------------------------------------

    def error_region_arrays(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """`llgui.core.diarization.der.error_regions` of the current hypothesis under its optimal mapping,
        as kind -> (starts, ends) (sorted, disjoint runs). After a step that keeps the mapping
        only the changed region is swept again and spliced in."""
        if self._regions is None:
            full = error_regions(self.reference, self.hypothesis, self.uem, self.collar,
                                 self.skip_overlap, dict(self.current().mapping))
            self._regions = {kind: (np.array([r[0] for r in full if r[2] == kind], dtype=float),
                                    np.array([r[1] for r in full if r[2] == kind], dtype=float))
                             for kind in ERROR_KINDS}
        return self._regions

    def error_regions(self) -> list[tuple[float, float, str]]:
        """The same as a list sorted as `llgui.core.diarization.der.error_regions` sorts it."""
        out = [(s, e, kind) for kind, (starts, ends) in self.error_region_arrays().items()
               for s, e in zip(starts.tolist(), ends.tolist())]
        out.sort(key=lambda r: (r[0], ERROR_KINDS.index(r[2])))
        return out

    def _difference(self, raw, same: tuple[int, int] = (0, 0)) -> tuple[float, float]:
        """(a, b) spanning every turn that differs between the current list and a new one
        (`_raw` arrays), by their common prefix and suffix; (1, 0) if none differs. `same`:
        the lengths of a head and a tail known equal (the same turn objects)."""
        old = self._raw
        n_old, n_new = old[0].size, raw[0].size
        m = min(n_old, n_new)
        first = _first_differing([a[:m] for a in old], [a[:m] for a in raw], same[0])
        last = _first_differing([a[n_old - m:][::-1] for a in old],
                                [a[n_new - m:][::-1] for a in raw], same[1])
        if first == m and n_old == n_new:
            return (1.0, 0.0)
        last = min(last, m - first)       # the prefix and the suffix may not overlap
        spans = [(a[0][first:a[0].size - last], a[1][first:a[1].size - last])
                 for a in (old, raw)]
        starts = np.concatenate([s for s, _ in spans])
        ends = np.concatenate([e for _, e in spans])
        if starts.size == 0:
            return (1.0, 0.0)
        return (float(starts.min()), float(ends.max()))

    def _sums_changed(self, turns: tuple[Turn, ...], region, raw=None,
                      same: tuple[int, int] | None = None) -> _Sums | None:
        """The sums of `turns`, equal to the current hypothesis outside `region`; None when
        the whole must be swept. `raw`: `_raw(turns)`; `same`: a head and a tail of `raw` known
        equal to the current hypothesis' (`_raw_of`)."""
        a, b = region
        if a > b:
            return self._sums
        starts, ends, _ = raw if raw is not None else _raw(turns)
        if self.uem is None and self._extent_of(starts, ends) != self._extent:
            return None                       # the scored extent moved: sweep it all
        new_s, new_e = starts, ends
        if same is not None:          # the head and tail's cuts are the current turns'
            p, s = same
            new_s, new_e = starts[p:starts.size - s], ends[p:ends.size - s]
        a, b = self._clear(a, b, new_s, new_e)
        before = self.overlapping(a, b)
        after = [turns[i] for i in np.flatnonzero((ends > a) & (starts < b)).tolist()]
        return self._swap(a, b, before, after)

    def _clear(self, a: float, b: float, starts, ends) -> tuple[float, float]:
        """Widen (a, b) to points CLEARANCE away from every cut of the sweep: the reference's
        and the UEM's, the current hypothesis' and the new turns' (`starts`, `ends`: all of
        them, or those not in the current hypothesis, the same set of cuts)."""
        cuts = (self._fixed_cuts, self._hyp_lists[0], self._hyp_e_sorted,
                np.sort(starts).tolist(), np.sort(ends).tolist())
        return _clear_point(cuts, a, -1), _clear_point(cuts, b, +1)


def _first_differing(x: Sequence[np.ndarray], y: Sequence[np.ndarray], start: int = 0) -> int:
    """The first index where the (start, end, label) columns `x` and `y` (equal lengths)
    differ, their length if none; the first `start` are known equal. The times are compared
    at once; the labels (objects, slow to compare) in growing chunks, up to the first time
    that differs: a step's changes start where the same objects end."""
    size = x[0].size
    times = (x[0][start:] != y[0][start:]) | (x[1][start:] != y[1][start:])
    stop = start + int(np.argmax(times)) if times.any() else size
    lo, chunk = start, 64
    while lo < stop:
        hi = min(stop, lo + chunk)
        labels = x[2][lo:hi] != y[2][lo:hi]
        if labels.any():
            return lo + int(np.argmax(labels))
        lo, chunk = hi, 4 * chunk
    return stop


def _splice(regions: dict, a: float, b: float, local: list[tuple[float, float, str]]) -> dict:
    """Per-kind runs with (a, b) replaced by `local`'s runs; runs touching at a or b merged
    (a and b are no cut of the sweep, so a full sweep has one piece across each)."""
    out = {}
    for kind, (starts, ends) in regions.items():
        i = int(np.searchsorted(ends, a, side="right"))      # runs ending by a stay
        j = int(np.searchsorted(starts, b, side="left"))     # runs starting from b stay
        mid_s, mid_e = [], []
        if i < j and starts[i] < a:
            mid_s.append(float(starts[i]))
            mid_e.append(a)
        for s, e, k in local:
            if k == kind:
                mid_s.append(s)
                mid_e.append(e)
        if i < j and ends[j - 1] > b:
            mid_s.append(b)
            mid_e.append(float(ends[j - 1]))
        # merge runs that touch (only at a and b can they)
        ms, me = [], []
        for s, e in zip(mid_s, mid_e):
            if me and s == me[-1]:
                me[-1] = e
            else:
                ms.append(s)
                me.append(e)
        out[kind] = (np.concatenate((starts[:i], np.array(ms, dtype=float), starts[j:])),
                     np.concatenate((ends[:i], np.array(me, dtype=float), ends[j:])))
    return out


def _neighbours(cuts: Sequence, x: float) -> tuple[float, float]:
    """The largest cut < x and the smallest cut >= x over several sorted lists (bisection
    on lists: a step clears its regions' edges a few times, each a few lookups, where numpy's
    search cost tens of microseconds in call overheads)."""
    left, right = -math.inf, math.inf
    for array in cuts:
        at = bisect_left(array, x)
        if at > 0:
            left = max(left, array[at - 1])
        if at < len(array):
            right = min(right, array[at])
    return left, right


def _clear_point(cuts: Sequence, x: float, direction: int) -> float:
    """A point at or before x (direction -1) or at or after it (+1), at least CLEARANCE
    from every cut (`cuts`: sorted lists of floats, or `_searchable` arrays)."""
    for _ in range(10_000):
        left, right = _neighbours(cuts, x)
        if direction < 0:
            if x - left >= 2 * CLEARANCE and right - left > 4 * CLEARANCE:
                point = (left + x) / 2 if x - left < 2.0 else x - 1.0
                if right - point >= CLEARANCE:
                    return float(point)
            x = left if math.isfinite(left) else x - 1.0
        else:
            start = x if right > x else right   # x itself may be a cut
            if start == right:
                left, right = _neighbours(cuts, math.nextafter(right, math.inf))
                left = start
            if right - start >= 2 * CLEARANCE and right - left > 4 * CLEARANCE:
                point = (start + right) / 2 if right - start < 2.0 else start + 1.0
                if point - left >= CLEARANCE:
                    return float(point)
            x = right if math.isfinite(right) else x + 1.0
    return float(x)


__all__ = ["IncrementalDER"]
