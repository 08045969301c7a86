"""Diarization corrections: the audio a step makes the human listen to, and the corrected and
impaired hypotheses of DESIGN.md 1.2.

A diarization step corrects *time windows* (seconds), chosen per step kind as the ALLIES
evaluation plan does, with `w = cost_model.window`:

- `same(t1, t2[, doc2])`: two windows of w seconds centred on t1 and t2. When `doc2` names
  another document, only the t1 window belongs to this one; `other_window` gives the other;
- `boundary(t)`: the reference turn around t (the one containing t, start <= t <= end; the
  union span of all of them if several overlap there; a window of w seconds centred on t if
  none does) widened by w on each side;
- `name(t)`: a window of w seconds centred on t;
- `segment(start, end)`: [start, end].

Windows are clipped to the document's extent (`DiarDocument.extent`), merged where they
overlap or touch, and returned sorted as (start, end) pairs.

- Corrected hypothesis: outside the windows the hypothesis as it stands (turns cut at the
  window edges); inside, the reference turns, each reference speaker under the hypothesis
  label that the optimal mapping of the current hypothesis gives it, or under a new label
  (deterministic, colliding with no label of either side) when it has none.
- Impaired hypothesis: inside the windows every piece of hypothesis speech goes to one new
  label, which the scorer must never map (`unmappable`); non-speech stays non-speech; outside
  the windows the hypothesis is unchanged.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import attrgetter
from typing import TYPE_CHECKING, Collection, Iterable, Mapping, Sequence

from llgui.core.cost import CostModel
from llgui.utils.identity_cache import IdentityCache
from llgui.core.types import (DiarDocument, PointTarget, SameTarget, SpanTarget, Step, Turn)

if TYPE_CHECKING:   # numpy is imported where arrays are made: llgui.io.rttm imports this
    import numpy as np   # module, and a system process that only speaks the protocol needs none

Span = tuple[float, float]


# --------------------------------------------------------------------------------------------
# Windows


def merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """Sorted union of spans (seconds); empty or reversed spans dropped, touching ones merged."""
    out: list[list[float]] = []
    for start, end in sorted((float(s), float(e)) for s, e in spans if e > s):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return tuple((s, e) for s, e in out)


def _clip(spans: Iterable[Span], extent: Span) -> tuple[Span, ...]:
    lo, hi = extent
    return merge_spans((max(s, lo), min(e, hi)) for s, e in spans)


def _centred(t: float, width: float) -> Span:
    return (t - 0.5 * width, t + 0.5 * width)


_INDEX: dict[int, tuple] = {}


def _containing(reference: Sequence[Turn], t: float) -> list[Turn]:
    """The reference turns with start <= t <= end, through an index of the turns sorted by
    start (built once per reference list): a step on a 10-hour show does not scan it."""
    hit = _INDEX.get(id(reference))
    if hit is None or hit[0] is not reference:
        import numpy as np

        ordered = sorted(reference, key=lambda r: r.start)
        starts = np.array([r.start for r in ordered], dtype=float)
        reach = max((r.end - r.start for r in ordered), default=0.0)
        if len(_INDEX) > 64:
            _INDEX.clear()
        hit = _INDEX[id(reference)] = (reference, ordered, starts, reach)
    _, ordered, starts, reach = hit
    lo = bisect_left(starts, t - reach)
    hi = bisect_right(starts, t)
    return [r for r in ordered[lo:hi] if r.start <= t <= r.end]


def _turn_around(reference: Sequence[Turn], t: float, width: float) -> Span:
    """The reference turn containing t (union span if several), else w centred on t."""
    around = _containing(reference, t)
    if not around:
        return _centred(t, width)
    return (min(r.start for r in around), max(r.end for r in around))


def _is_cross_document(step: Step, doc: DiarDocument) -> bool:
    target = step.target
    return isinstance(target, SameTarget) and target.doc2 is not None and target.doc2 != doc.id


def raw_windows(step: Step, doc: DiarDocument, cost_model: CostModel = CostModel()
                ) -> tuple[Span, ...]:
    """The step's windows in this document before clipping and merging (seconds)."""
    w = cost_model.window
    target = step.target
    if step.kind == "same" and isinstance(target, SameTarget):
        windows = [_centred(target.t1, w)]
        if not _is_cross_document(step, doc):
            windows.append(_centred(target.t2, w))
        return tuple(windows)
    if step.kind == "boundary" and isinstance(target, PointTarget):
        start, end = _turn_around(doc.reference, target.t, w)
        return ((start - w, end + w),)
    if step.kind == "name" and isinstance(target, PointTarget):
        return (_centred(target.t, w),)
    if step.kind == "segment" and isinstance(target, SpanTarget):
        return ((target.start, target.end),)
    raise ValueError(
        f"step {step.step} of {step.doc!r}: kind {step.kind!r} with target "
        f"{type(target).__name__} is not a diarization correction"
    )


def step_windows(step: Step, doc: DiarDocument, cost_model: CostModel = CostModel()
                 ) -> tuple[Span, ...]:
    """The windows of `doc` that `step` corrects: sorted, merged (start, end) seconds, clipped
    to the document's extent."""
    return _clip(raw_windows(step, doc, cost_model), doc.extent)


def other_window(step: Step, cost_model: CostModel = CostModel(),
                 doc2: DiarDocument | None = None, doc_id: str | None = None
                 ) -> tuple[str, Span] | None:
    """The t2 window of a `same` step that points at another document: (doc2 id, (start, end)).

    Clipped to `doc2`'s extent when it is given, else only to times >= 0. None when the step
    has no window in another document (`doc_id` is the step's own document, default
    `step.doc`).
    """
    target = step.target
    own = doc_id if doc_id is not None else step.doc
    if step.kind != "same" or not isinstance(target, SameTarget):
        return None
    if target.doc2 is None or target.doc2 == own:
        return None
    extent = doc2.extent if doc2 is not None else (0.0, float("inf"))
    spans = _clip([_centred(target.t2, cost_model.window)], extent)
    if not spans:
        return None
    return (target.doc2, spans[0])


def listened_seconds(step: Step, doc: DiarDocument, cost_model: CostModel = CostModel(),
                     doc2: DiarDocument | None = None) -> float:
    """Seconds of audio the step makes the human listen to: the total length of its windows
    (merged where they overlap), the window in another document included."""
    total = sum(e - s for s, e in step_windows(step, doc, cost_model))
    other = other_window(step, cost_model, doc2, doc.id)
    if other is not None:
        total += other[1][1] - other[1][0]
    return float(total)


# --------------------------------------------------------------------------------------------
# Cutting turns at window edges


def split_turns(turns: Sequence[Turn], windows: Sequence[Span]
                ) -> tuple[list[Turn], list[Turn]]:
    """(pieces outside the windows, pieces inside), each turn cut at the window edges.

    `windows` must be sorted and disjoint (as `step_windows` returns them). Zero-length pieces
    are dropped. Only the turns that reach into a window are cut (found with numpy on the
    turn list's cached start and end arrays); the others are kept whole, in order: a step's
    few windows cost the same on a 10-hour show as on a meeting (gate 9).
    """
    if len(turns) < _FAST_SPLIT or not windows:
        return _split_turns_loop(turns, windows)
    import numpy as np

    starts, ends = turn_arrays(turns)
    touching = ends <= starts   # empty turns: the loop drops them
    for w_start, w_end in windows:
        touching |= (starts < w_end) & (ends > w_start)
    cut = np.flatnonzero(touching).tolist()
    outside: list[Turn] = []
    inside: list[Turn] = []
    previous = 0
    for k in cut:
        outside.extend(turns[previous:k])   # whole turns before this one, as they are
        pieces_out, pieces_in = _split_turns_loop((turns[k],), windows)
        outside.extend(pieces_out)
        inside.extend(pieces_in)
        previous = k + 1
    outside.extend(turns[previous:])
    return outside, inside


_FAST_SPLIT = 64   # turns from which the windowed cut pays for its arrays
_ARRAYS = IdentityCache(16)
_SPEAKERS = IdentityCache(16)


def turn_arrays(turns: Sequence[Turn]) -> tuple[np.ndarray, np.ndarray]:
    """Start and end arrays of a turn list; a tuple's are cached by its identity, read-only
    (the walkthrough shares turn tuples between steps, and cuts and draws each several
    times)."""
    if not isinstance(turns, tuple):
        return _starts_ends(turns)
    return _ARRAYS.get_or_make((turns,), (), lambda: _starts_ends(turns, read_only=True))


def turn_speakers(turns: Sequence[Turn]) -> tuple[list[str], np.ndarray]:
    """The sorted speaker labels of a turn list and each turn's index into them (the turns'
    order); a tuple's are cached by its identity, read-only."""
    if not isinstance(turns, tuple):
        return _speakers(turns)
    return _SPEAKERS.get_or_make((turns,), (), lambda: _speakers(turns, read_only=True))


def _speakers(turns: Sequence[Turn], read_only: bool = False) -> tuple[list[str], np.ndarray]:
    import numpy as np

    labels = sorted({t.speaker for t in turns})
    index = {label: k for k, label in enumerate(labels)}
    codes = np.fromiter((index[t.speaker] for t in turns), dtype=np.int64, count=len(turns))
    if read_only:
        codes.flags.writeable = False
    return labels, codes


def _starts_ends(turns: Sequence[Turn], read_only: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    n = len(turns)
    starts = np.fromiter((t.start for t in turns), dtype=float, count=n)
    ends = np.fromiter((t.end for t in turns), dtype=float, count=n)
    if read_only:
        starts.flags.writeable = ends.flags.writeable = False
    return starts, ends


def _split_turns_loop(turns: Sequence[Turn], windows: Sequence[Span]
                      ) -> tuple[list[Turn], list[Turn]]:
    """`split_turns` turn by turn (its definition; the windowed path is held equal to it)."""
    starts = [s for s, _ in windows]
    outside: list[Turn] = []
    inside: list[Turn] = []
    for turn in turns:
        cursor = turn.start
        i = max(bisect_right(starts, turn.start) - 1, 0)
        while i < len(windows) and windows[i][0] < turn.end:
            w_start, w_end = windows[i]
            if w_end <= cursor:
                i += 1
                continue
            if w_start > cursor:
                outside.append(Turn(cursor, w_start, turn.speaker))
            lo, hi = max(cursor, w_start), min(turn.end, w_end)
            if hi > lo:
                inside.append(Turn(lo, hi, turn.speaker))
            cursor = max(cursor, hi)
            i += 1
        if turn.end > cursor:
            outside.append(Turn(cursor, turn.end, turn.speaker))
    return outside, inside


def fresh_label(base: str, taken: Collection[str]) -> str:
    """`base`, or `base` followed by as many primes as needed to be absent from `taken`."""
    label = base
    while label in taken:
        label += "'"
    return label


def corrected_turns(reference: Sequence[Turn], hypothesis: Sequence[Turn],
                    windows: Sequence[Span], mapping: Mapping[str, str],
                    taken: Collection[str] | None = None) -> tuple[Turn, ...]:
    """The hypothesis with the windows replaced by the reference (DESIGN.md 1.2).

    `mapping` is the optimal mapping of `hypothesis`, hypothesis label -> reference label.
    A reference speaker with no hypothesis label gets `+<reference label>` (primed until it
    collides with no label of either side). Sorted by (start, end, speaker). When
    `reference` and `hypothesis` are only the turns around the windows, `taken` gives every
    label of both whole sides (the new labels must be the same).
    """
    windows = merge_spans(windows)
    outside, _ = split_turns(hypothesis, windows)
    _, truth = split_turns(reference, windows)
    label_of = {r: h for h, r in mapping.items()}
    taken = set(taken) if taken is not None else \
        {t.speaker for t in hypothesis} | {t.speaker for t in reference}
    for speaker in sorted({t.speaker for t in truth}):
        if speaker not in label_of:
            label_of[speaker] = fresh_label(f"+{speaker}", taken)
            taken.add(label_of[speaker])
    fixed = [Turn(t.start, t.end, label_of[t.speaker]) for t in truth]
    return tuple(sorted(outside + fixed, key=_turn_order))


_turn_order = attrgetter("start", "end", "speaker")
"""A turn's own order (start, end, speaker) as a tuple key: compared in C, where sorting
10,000 dataclass instances by their generated __lt__ took a tenth of a second (and made in C:
a Python function making the tuple took half of a 10,000-turn sort's 5.5 ms)."""


IMPAIRED_LABEL = "<impaired>"


def impaired_turns(hypothesis: Sequence[Turn], windows: Sequence[Span],
                   reserved: Collection[str] = (), labels: Collection[str] | None = None
                   ) -> tuple[tuple[Turn, ...], str]:
    """The hypothesis with its speech inside the windows given to one new label; returns
    (turns sorted by (start, end, speaker), that label). Score it with the label as
    `unmappable`. The label is `<impaired>`, primed until absent from the hypothesis and
    `reserved` (pass the reference labels). `labels`: every label of the whole hypothesis
    when `hypothesis` is only its turns around the windows."""
    windows = merge_spans(windows)
    outside, inside = split_turns(hypothesis, windows)
    own = set(labels) if labels is not None else {t.speaker for t in hypothesis}
    label = fresh_label(IMPAIRED_LABEL, own | set(reserved))
    wrong = [Turn(t.start, t.end, label) for t in inside]
    return tuple(sorted(outside + wrong, key=_turn_order)), label
