"""Gate 13: one penalised cpWER / tcpWER step on a one-hour meeting, against meeteval.

The meeting is random but deterministic (seeded): 4 speakers taking turns over 3,600 s with
pauses and overlaps, about 9,000 words placed back to back inside the reference turns (a
vocabulary of 500); the hypothesis turns are the reference's with shifted boundaries, one
speaker split in two and some turns given to the wrong speaker, and the hypothesis words are
the reference words with those turns' labels (speaker attribution only, as docs/metrics.md
states it). A step is a `name` answer at a word (3 s window); the penalised step is its S_cor
and S_imp (`WordTrack.corrected` and `impaired`; S_adapt of an unchanged hypothesis is the
cached current score), timed as the median over 15 steps spread over the hour. meeteval
scores the same step by rescoring the whole meeting twice (`meeteval.wer.cpwer` /
`tcpwer` on the corrected hypothesis, and on the hypothesis without the impaired words),
timed on 2 of those steps; its scores are compared to ours on those steps. PASS iff every
compared score is equal and the worst median is <= 20 ms.
"""
from __future__ import annotations

import logging
import random
import statistics
import time

from benchmarks.common import GateResult

NAME = "words"
LIMIT_MS = 20.0
N_STEPS = 15
N_LIBRARY = 2
COLLAR = 5.0


def meeting(seed: int = 13, duration: float = 3600.0):
    """(DiarDocument with words, number of words)."""
    from llgui.core.types import DiarDocument, Stamp, Turn, Word

    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(500)]
    speakers = ["A", "B", "C", "D"]
    reference, t = [], 0.0
    while t < duration - 20:
        speaker = rng.choice(speakers)
        length = rng.uniform(1.0, 12.0)
        reference.append(Turn(round(t, 3), round(t + length, 3), speaker))
        t += length + rng.choice((-0.8, 0.0, 0.3, 1.5))
    words, k = [], 0
    for turn in reference:
        w = turn.start
        while True:
            d = round(rng.uniform(0.2, 0.45), 3)
            if w + d > turn.end:
                break
            words.append(Word(round(w, 3), round(w + d, 3), rng.choice(vocabulary), turn.speaker,
                              (round(w, 3), k, 0)))
            k += 1
            w += d + 0.02
    words.sort(key=lambda x: x.order)
    names = {"A": "s1", "B": "s2", "C": "s3", "D": "s4"}
    hypothesis = []
    for turn in reference:
        label = names[turn.speaker]
        if turn.speaker == "D" and turn.start > duration / 2:
            label = "s5"                                   # one speaker split in two
        if rng.random() < 0.15:
            label = rng.choice(list(names.values()))       # confusions
        shift = rng.uniform(-0.4, 0.4)
        hypothesis.append(Turn(round(turn.start + shift, 3), round(turn.end + shift, 3), label))
    doc = DiarDocument("meeting", Stamp.parse(0), "meeting", tuple(sorted(reference)),
                       tuple(sorted(hypothesis)), words=tuple(words))
    return doc, len(words)


def run() -> GateResult:
    import meeteval

    from llgui.core.cost import CostModel
    from llgui.core.diarization.word_track import WordTrack, make_word_metric
    from llgui.core.diarization.words import meeteval_version, quiet_meeteval
    from llgui.core.types import PointTarget, Step

    doc, n_words = meeting()
    rng = random.Random(7)
    points = sorted(rng.choice(doc.words).midpoint for _ in range(N_STEPS))
    steps = [Step(doc.id, i + 1, "active", "name", PointTarget(t), "x")
             for i, t in enumerate(points)]
    details, worst, worst_ratio, all_equal = [], 0.0, float("inf"), True
    for name in ("cpwer", "tcpwer"):
        settings = {"word_collar": COLLAR} if name == "tcpwer" else {}
        t0 = time.perf_counter()
        track = WordTrack(doc, make_word_metric(name, settings), CostModel())
        track.current()
        setup = time.perf_counter() - t0
        track.corrected(steps[0]), track.impaired(steps[0])      # warm-up (numba's cache)
        times, ours = [], []
        for step in steps:
            t0 = time.perf_counter()
            s_cor, s_imp = track.corrected(step), track.impaired(step)
            times.append(time.perf_counter() - t0)
            ours.append((s_cor.score, s_imp.score))
        median = statistics.median(times)
        lib_times, equal = [], True
        for k in range(N_LIBRARY):
            i = k * (N_STEPS // N_LIBRARY)
            step = steps[i]
            corrected = track.corrected_words(step)
            impaired, label = track.impaired_words(step)
            kept = [w for w in impaired if w.speaker not in (None, label)]
            moved = sum(1 for w in impaired if w.speaker == label)
            t0 = time.perf_counter()
            with quiet_meeteval():
                cor = _meeteval(meeteval, name, doc.words, corrected)
                imp = _meeteval(meeteval, name, doc.words, kept)
            lib_times.append(time.perf_counter() - t0)
            s_cor = 100.0 * cor.errors / cor.length
            s_imp = 100.0 * (imp.errors + moved) / imp.length
            equal &= abs(s_cor - ours[i][0]) <= 1e-9 and abs(s_imp - ours[i][1]) <= 1e-9
        # moving to h_n (a memorising system's turns) rebuilds the stored rows of the speaker
        # pairs whose words changed: reported, not part of the step's figure
        from dataclasses import replace

        from llgui.core.types import Adapted

        adapted = replace(steps[-1], adapted=Adapted(turns=track.corrected_hypothesis(steps[-1])))
        t0 = time.perf_counter()
        track.advance(adapted)
        advance = time.perf_counter() - t0
        lib = statistics.median(lib_times)
        ratio = lib / median
        all_equal &= equal
        worst, worst_ratio = max(worst, median), min(worst_ratio, ratio)
        details.append(
            f"{name}{' collar ' + format(COLLAR, 'g') if name == 'tcpwer' else ''}: ours "
            f"{median * 1e3:.2f} ms (median of {N_STEPS} steps, S_cor + S_imp; max "
            f"{max(times) * 1e3:.2f} ms), meeteval {lib:.3f} s rescoring the meeting twice, "
            f"{ratio:.0f}x; {'equal' if equal else 'NOT EQUAL'} on {N_LIBRARY} steps; "
            f"set-up (pair rows of h0) {setup:.2f} s, advance to a memorised h_n "
            f"{advance * 1e3:.0f} ms")
    details.append(f"limit: <= {LIMIT_MS:g} ms, equal to meeteval; {n_words} words, "
                   f"{len(doc.reference)} reference turns over 3600 s")
    return GateResult(figure=f"{worst * 1e3:.2f} ms worst median", ratio=worst_ratio,
                      library=f"meeteval {meeteval_version()}",
                      passed=all_equal and worst * 1e3 <= LIMIT_MS, details=details)


def _meeteval(meeteval, name, reference, hypothesis):
    from meeteval.io.seglst import SegLST

    def seglst(words):
        return SegLST([dict(session_id="m", speaker=str(w.speaker), words=w.word,
                            start_time=w.start, end_time=w.end)
                       for w in sorted(words, key=lambda w: w.order) if w.speaker is not None])

    if name == "cpwer":
        return meeteval.wer.cpwer(seglst(reference), seglst(hypothesis))["m"]
    return meeteval.wer.tcpwer(seglst(reference), seglst(hypothesis), collar=COLLAR)["m"]


logging.getLogger("preprocess").setLevel(logging.ERROR)
