"""Diarization files: RTTM and MDTM speaker turns, UEM scoring regions.

All times are seconds from the start of the recording. Fields are separated by any run of
whitespace; blank lines and comment lines (starting with ";", which covers NIST's ";;") are
skipped; one U+FEFF at the start of the file is ignored.

RTTM (NIST RT-09): `SPEAKER file chan onset dur <NA> <NA> speaker <NA> <NA>`

- 10 fields; 9 are accepted too, because several tools (SCTK's own test files among them)
  drop the last `<NA>` (the signal lookahead time);
- only SPEAKER lines are turns; the other RTTM types (SPKR-INFO, LEXEME, NON-LEX, NON-SPEECH,
  SEGMENT, NOSCORE, NO_RT_METADATA, FILLER, EDIT, IP, SU, CB, A/P) are skipped unchecked; any
  other first field is an error (a misspelt SPEAKER would otherwise lose turns in silence);
- onset and duration are finite numbers >= 0; a turn of duration 0 is skipped, as
  pyannote.core does when it builds an Annotation (it has no extent, so it changes no metric);
  its file still appears in the result, with whatever non-empty turns it has.

MDTM: `file chan onset dur speaker conf gender label`, 8 fields; the type (field 5) must be
`speaker` (any case); column 4 is a duration; the speaker label is field 8.

UEM: `file chan start end`, 4 fields, 0 <= start < end; per file the segments are sorted and
overlapping or touching segments merged.

`load_rttm` and `load_mdtm` return `{file: turns}` with the files in order of first appearance
and each file's turns sorted (by start, end, speaker). A file with no turn line at all is an
error ("no SPEAKER turns"): an empty system output is far more often a crashed run than a
system that found no speech anywhere.

`write_rttm` writes turns back (10 fields, onset and duration as Python's shortest float
text). RTTM stores a duration, so `load_rttm` gives back start + (end - start), which may
differ from the end in the last bit: whoever must score what a loader sees reads the file
back (as `llgui simulate` does).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from llgui.core.diarization.edit import merge_spans
from llgui.core.errors import Problems
from llgui.core.types import Turn
from llgui.core.numbers import parse_number
from llgui.io._read import MAX_RTTM_LINES, decode_lines, describe, foreign, read_bytes

RTTM_TYPES = (
    "SEGMENT", "NOSCORE", "NO_RT_METADATA", "LEXEME", "NON-LEX", "NON-SPEECH", "FILLER",
    "EDIT", "IP", "SU", "CB", "A/P", "SPEAKER", "SPKR-INFO",
)
"""Line types of the RTTM specification (NIST RT-09 evaluation plan, appendix A)."""

_RTTM_FIELDS = "SPEAKER file chan onset dur <NA> <NA> speaker <NA> <NA>"
_MDTM_FIELDS = "file chan onset dur speaker conf gender label"
_UEM_FIELDS = "file chan start end"


_SHAPES = {
    # a line of the format has its first field among the RTTM types / its number of fields
    "an RTTM file": lambda line: line.split()[0].decode("latin-1") in RTTM_TYPES,
    "an MDTM file": lambda line: len(line.split()) == 8,
    "a UEM file": lambda line: len(line.split()) == 4,
}


def _lines(path: str | Path, problems: Problems, what: str) -> list[str | None] | None:
    data = read_bytes(path, problems, max_lines=MAX_RTTM_LINES, split="split it by recording")
    if data is None:
        return None
    problems.expect_format(what, foreign(data, _SHAPES[what], b";"))
    return decode_lines(data, problems, strip_bom=True)


def _skip(line: str) -> bool:
    stripped = line.lstrip()
    return not stripped or stripped.startswith(";")


def _number(problems: Problems, line: int, name: str, text: str) -> float | None:
    """A finite number >= 0, or None after adding the problem."""
    try:
        value = parse_number(text)
    except ValueError as exc:
        problems.add(line, f"{name} {describe(text)} {exc}")
        return None
    if value < 0:
        problems.add(line, f"{name} {describe(text)} is negative")
        return None
    return value


def _turn(problems: Problems, line: int, onset: str, dur: str, speaker: str) -> Turn | None:
    start = _number(problems, line, "onset", onset)
    duration = _number(problems, line, "duration", dur)
    if start is None or duration is None:
        return None
    if not math.isfinite(start + duration):
        problems.add(line, f"onset + duration ({onset} + {dur}) is not a finite number")
        return None
    return Turn(start, start + duration, speaker)


def _finish(turns: dict[str, list[Turn]], n_turn_lines: int, problems: Problems,
            what: str) -> dict[str, tuple[Turn, ...]]:
    if not problems and n_turn_lines == 0:
        problems.add(0, f"no {what} turns")
    problems.raise_if_any()
    return {uri: tuple(sorted(t for t in ts if t.end > t.start)) for uri, ts in turns.items()}


def load_rttm(path: str | Path) -> dict[str, tuple[Turn, ...]]:
    """Speaker turns of an RTTM file: `{file field: turns sorted by (start, end, speaker)}`.

    Raises LoadError listing every problem (see the module docstring for the conventions).
    """
    problems = Problems(path)
    lines = _lines(path, problems, "an RTTM file")
    if lines is None:
        problems.raise_if_any()
    turns: dict[str, list[Turn]] = {}
    n_speaker = 0
    for number, line in enumerate(lines, 1):
        if line is None or _skip(line):
            continue
        fields = line.split()
        kind = fields[0]
        if kind != "SPEAKER":
            if kind not in RTTM_TYPES:
                problems.add(
                    number,
                    f"unknown line type {describe(kind)} (expected SPEAKER, or another RTTM "
                    f"type, which is skipped: {', '.join(t for t in RTTM_TYPES if t != 'SPEAKER')})",
                )
            continue
        n_speaker += 1
        if len(fields) not in (9, 10):
            problems.add(number, f"expected 10 fields ({_RTTM_FIELDS}), got {len(fields)}")
            continue
        turn = _turn(problems, number, fields[3], fields[4], fields[7])
        bucket = turns.setdefault(fields[1], [])
        if turn is not None:
            bucket.append(turn)
    return _finish(turns, n_speaker, problems, "SPEAKER")


def load_mdtm(path: str | Path) -> dict[str, tuple[Turn, ...]]:
    """Speaker turns of an MDTM file, in the same shape as `load_rttm`."""
    problems = Problems(path)
    lines = _lines(path, problems, "an MDTM file")
    if lines is None:
        problems.raise_if_any()
    turns: dict[str, list[Turn]] = {}
    n_lines = 0
    for number, line in enumerate(lines, 1):
        if line is None or _skip(line):
            continue
        fields = line.split()
        n_lines += 1
        if len(fields) != 8:
            problems.add(number, f"expected 8 fields ({_MDTM_FIELDS}), got {len(fields)}")
            continue
        if fields[4].lower() != "speaker":
            problems.add(number, f"type {describe(fields[4])} is not 'speaker' (field 5)")
            continue
        turn = _turn(problems, number, fields[2], fields[3], fields[7])
        bucket = turns.setdefault(fields[0], [])
        if turn is not None:
            bucket.append(turn)
    return _finish(turns, n_lines, problems, "speaker")


def load_uem(path: str | Path) -> dict[str, tuple[tuple[float, float], ...]]:
    """Scoring regions of a UEM file: `{file: ((start, end), ...)}`, sorted, overlaps merged."""
    problems = Problems(path)
    lines = _lines(path, problems, "a UEM file")
    if lines is None:
        problems.raise_if_any()
    spans: dict[str, list[tuple[float, float]]] = {}
    n_lines = 0
    for number, line in enumerate(lines, 1):
        if line is None or _skip(line):
            continue
        fields = line.split()
        n_lines += 1
        if len(fields) != 4:
            problems.add(number, f"expected 4 fields ({_UEM_FIELDS}), got {len(fields)}")
            continue
        start = _number(problems, number, "start", fields[2])
        end = _number(problems, number, "end", fields[3])
        if start is None or end is None:
            continue
        if end <= start:
            problems.add(
                number, f"end {describe(fields[3])} is not after start {describe(fields[2])}"
            )
            continue
        spans.setdefault(fields[0], []).append((start, end))
    if not problems and n_lines == 0:
        problems.add(0, "no UEM segments")
    problems.raise_if_any()
    return {uri: merge_spans(segments) for uri, segments in spans.items()}


def load_turns(path: str | Path) -> dict[str, tuple[Turn, ...]]:
    """`load_mdtm` for a `.mdtm` file (any case), `load_rttm` for anything else."""
    if Path(path).suffix.lower() == ".mdtm":
        return load_mdtm(path)
    return load_rttm(path)


def format_rttm(uri: str, turns: Sequence[Turn]) -> str:
    """The RTTM text of `turns` of file `uri`: one SPEAKER line per turn, in the order given."""
    lines = [f"SPEAKER {uri} 1 {t.start!r} {t.end - t.start!r} <NA> <NA> {t.speaker} <NA> <NA>"
             for t in turns]
    return "\n".join(lines) + "\n"


def write_rttm(path: str | Path, uri: str, turns: Sequence[Turn]) -> None:
    """Write `format_rttm(uri, turns)` to `path` (atomically)."""
    from llgui.utils.atomic import write_atomic   # not on the reading path's imports

    write_atomic(Path(path), format_rttm(uri, turns))
