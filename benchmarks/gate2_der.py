"""Gate 2: DER of a 1-hour document with 1,000 turns per side, against pyannote.metrics.

The document is random but deterministic (seeded): 1,000 reference turns by 8 speakers and
1,000 hypothesis turns by 10 labels over 3,600 s, times on a millisecond grid as RTTMs write
them, both sides with plenty of overlap. For each configuration (no collar; collar 0.5 s total
width; skip_overlap) `llgui.core.diarization.der.der_components` is timed (median of several runs, Turn
lists in, components out) and `pyannote.metrics.diarization.DiarizationErrorRate` once (a new
metric object each time, Annotation objects built beforehand, outside the timing), and the
components compared to 1e-9. PASS iff every configuration is equal, the worst fast median is
<= 10 ms and every ratio is >= 50.
"""
from __future__ import annotations

import random
import time
import warnings

from benchmarks.common import GateResult, timed

NAME = "der"
LIMIT_MS = 10.0
MIN_RATIO = 50.0
REPEAT = 25
CONFIGS = {
    "no collar": dict(collar=0.0, skip_overlap=False),
    "collar 0.5": dict(collar=0.5, skip_overlap=False),
    "skip_overlap": dict(collar=0.0, skip_overlap=True),
}
FIELDS = (("miss", "missed detection"), ("false_alarm", "false alarm"),
          ("confusion", "confusion"), ("correct", "correct"), ("total", "total"))


def document(seed: int = 2, n_turns: int = 1000, duration: float = 3600.0):
    """(reference, hypothesis) turn lists: millisecond times, overlapping turns on both sides."""
    from llgui.core.types import Turn

    rng = random.Random(seed)

    def side(labels):
        turns = []
        for _ in range(n_turns):
            start = round(rng.uniform(0.0, duration - 12.0), 3)
            turns.append(Turn(start, round(start + rng.uniform(0.3, 9.0), 3), rng.choice(labels)))
        return turns

    return side([f"spk{i}" for i in range(8)]), side([f"cluster{i}" for i in range(10)])


def run() -> GateResult:
    from pyannote.metrics.diarization import DiarizationErrorRate

    from llgui.core.diarization.der import der_components
    from llgui.core.diarization.reference import _annotation, pyannote_version

    reference, hypothesis = document()
    ref_ann, hyp_ann = _annotation(reference), _annotation(hypothesis)
    der_components(reference, hypothesis)          # warm-up: imports scipy.optimize
    details, worst_fast, worst_ratio, all_equal = [], 0.0, float("inf"), True
    for name, options in CONFIGS.items():
        fast_s, fast = timed(lambda: der_components(reference, hypothesis, **options), REPEAT)
        metric = DiarizationErrorRate(**options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            lib = metric(ref_ann, hyp_ann, detailed=True)
            lib_s = time.perf_counter() - t0
        diff = max(abs(getattr(fast, ours) - lib[theirs]) for ours, theirs in FIELDS)
        diff = max(diff, abs(fast.der - 100 * lib["diarization error rate"]))
        equal = diff <= 1e-9
        ratio = lib_s / fast_s
        all_equal &= equal
        worst_fast = max(worst_fast, fast_s)
        worst_ratio = min(worst_ratio, ratio)
        details.append(
            f"{name}: ours {fast_s * 1e3:.2f} ms (median of {REPEAT}), pyannote {lib_s:.3f} s, "
            f"{ratio:.0f}x, DER {fast.der:.6f} % vs {100 * lib['diarization error rate']:.6f} %, "
            f"max |diff| {diff:.1e} {'equal' if equal else 'NOT EQUAL'}"
        )
    passed = all_equal and worst_fast * 1e3 <= LIMIT_MS and worst_ratio >= MIN_RATIO
    details.append(f"limits: <= {LIMIT_MS:g} ms, >= {MIN_RATIO:g}x, equal to 1e-9; "
                   f"{len(reference)} + {len(hypothesis)} turns over 3600 s")
    return GateResult(
        figure=f"{worst_fast * 1e3:.2f} ms worst median",
        ratio=worst_ratio,
        library=f"pyannote.metrics {pyannote_version()}",
        passed=passed,
        details=details,
    )
