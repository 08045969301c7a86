"""Gate 15: reading a SegLST word file of 10**6 words, against meeteval's reader.

The file is random but deterministic (seeded): 10**6 words in 100,000 segments of 10 words
(a vocabulary of 500), spread over 200 sessions of 4 speakers, written as meeteval and CHiME
write SegLST (one JSON object a line, every session of a data set in one file). Ours is
`llgui.io.seglst.load_seglst` (every segment checked) then the words of one session made,
as a bundle document naming the file reads it; the library's is the standard library's
`json.loads` of the file (meeteval's own `SegLST.load` needs simplejson, which llgui does not
install) into `meeteval.io.SegLST`, grouped by session (no check). The session's words (their
text and count) are compared to meeteval's. PASS iff ours takes <= 10 s (issue 38.5: the
reader was quadratic, 10**6 words did not finish in 7 minutes).
"""
from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from benchmarks.common import GateResult, timed

NAME = "word files"
LIMIT_S = 10.0
WORDS = 1_000_000
PER_SEGMENT = 10
SESSIONS = 200


def write_file(path: Path, seed: int = 15) -> str:
    """Write the file; returns the session read."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(500)]
    clock = [0.0] * SESSIONS
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n")
        for k in range(WORDS // PER_SEGMENT):
            s = rng.randrange(SESSIONS)
            start = clock[s]
            end = start + rng.uniform(2.0, 6.0)
            clock[s] = end + 0.1
            segment = {"session_id": f"session{s:03d}", "speaker": f"spk{rng.randrange(4)}",
                       "start_time": round(start, 3), "end_time": round(end, 3),
                       "words": " ".join(rng.choice(vocabulary) for _ in range(PER_SEGMENT))}
            f.write(("," if k else "") + json.dumps(segment) + "\n")
        f.write("]\n")
    return "session007"


def run() -> GateResult:
    import meeteval

    from llgui.io.seglst import load_seglst

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "words.json"
        session = write_file(path)

        def ours():
            return list(load_seglst(path)[session])

        def theirs():
            segments = json.loads(path.read_text(encoding="utf-8"))
            return meeteval.io.SegLST(segments).groupby("session_id")[session]

        seconds, words = timed(ours)
        library_seconds, segments = timed(theirs)
    expected = " ".join(s["words"] for s in sorted(segments, key=lambda s: s["start_time"]))
    same = " ".join(w.word for w in words) == expected
    passed = same and seconds <= LIMIT_S
    return GateResult(
        f"{seconds:.1f} s for {WORDS:,} words ({len(words):,} in the session read)",
        library_seconds / seconds, f"json + meeteval {meeteval.__version__} SegLST",
        passed,
        details=[f"meeteval: {library_seconds:.1f} s; the session's words "
                 f"{'equal' if same else 'DIFFER from'} meeteval's; limit {LIMIT_S:g} s"])
