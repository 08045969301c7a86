"""DER broken down per reference speaker: who was missed, who was confused, whose cluster spills.

The seconds of `llgui.core.diarization.der.der_components` (pyannote's DiarizationErrorRate) shared out,
so that the rows add up to the document's miss, false alarm and confusion:

- on each elementary interval, a reference speaker whose mapped hypothesis label also speaks
  is correct; the others (n_ref - correct of them) share the interval's miss and confusion
  in proportion to their active turns (with one speaker at a time, which pyannote's
  `skip_overlap` guarantees, this is exactly "r spoke and nobody / somebody else was
  detected");
- the interval's false alarm is shared likewise by the hypothesis labels that are not
  correct there, and each label's share goes to the reference speaker the mapping gives it;
  false alarm of labels mapped to nobody forms a row of its own (`speaker` None).

Seconds; the mapping is the optimal one (or a given hypothesis -> reference mapping).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterable, Mapping, Sequence

import numpy as np

from llgui.core.diarization.der import Span, _hungarian, _mapping_pairs, _sweep
from llgui.core.types import Turn
from llgui.utils.identity_cache import IdentityCache


@dataclass(frozen=True)
class SpeakerErrors:
    """One row of the breakdown, seconds. `speaker` is a reference label, or None for the
    false alarm of hypothesis labels mapped to no reference speaker. `hypothesis` lists the
    hypothesis labels mapped to it (at most one for a reference speaker; the unmapped ones for
    the None row). `total` is the speaker's scored reference speech."""

    speaker: str | None
    hypothesis: tuple[str, ...]
    total: float
    correct: float
    miss: float
    false_alarm: float
    confusion: float

    @property
    def error(self) -> float:
        return self.miss + self.false_alarm + self.confusion

    @property
    def error_rate(self) -> float:
        """The speaker's error in percent of its scored speech (NaN without speech: the row
        of unmapped hypothesis labels)."""
        return 100 * self.error / self.total if self.total > 0 else float("nan")


def speaker_breakdown(
    reference: Sequence[Turn],
    hypothesis: Sequence[Turn],
    uem: Iterable[Span] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    mapping: Mapping[str, str] | None = None,
    unmappable: Collection[str] = (),
) -> tuple[SpeakerErrors, ...]:
    """Per reference speaker (sorted by label), then the unmapped row when it has seconds.

    Arguments as `llgui.core.diarization.der.der_components`; `mapping` (hypothesis -> reference label)
    defaults to the optimal one, so the rows sum to its miss, false alarm and confusion.
    """
    sw = _sweep(reference, hypothesis, uem, float(collar), bool(skip_overlap))
    pairs = _hungarian(sw, unmappable) if mapping is None else _mapping_pairs(sw, mapping)
    ref, hyp, w = sw.ref, sw.hyp, sw.w
    n_ref = ref.sum(axis=0)
    n_hyp = hyp.sum(axis=0)
    ref_correct = np.zeros_like(ref)
    hyp_correct = np.zeros_like(hyp)
    for h, r in pairs:
        both = np.minimum(hyp[h], ref[r])
        ref_correct[r] = both
        hyp_correct[h] = both
    correct = ref_correct.sum(axis=0)
    miss = np.maximum(n_ref - n_hyp, 0)
    confusion = np.minimum(n_ref, n_hyp) - correct
    false_alarm = np.maximum(n_hyp - n_ref, 0)
    ref_wrong = n_ref - correct     # = miss + confusion
    hyp_wrong = n_hyp - correct     # = false alarm + confusion
    ref_share = np.divide(1.0, ref_wrong, out=np.zeros_like(w), where=ref_wrong > 0)
    hyp_share = np.divide(1.0, hyp_wrong, out=np.zeros_like(w), where=hyp_wrong > 0)
    ref_left = ref - ref_correct    # (R, n): each speaker's turns not correct
    hyp_left = hyp - hyp_correct
    miss_r = ref_left @ (w * miss * ref_share)
    conf_r = ref_left @ (w * confusion * ref_share)
    fa_h = hyp_left @ (w * false_alarm * hyp_share)
    total_r = ref @ w
    correct_r = ref_correct @ w

    to_ref = {h: r for h, r in pairs}
    from_ref = {r: h for h, r in pairs}
    fa_r = np.zeros(len(sw.ref_turns.names))
    unmapped_fa, unmapped = 0.0, []
    present = set(sw.hyp_present.tolist())
    for h in range(len(sw.hyp_turns.names)):
        if h in to_ref:
            fa_r[to_ref[h]] += fa_h[h]
        elif h in present:
            unmapped.append(sw.hyp_turns.names[h])
            unmapped_fa += fa_h[h]
    rows = []
    for r in sw.ref_present.tolist():
        rows.append(SpeakerErrors(
            speaker=sw.ref_turns.names[r],
            hypothesis=(sw.hyp_turns.names[from_ref[r]],) if r in from_ref else (),
            total=float(total_r[r]), correct=float(correct_r[r]), miss=float(miss_r[r]),
            false_alarm=float(fa_r[r]), confusion=float(conf_r[r])))
    if unmapped:
        rows.append(SpeakerErrors(None, tuple(unmapped), 0.0, 0.0, 0.0, float(unmapped_fa), 0.0))
    return tuple(rows)


# -- the breakdown a diarization timeline shows beside it, cached ---------------------------

MAX_TURNS = 20_000
"""Turns (both sides) beyond which no breakdown is made (a DER sweep of a longer show)."""

_CACHE = IdentityCache(64)


def _key(document, adapted, mapping, collar, skip_overlap) -> tuple[tuple, tuple]:
    return ((document.reference, adapted, document.uem),
            (tuple(sorted((mapping or {}).items())), float(collar), bool(skip_overlap)))


def cached_breakdown(document, adapted, mapping, collar=0.0, skip_overlap=False):
    """The rows `breakdown` computed for these arguments, or None (not yet)."""
    return _CACHE.get(*_key(document, adapted, mapping, collar, skip_overlap))


def breakdown(document, adapted, mapping, collar=0.0, skip_overlap=False) -> tuple:
    """The per-speaker rows of `adapted` against the document's reference under `mapping`
    (no rows past MAX_TURNS), cached by the turn lists' identity (the walkthrough shares
    them between steps): computed on a worker for a long show, then read by the view at
    once."""
    def make() -> tuple:
        if len(document.reference) + len(adapted) > MAX_TURNS:
            return ()
        return speaker_breakdown(document.reference, adapted, document.uem, collar,
                                 skip_overlap, mapping=mapping)

    return _CACHE.get_or_make(*_key(document, adapted, mapping, collar, skip_overlap), make)


def mapped_labels(mapping: Mapping[str, str] | None) -> dict[str, str]:
    """reference label -> the hypothesis labels a mapping (hypothesis -> reference) gives it,
    sorted and joined by commas."""
    out: dict = {}
    for hyp, ref in (mapping or {}).items():
        out.setdefault(ref, []).append(hyp)
    return {ref: ", ".join(sorted(hyps)) for ref, hyps in out.items()}
