"""DER and JER computed by pyannote.metrics itself: the oracle `llgui.core.diarization.der` is held to.

Used by `llgui.core.verify` (the GUI's "Verify with libraries"), the tests and the gate-2
benchmark; nothing on the scoring path imports it. pyannote.metrics is imported lazily (it is
slow to import and off the start-up path), and its results are returned in `llgui.core.diarization.der`'s
own types, so the fast path and the library compare field by field.
"""
from __future__ import annotations

import itertools
import math
import warnings
from typing import Collection, Iterable, Sequence

from llgui.core.diarization.der import DERComponents, JERComponents, Span, pyannote_version
from llgui.core.types import Turn

__all__ = ["PyannoteDER", "pyannote_der_components", "pyannote_jer_components", "pyannote_version"]




def _annotation(turns: Sequence[Turn]):
    """A pyannote Annotation with one track per turn, as pyannote.database.load_rttm builds it."""
    from pyannote.core import Annotation, Segment

    annotation = Annotation()
    for i, t in enumerate(turns):
        annotation[Segment(t.start, t.end), i] = t.speaker
    return annotation


def _timeline(uem: Iterable[Span] | None):
    from pyannote.core import Segment, Timeline

    if uem is None:
        return None
    return Timeline(segments=[Segment(float(s), float(e)) for s, e in uem])


def _default_uem(reference, hypothesis):
    """pyannote's default extent (uemify with uem=None), built from the FULL hypothesis."""
    from pyannote.core import Timeline

    extent = reference.get_timeline().extent() | hypothesis.get_timeline().extent()
    return Timeline(segments=[extent] if extent else [])


def _renamed(metric, ref_u, hyp_u):
    """DiarizationErrorRate.compute_components's renaming and mapping of uemified annotations:
    references renamed 'A', 'B', ... and hypotheses 1, 2, ... in label order
    (`rename_labels(generator=...)`), then its HungarianMapper. Returns the renamed pair, the
    mapping in the new names and the same mapping in the original labels."""
    from pyannote.core.utils.generators import int_generator, string_generator

    ref_names = dict(zip(ref_u.labels(), string_generator()))
    hyp_names = dict(zip(hyp_u.labels(), int_generator()))
    ref_r = ref_u.rename_labels(mapping=ref_names)
    hyp_r = hyp_u.rename_labels(mapping=hyp_names)
    renamed = metric.optimal_mapping(ref_r, hyp_r)
    ref_back = {v: k for k, v in ref_names.items()}
    hyp_back = {v: k for k, v in hyp_names.items()}
    return ref_r, hyp_r, renamed, {hyp_back[h]: ref_back[r] for h, r in renamed.items()}


def pyannote_der_components(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> DERComponents:
    """The same components computed by pyannote.metrics itself (one metric object per call).

    Without `unmappable`: `DiarizationErrorRate(collar, skip_overlap)`'s own
    `compute_components`, step by step: `uemify` (the UEM, or the union of both extents,
    less the collars and, with skip_overlap, the overlaps), the labels renamed and mapped by
    its HungarianMapper, and `IdentificationErrorRate.compute_components` of the mapped
    hypothesis on the uemified pair with collar 0 (as DiarizationErrorRate calls it). Done
    here rather than by calling the metric, so that the one uemification also gives the
    mapping (in the original labels) and the scored extent: calling the metric and then
    uemifying twice more for those was a fifth of the DER tests' time. tests/core/diarization/
    test_der.py holds it equal to `DiarizationErrorRate(...)(..., detailed=True)` itself.

    With `unmappable`, the library's own pieces: pyannote's optimal mapping (HungarianMapper
    after the same uemification, collar and overlap removal) of the hypothesis WITHOUT the
    unmappable labels; then every hypothesis label is renamed, the mapped ones to their
    reference label, all others (the unmappable ones included) to fresh labels absent from the
    reference; and the mapped hypothesis is scored as identification (collar and overlaps
    already removed), which counts speech as correct only where the labels are equal: what
    `IdentificationErrorRate(collar, skip_overlap)` gives on the whole pair, since the
    uemification depends on the reference and the UEM only. An unmappable label therefore
    never matches: exactly "never mapped". The rest get the best mapping among those that leave
    the unmappable labels out, which is what a Hungarian search without them finds. The default
    extent (no UEM) is taken from the full hypothesis, unmappable labels included, as the fast
    path does.
    """
    from pyannote.metrics.diarization import DiarizationErrorRate
    from pyannote.metrics.identification import IdentificationErrorRate

    ref = _annotation(reference)
    hyp = _annotation(hypothesis)
    given = uem is not None
    uem_tl = _timeline(uem) if given else _default_uem(ref, hyp)
    metric = DiarizationErrorRate(collar=collar, skip_overlap=skip_overlap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        # uem=None where none is given: uemify's own union of the extents (equal to uem_tl)
        ref_u, hyp_u, scored = metric.uemify(ref, hyp, uem=uem_tl if given else None,
                                             collar=collar, skip_overlap=skip_overlap,
                                             returns_uem=True)
        blocked = set(unmappable) & set(hyp.labels())
        if not blocked:
            ref_r, hyp_r, renamed, mapping = _renamed(metric, ref_u, hyp_u)
            detail = IdentificationErrorRate.compute_components(
                metric, ref_r, hyp_r.rename_labels(mapping=renamed), uem=scored, collar=0.0,
                skip_overlap=False)
        else:
            *_, mapping = _renamed(metric, ref_u, hyp_u.subset(blocked, invert=True))
            ref_labels = set(ref.labels())
            fresh = (f"\x00unmapped{i}" for i in itertools.count())
            full = {}
            for label in hyp_u.labels():
                if label in mapping:
                    full[label] = mapping[label]
                else:
                    name = next(fresh)
                    while name in ref_labels:
                        name = next(fresh)
                    full[label] = name
            detail = IdentificationErrorRate.compute_components(
                metric, ref_u, hyp_u.rename_labels(mapping=full), uem=scored, collar=0.0,
                skip_overlap=False)
    uem_used = tuple((float(s.start), float(s.end)) for s in uem_tl.support())
    return DERComponents(
        miss=float(detail["missed detection"]),
        false_alarm=float(detail["false alarm"]),
        confusion=float(detail["confusion"]),
        correct=float(detail["correct"]),
        total=float(detail["total"]),
        mapping=mapping,
        uem_used=uem_used,
        uem_given=given,
        scored=tuple((float(s.start), float(s.end)) for s in scored.support()),
    )


def pyannote_jer_components(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> JERComponents:
    """pyannote's JaccardErrorRate (one metric object per call). Unmappable labels are left out
    of the hypothesis (an unmapped hypothesis speaker plays no part in JER), with the default
    extent taken from the full hypothesis."""
    from pyannote.metrics.diarization import JaccardErrorRate

    ref = _annotation(reference)
    hyp = _annotation(hypothesis)
    given = uem is not None
    uem_tl = _timeline(uem) if given else _default_uem(ref, hyp)
    blocked = set(unmappable) & set(hyp.labels())
    if blocked:
        hyp = hyp.subset(blocked, invert=True)
    metric = JaccardErrorRate(collar=collar, skip_overlap=skip_overlap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        detail = metric(ref, hyp, uem=uem_tl, detailed=True)
    return JERComponents(
        speaker_error=float(detail["speaker error"]),
        speaker_count=float(detail["speaker count"]),
        uem_used=tuple((float(s.start), float(s.end)) for s in uem_tl.support()),
        uem_given=given,
    )




CHUNK_SECONDS = 300.0
"""Target length of a `PyannoteDER` chunk: pyannote crops an annotation by a many-segment
timeline (the UEM less the collars) in time that grows with the product of their segment
counts, so a 1.5-hour meeting costs it seconds per score, and 300-s pieces about 1/18 of that."""


class PyannoteDER:
    """DER of many hypotheses of ONE document against its reference, by pyannote.metrics,
    cut into pieces where that changes nothing (what `llgui.core.verify` uses).

    The recording is cut at instants in the reference's silence at least a collar away from
    every reference boundary: there pyannote's UEM extrusion, its overlap removal and every
    reference turn lie wholly on one side, and a hypothesis turn cut in two counts the same
    time. On each piece pyannote itself does everything: `DiarizationErrorRate.uemify` (the
    collars, skip_overlap), the co-occurrence matrix (`Annotation.__mul__`, the one its
    HungarianMapper reads) and, under the mapping, `IdentificationErrorRate.compute_components`
    with collar 0 on the uemified piece, as `DiarizationErrorRate.compute_components` does.
    The pieces' co-occurrence matrices are summed, and the mapping is found as pyannote's
    `HungarianMapper` finds it on the whole (scipy's linear_sum_assignment of the negated
    matrix, rows the hypothesis labels in pyannote's order, columns the renamed reference
    labels in theirs, pairs with positive co-occurrence kept). The components are summed.
    A piece whose hypothesis turns are those of a hypothesis scored before is not computed
    again: a correction changes a few turns, so a step costs its few pieces, not the meeting.
    Equal to `pyannote_der_components` to rounding (tests and gate 11 hold it).
    """

    def __init__(self, reference: Sequence[Turn], uem: Iterable[Span] | None = None,
                 collar: float = 0.0, skip_overlap: bool = False,
                 chunk_seconds: float = CHUNK_SECONDS):
        self.reference = tuple(reference)
        self.uem = None if uem is None else tuple((float(s), float(e)) for s, e in uem)
        self.collar = float(collar)
        self.skip_overlap = bool(skip_overlap)
        self.chunk_seconds = float(chunk_seconds)
        self._pieces: dict = {}       # (piece, its hypothesis turns) -> uemified piece + matrix
        self._ier: dict = {}          # (piece, its turns, mapping there) -> IER components

    def _cuts(self, extent: tuple[float, float]) -> list[float]:
        """Instants where the recording may be cut, about `chunk_seconds` apart."""
        half = self.collar / 2
        zones = sorted((t.start - half, t.end + half) for t in self.reference)
        cuts, last, reach = [], extent[0], -math.inf
        for start, end in zones:
            if start > reach and reach > -math.inf:
                t = (reach + start) / 2          # a silence between collar zones
                if extent[0] < t < extent[1] and t - last >= self.chunk_seconds:
                    cuts.append(t)
                    last = t
            reach = max(reach, end)
        return cuts

    def _extent(self, hypothesis: Sequence[Turn]) -> tuple[tuple[float, float], ...]:
        if self.uem is not None:
            return self.uem
        times = [(t.start, t.end) for t in (*self.reference, *hypothesis)]
        if not times:
            return ()
        return ((min(s for s, _ in times), max(e for _, e in times)),)

    @staticmethod
    def _clip(turns, lo: float, hi: float) -> tuple[Turn, ...]:
        out = []
        for t in turns:
            s, e = max(t.start, lo), min(t.end, hi)
            if e > s:
                out.append(t if (s, e) == (t.start, t.end) else Turn(s, e, t.speaker))
        return tuple(out)

    def __call__(self, hypothesis: Sequence[Turn], unmappable: Collection[str] = (),
                 should_stop=None) -> DERComponents:
        import numpy as np
        from pyannote.core.utils.generators import string_generator
        from pyannote.metrics.diarization import DiarizationErrorRate
        from pyannote.metrics.identification import IdentificationErrorRate
        from scipy.optimize import linear_sum_assignment

        from llgui.core.jobs import check

        hypothesis = tuple(hypothesis)
        extent = self._extent(hypothesis)
        key_uem = extent if self.uem is None else None
        if not extent:
            return pyannote_der_components(self.reference, hypothesis, self.uem, self.collar,
                                           self.skip_overlap, unmappable)
        lo_all, hi_all = extent[0][0], extent[-1][1]
        bounds = [lo_all, *self._cuts((lo_all, hi_all)), hi_all]
        # every turn is clipped to the pieces it touches (turns ending at a cut stay left)
        refs = [self._clip(self.reference, a, b) for a, b in zip(bounds, bounds[1:])]
        hyps = [self._clip(hypothesis, a, b) for a, b in zip(bounds, bounds[1:])]
        metric = DiarizationErrorRate(collar=self.collar, skip_overlap=self.skip_overlap)
        pieces = []
        for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
            check(should_stop)
            key = (i, key_uem, hyps[i])
            piece = self._pieces.get(key)
            if piece is None:
                uem = [(max(s, a), min(e, b)) for s, e in extent if min(e, b) > max(s, a)]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    ref_u, hyp_u, uem_u = metric.uemify(
                        _annotation(refs[i]), _annotation(hyps[i]), uem=_timeline(uem),
                        collar=self.collar, skip_overlap=self.skip_overlap, returns_uem=True)
                    matrix = hyp_u * ref_u
                piece = (ref_u, hyp_u, uem_u, tuple(hyp_u.labels()), tuple(ref_u.labels()),
                         matrix)
                self._pieces[key] = piece
            pieces.append((key, piece))
        # pyannote's label order: references renamed A, B, ... in sorted order, then sorted
        ref_labels = sorted({lab for _, p in pieces for lab in p[4]})
        renamed = dict(zip(ref_labels, string_generator()))
        columns = sorted(ref_labels, key=lambda lab: renamed[lab])
        blocked = set(unmappable)
        rows = sorted({lab for _, p in pieces for lab in p[3]} - blocked)
        row_at = {lab: k for k, lab in enumerate(rows)}
        col_at = {lab: k for k, lab in enumerate(columns)}
        total = np.zeros((len(rows), len(columns)))
        for _, (_, _, _, hl, rl, matrix) in pieces:
            for r, h in enumerate(hl):
                if h in row_at:
                    for c, lab in enumerate(rl):
                        total[row_at[h], col_at[lab]] += matrix[r, c]
        mapping = {}
        if total.size:
            for r, c in zip(*linear_sum_assignment(-total)):
                if total[r, c] > 0:
                    mapping[rows[r]] = columns[c]
        ref_set = set(ref_labels)
        fresh = (f"\x00unmapped{i}" for i in itertools.count())
        full = {}
        for label in sorted({lab for _, p in pieces for lab in p[3]}):
            if label in mapping:
                full[label] = mapping[label]
            else:
                name = next(fresh)
                while name in ref_set:
                    name = next(fresh)
                full[label] = name
        ier = IdentificationErrorRate(collar=0.0, skip_overlap=False)
        sums = dict.fromkeys(("missed detection", "false alarm", "confusion", "correct",
                              "total"), 0.0)
        scored = []
        for key, (ref_u, hyp_u, uem_u, hl, _, _) in pieces:
            check(should_stop)
            local = tuple((h, full[h]) for h in hl)
            ikey = (key, local)
            detail = self._ier.get(ikey)
            if detail is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    detail = ier.compute_components(ref_u, hyp_u.rename_labels(mapping=dict(local)),
                                                    uem=uem_u, collar=0.0, skip_overlap=False)
                detail = {k: float(detail[k]) for k in sums}
                self._ier[ikey] = detail
            for k in sums:
                sums[k] += detail[k]
            for s in uem_u.support():
                if scored and scored[-1][1] == float(s.start):    # joined again at a cut
                    scored[-1] = (scored[-1][0], float(s.end))
                else:
                    scored.append((float(s.start), float(s.end)))
        return DERComponents(
            miss=sums["missed detection"], false_alarm=sums["false alarm"],
            confusion=sums["confusion"], correct=sums["correct"], total=sums["total"],
            mapping=mapping, uem_used=tuple(extent), uem_given=self.uem is not None,
            scored=tuple(scored))
