"""Per-unit scores, the inputs of negative flips (llgui.core.across_time.flips):

- MT: the sentence score of each segment, from its additive statistics row (the campaign
  cells keep them): for chrF this is sacrebleu's `sentence_chrf` (chrF of one segment is the
  corpus formula on its statistics); unit `segment-<metric>`.
- diarization: DER on each reference turn region: the metric with the UEM narrowed to the
  turn's [start, end) (intersected with the document's UEM), pyannote semantics (its collar
  and skip_overlap settings, the optimal mapping made inside that region); unit `turn-der`.
  A turn left with no scored reference time (inside a collar) has no score (NaN).

The turn regions of a document are scored on the turns near them only: turns overlapping
[start - collar, end + collar], kept whole, so every boundary whose collar reaches the region
is still there; the rest cannot change that region's score.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np


def sentence_scores(scorer, rows: np.ndarray) -> np.ndarray:
    """`scorer.score` of each statistics row (n_units, n_stats) -> (n_units,)."""
    from llgui.core.significance.vector_scores import vector_score

    rows = np.asarray(rows, dtype=np.float64)
    if not rows.size:
        return np.zeros(0)
    # the vectorised formula, held equal to `scorer.score` row by row in
    # tests/core/significance/test_resample.py
    return np.asarray(vector_score(scorer)(rows), dtype=np.float64)


def _clip(spans, start: float, end: float) -> list[tuple[float, float]]:
    out = []
    for s, e in spans:
        s, e = max(s, start), min(e, end)
        if e > s:
            out.append((s, e))
    return out


def turn_scores(reference: Sequence, hypothesis: Sequence, uem=None, metric: str = "der",
                settings: Mapping[str, object] | None = None) -> np.ndarray:
    """The metric on each reference turn's region (the turns in `reference`'s order).

    `reference`, `hypothesis`: `llgui.core.types.Turn` sequences of one recording; `uem`: its
    scoring spans or None."""
    from llgui.core.diarization.track import make_diar_metric

    settings = dict(settings or {})
    settings["uem"] = "given"
    scorer = make_diar_metric(metric, settings)
    pad = float(settings.get("collar", 0.0) or 0.0)
    ref = sorted(reference, key=lambda t: (t.start, t.end, t.speaker))
    hyp = sorted(hypothesis, key=lambda t: (t.start, t.end, t.speaker))
    ref_starts = np.array([t.start for t in ref])
    hyp_starts = np.array([t.start for t in hyp])
    ref_max = max((t.end - t.start for t in ref), default=0.0)
    hyp_max = max((t.end - t.start for t in hyp), default=0.0)

    def near(turns, starts, longest, lo, hi):
        # turns overlapping [lo, hi]: start <= hi and end >= lo (start >= lo - longest)
        a = int(np.searchsorted(starts, lo - longest, side="left"))
        b = int(np.searchsorted(starts, hi, side="right"))
        return [t for t in turns[a:b] if t.end >= lo]

    out = np.full(len(reference), math.nan)
    for i, turn in enumerate(reference):
        region = [(turn.start, turn.end)]
        if uem is not None:
            region = [p for s, e in uem for p in _clip([(s, e)], turn.start, turn.end)]
        if not region:
            continue
        lo, hi = turn.start - pad, turn.end + pad
        stats = scorer.stats(near(ref, ref_starts, ref_max, lo, hi),
                             near(hyp, hyp_starts, hyp_max, lo, hi), region)
        if scorer.scored(stats):
            out[i] = scorer.score(stats)
    return out
