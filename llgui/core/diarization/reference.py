"""DER and JER computed by pyannote.metrics itself: the oracle `llgui.core.diarization.der` is held to.

Used by `llgui.core.verify` (the GUI's "Verify with libraries"), the tests and the gate-2
benchmark; nothing on the scoring path imports it. pyannote.metrics is imported lazily (it is
slow to import and off the start-up path), and its results are returned in `llgui.core.diarization.der`'s
own types, so the fast path and the library compare field by field.
"""
from __future__ import annotations

import itertools
import warnings
from typing import Iterable, Sequence

from llgui.core.diarization.der import DERComponents, JERComponents, Span, pyannote_version
from llgui.core.types import Turn

__all__ = ["pyannote_der_components", "pyannote_jer_components", "pyannote_version"]




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


def _renamed_mapping(metric, reference, hypothesis, uem, collar, skip_overlap) -> dict:
    """DiarizationErrorRate.compute_components's mapping, in the original labels."""
    from pyannote.core.utils.generators import int_generator, string_generator

    ref, hyp = metric.uemify(reference, hypothesis, uem=uem, collar=collar,
                             skip_overlap=skip_overlap)
    ref_names = dict(zip(ref.labels(), string_generator()))
    hyp_names = dict(zip(hyp.labels(), int_generator()))
    ref_back = {v: k for k, v in ref_names.items()}
    hyp_back = {v: k for k, v in hyp_names.items()}
    renamed = metric.mapper_(hyp.rename_labels(mapping=hyp_names),
                             ref.rename_labels(mapping=ref_names))
    return {hyp_back[h]: ref_back[r] for h, r in renamed.items()}


def pyannote_der_components(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    unmappable: Collection[str] = (),
) -> DERComponents:
    """The same components computed by pyannote.metrics itself (one metric object per call).

    Without `unmappable`: `DiarizationErrorRate(collar, skip_overlap)` as it is. With it, the
    library's own pieces: pyannote's optimal mapping (HungarianMapper after the same
    uemification, collar and overlap removal) of the hypothesis WITHOUT the unmappable labels;
    then every hypothesis label is renamed, the mapped ones to their reference label, all
    others (the unmappable ones included) to fresh labels absent from the reference; and the
    mapped hypothesis is scored by `IdentificationErrorRate(collar, skip_overlap)`, which
    counts speech as correct only where the labels are equal. An unmappable label therefore
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
        blocked = set(unmappable) & set(hyp.labels())
        if not blocked:
            detail = metric(ref, hyp, uem=_timeline(uem) if given else None, detailed=True)
            mapping = _renamed_mapping(metric, ref, hyp, uem_tl, collar, skip_overlap)
        else:
            reduced = hyp.subset(blocked, invert=True)
            mapping = _renamed_mapping(metric, ref, reduced, uem_tl, collar, skip_overlap)
            ref_labels = set(ref.labels())
            fresh = (f"\x00unmapped{i}" for i in itertools.count())
            full = {}
            for label in hyp.labels():
                if label in mapping:
                    full[label] = mapping[label]
                else:
                    name = next(fresh)
                    while name in ref_labels:
                        name = next(fresh)
                    full[label] = name
            mapped = hyp.rename_labels(mapping=full)
            ier = IdentificationErrorRate(collar=collar, skip_overlap=skip_overlap)
            detail = ier(ref, mapped, uem=uem_tl, detailed=True)
    uem_used = tuple((float(s.start), float(s.end)) for s in uem_tl.support())
    scored = metric.extrude(uem_tl, ref, collar=collar, skip_overlap=skip_overlap)
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


