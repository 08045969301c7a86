"""What a diarization system did with a correction (issue 23, item 14): MT says "applied /
ignored / changed otherwise" per segment; a diarization step gets the same verdict.

The step's windows are where the human listened. There the hypothesis the human saw
(h_{n-1}), the correction (the reference there) and the system's next hypothesis (h_n) are
compared in *reference terms*: every hypothesis label is replaced by the reference speaker its
optimal mapping gives it (h_{n-1} by its mapping, h_n by its own, so a
system that renames its clusters is not taken to have changed anything); every unmapped label
counts as one "unmapped speaker". On a grid of `GRID` seconds the set of speakers active in each frame is compared:

- `agree_corrected`: the share of the window time where h_n says what the correction says;
- `agree_seen`: the share where h_n still says what h_{n-1} said;
- `changed_elsewhere`: seconds outside the windows where h_n differs from h_{n-1}
  (the system generalising, or breaking something).

The verdict: "nothing to correct" when h_{n-1} already agreed with the correction (at least
AGREE of the window time) and h_n keeps it, "applied" when h_n agrees with the correction, "ignored" when h_n
still says what h_{n-1} said, "changed otherwise" in between.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from llgui.core.types import Turn
from llgui.utils.identity_cache import IdentityCache

_CACHE = IdentityCache(16)

GRID = 0.01
"""Seconds per frame in the windows (RTTM times have 2-3 decimals)."""
ELSEWHERE_GRID = 0.1
"""Seconds per frame outside them (`changed_elsewhere` is said to a tenth of a second)."""
AGREE = 0.95
"""Share of the window time at which two versions are taken to say the same."""


@dataclass(frozen=True)
class Verdict:
    verdict: str                 # applied | ignored | changed otherwise | nothing to correct
    agree_corrected: float       # share of window time, h_n vs the correction
    agree_seen: float            # share of window time, h_n vs h_{n-1}
    changed_elsewhere: float     # seconds outside the windows where h_n differs from h_{n-1}
    window_seconds: float

    def text(self) -> str:
        """Short: "applied (98 % as corrected, 12 s changed elsewhere)"."""
        return self.texts()[0]

    def texts(self) -> tuple[str, str, str]:
        """`text()`, then shorter ones for less room: without what changed elsewhere, then
        the verdict alone."""
        detail = f"{100 * self.agree_corrected:.0f} % as corrected"
        more = (f", {self.changed_elsewhere:.0f} s changed elsewhere"
                if self.changed_elsewhere >= ELSEWHERE_GRID else ", nothing else changed")
        return (f"{self.verdict} ({detail}{more})", f"{self.verdict} ({detail})",
                self.verdict)

    def explanation(self) -> str:
        """What the verdict means, for a tooltip."""
        return {"applied": "the system's hₙ says in the listened windows what the "
                           "correction says",
                "ignored": "the system's hₙ still says in the listened windows what "
                           "hₙ₋₁ said",
                "changed otherwise": "the system's hₙ says in the listened windows "
                                     "neither what hₙ₋₁ said nor what the "
                                     "correction says",
                "nothing to correct": "hₙ₋₁ already said what the correction "
                                      "says, and hₙ keeps it"}[self.verdict] + (
            "; compared in reference terms (each label as the reference speaker its optimal "
            "mapping gives it) on a 10-ms grid; 'elsewhere': time outside the windows where "
            "hₙ differs from hₙ₋₁")


def _frames(turns: Sequence[Turn], names: Mapping[str, int], lo: float, n: int,
            grid: float) -> np.ndarray:
    """Bit mask of the speakers (by `names`) active in each of n frames of `grid` s from lo."""
    if not turns:
        return np.zeros(n, dtype=np.uint64)
    count = len(turns)
    starts = np.fromiter((t.start for t in turns), dtype=float, count=count)
    ends = np.fromiter((t.end for t in turns), dtype=float, count=count)
    bits = np.fromiter((names[t.speaker] % 64 for t in turns), dtype=np.int64, count=count)
    return _frame_bits(starts, ends, bits, lo, n, grid)


def _frame_bits(starts: np.ndarray, ends: np.ndarray, bits: np.ndarray, lo: float, n: int,
                grid: float) -> np.ndarray:
    """`_frames` of turns given as arrays (`bits`: each turn's speaker bit). Each frame
    [a, b) of a turn, rounded half to even as round() does; the speakers' bits are set per
    stretch between two consecutive turn edges (a few per turn), then spread over the
    stretch's frames: per speaker over the frames themselves, a 10-hour show's 360,000
    frames were counted once for each of its speakers at every step."""
    mask = np.zeros(n, dtype=np.uint64)
    a = np.maximum(np.rint((starts - lo) / grid), 0).astype(np.int64)
    b = np.minimum(np.rint((ends - lo) / grid), n).astype(np.int64)
    keep = b > a
    a, b, bits = a[keep], b[keep], bits[keep]
    if not len(a):
        return mask
    cuts = np.unique(np.concatenate((a, b)))   # stretch k: frames cuts[k] .. cuts[k+1] - 1
    first, last = np.searchsorted(cuts, a), np.searchsorted(cuts, b)
    stretch = np.zeros(len(cuts), dtype=np.uint64)
    for bit in np.unique(bits).tolist():
        mine = bits == bit
        edges = np.zeros(len(cuts) + 1, dtype=np.int64)
        np.add.at(edges, first[mine], 1)
        np.add.at(edges, last[mine], -1)
        stretch[np.cumsum(edges[:len(cuts)]) > 0] |= np.uint64(1) << np.uint64(bit)
    # (the last edge is a turn's end: nothing is active from it on)
    mask[cuts[0]:cuts[-1]] = np.repeat(stretch[:-1], np.diff(cuts))
    return mask


_UNMAPPED = "\x00unmapped"


def _in_reference_terms(turns, mapping) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  list[str]]:
    """A turn list as arrays in reference terms: starts, ends, each turn's index into the
    returned labels (each of its speakers as `mapping` names it; unmapped ones apart). The
    arrays are the turn list's own, cached by its identity (`turn_arrays`): a 10-hour show's
    10,000 turns were made into new turns at every step."""
    from llgui.core.diarization.edit import turn_arrays, turn_speakers

    starts, ends = turn_arrays(turns)
    labels, codes = turn_speakers(turns)
    if mapping is None:
        return starts, ends, codes, labels
    return starts, ends, codes, [mapping.get(label, _UNMAPPED) for label in labels]


def verdict(seen: Sequence[Turn], reference: Sequence[Turn], adapted: Sequence[Turn],
            windows: Sequence[tuple[float, float]], seen_mapping: Mapping[str, str] | None,
            adapted_mapping: Mapping[str, str] | None) -> Verdict | None:
    """What h_n (`adapted`) did with the correction of the `windows` (module text); None
    for a step without windows in this document. Inside the windows the corrected hypothesis
    is the reference (DESIGN 1.2), so the correction is compared as the `reference` itself:
    the corrected hypothesis gives a reference speaker no cluster stands for a fresh label,
    which no mapping names. The windows are compared on a GRID-second
    grid, the rest of the recording on an ELSEWHERE_GRID one (a 10-hour show stays a few
    megabytes)."""
    windows = [(float(a), float(b)) for a, b in windows if b > a]
    if not windows:
        return None
    lists = (_in_reference_terms(seen, seen_mapping or {}),
             _in_reference_terms(reference, None),   # the correction, as it says
             _in_reference_terms(adapted, adapted_mapping or {}))
    labels = sorted({label for *_, named in lists for label in named})
    names = {lab: i for i, lab in enumerate(labels)}
    # each list's turns as (starts, ends, speaker bit)
    s, c, h = ((starts, ends, np.array([names[x] % 64 for x in named],
                                       dtype=np.int64)[codes] if len(codes)
                else np.zeros(0, dtype=np.int64))
               for starts, ends, codes, named in lists)
    same_c = same_s = seen_ok = total = 0
    for a, b in windows:
        n = max(int(round((b - a) / GRID)), 1)

        def near(turns):
            starts, ends, bits = turns
            inside = (ends > a) & (starts < b)
            return starts[inside], ends[inside], bits[inside]

        fs, fc, fh = (_frame_bits(*near(x), a, n, GRID) for x in (s, c, h))
        same_c += int(np.count_nonzero(fh == fc))
        same_s += int(np.count_nonzero(fh == fs))
        seen_ok += int(np.count_nonzero(fs == fc))
        total += n
    agree_c, agree_s, seen_right = same_c / total, same_s / total, seen_ok / total
    elsewhere = 0.0
    if len(s[0]) or len(h[0]):
        times = np.concatenate((s[0], h[0], s[1], h[1]))
        lo, hi = float(times.min()), float(times.max())
        n = int(np.ceil((hi - lo) / ELSEWHERE_GRID)) + 1
        differs = (_frame_bits(*s, lo, n, ELSEWHERE_GRID)
                   != _frame_bits(*h, lo, n, ELSEWHERE_GRID))
        for a, b in windows:
            differs[max(int(np.floor((a - lo) / ELSEWHERE_GRID)), 0):
                    max(int(np.ceil((b - lo) / ELSEWHERE_GRID)), 0)] = False
        elsewhere = float(np.count_nonzero(differs)) * ELSEWHERE_GRID
    if seen_right >= AGREE:
        kind = "nothing to correct" if agree_c >= AGREE else "changed otherwise"
    elif agree_c >= AGREE:
        kind = "applied"
    elif agree_s >= AGREE:
        kind = "ignored"
    else:
        kind = "changed otherwise"
    return Verdict(kind, agree_c, agree_s, elsewhere, total * GRID)


def step_verdict(view, reference) -> Verdict | None:
    """`verdict` of a walkthrough's step view against its document's `reference`, cached by
    the identity of the turn lists (the workbench's step-view job computes it on a worker for
    a long show; the view reads it)."""
    if not view.windows:
        return None
    return _CACHE.get_or_make(
        (view.seen, reference, view.adapted), ("verdict", tuple(view.windows)),
        lambda: verdict(view.seen, reference, view.adapted, view.windows, view.mapping,
                        view.adapted_mapping))
