"""Meetings with words for the word-metric tests: real AMI RTTMs (the reference data's
dover-lap set: the AMI reference and a VB-HMM system's output) with synthetic words placed
inside the reference turns, and the SegLST meeteval reads them from."""
from __future__ import annotations

import random
from pathlib import Path

from llgui.core.types import DiarDocument, Stamp, Turn, Word
from llgui.io.rttm import load_rttm

VOCABULARY = ("yes okay so the remote control should be um yeah we have a design for it "
              "but I think maybe that is too expensive right").split()


def words_in_turns(turns, seed: int = 0, start: float = 0.0, end: float = float("inf")):
    """Words of 0.15-0.5 s back to back inside each reference turn (between start and end),
    each wholly inside its turn, with the turn's speaker."""
    rng = random.Random(seed)
    out = []
    for turn in sorted(turns, key=lambda t: (t.start, t.speaker)):
        if turn.end <= start or turn.start >= end:
            continue
        t = max(turn.start, start)
        stop = min(turn.end, end)
        while True:
            duration = round(rng.uniform(0.15, 0.5), 3)
            if t + duration > stop:
                break
            w_start = round(t, 3)
            out.append((w_start, round(t + duration, 3), rng.choice(VOCABULARY), turn.speaker))
            t += duration + rng.choice((0.0, 0.0, 0.05, 0.2))
    out.sort()
    return tuple(Word(s, e, w, spk, (s, i, 0)) for i, (s, e, w, spk) in enumerate(out))


def ami_document(reference_data: Path, meeting: str = "ES2004a.Mix-Headset",
                 end: float = 600.0, seed: int = 0) -> DiarDocument:
    """The first `end` seconds of an AMI meeting: reference turns, VB-HMM hypothesis turns,
    reference words placed inside the reference turns."""
    ref = load_rttm(reference_data / "dover-lap" / "ref_rttm_test")[meeting]
    hyp = load_rttm(reference_data / "dover-lap" / "rttm_test_vb")[meeting]
    cut = lambda turns: tuple(Turn(t.start, min(t.end, end), t.speaker)  # noqa: E731
                              for t in turns if t.start < end)
    ref, hyp = cut(ref), cut(hyp)
    return DiarDocument(meeting, Stamp.parse(0), meeting, ref, hyp,
                        words=words_in_turns(ref, seed, end=end))


def seglst(words, session: str = "m"):
    """meeteval's SegLST of `words` (those with a speaker), one segment per word."""
    from meeteval.io.seglst import SegLST

    return SegLST([dict(session_id=session, speaker=str(w.speaker), words=w.word,
                        start_time=w.start, end_time=w.end)
                   for w in sorted(words, key=lambda w: w.order) if w.speaker is not None])
