"""Word transcripts in NIST's STM and CTM, reader and writer (the formats meeteval reads).

STM: `file chan speaker start end words...` per line, one segment (the words may be empty;
as in meeteval, everything after the fifth field is the transcript, so SCTK's optional
`<label>` field would be scored as a word: leave it out); CTM: `file chan start dur word [conf]` per line, one word. CTM has no speaker field:
as in meeteval (`CTMGroup`), one CTM file holds one speaker's words, and the speaker is the
file's name without its extension. Blank lines and comment lines (";;") are skipped; times
are finite numbers, 0 <= start <= end (CTM: duration >= 0). Segments are split into words as
in `llgui.io.seglst` (meeteval's `character_based` timing), and `load_*` return `{file:
words}` ordered as meeteval concatenates them. Problems: `FILE:LINE: reason`; the file is a
regular file of bounded size.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from llgui.core.errors import Problems
from llgui.core.numbers import parse_number
from llgui.core.types import Word
from llgui.io._read import decode_lines, describe, read_bytes
from llgui.io.seglst import MAX_TIME, WordSessions

_STM_FIELDS = "file chan speaker start end words..."
_CTM_FIELDS = "file chan start dur word [conf]"


def _lines(path: str | Path, problems: Problems) -> list[str | None]:
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    lines = decode_lines(data, problems, strip_bom=True)
    return lines


def _time(problems: Problems, line: int, name: str, text: str) -> float | None:
    try:
        value = parse_number(text)
    except ValueError as exc:
        problems.add(line, f"{name} {describe(text)} {exc}")
        return None
    if not 0 <= value <= MAX_TIME:
        problems.add(line, f"{name} {describe(text)} must be between 0 and {MAX_TIME:g} s")
        return None
    return value


def _finish(problems: Problems, files: dict[str, list[tuple]]) -> WordSessions:
    """The files' segments, checked, as `WordSessions` (each file's words made when asked
    for: `llgui.io.seglst`)."""
    if not problems and not any(files.values()):
        problems.add(0, "no words")
    problems.raise_if_any()
    return WordSessions(files)


def _skip(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(";;")


def load_stm(path: str | Path) -> WordSessions:
    """`{file: words}` of an STM file; raises LoadError listing every problem."""
    problems = Problems(path)
    files: dict[str, list[tuple]] = {}
    for number, line in enumerate(_lines(path, problems), 1):
        if line is None or _skip(line):
            continue
        fields = line.split(maxsplit=5)
        if len(fields) < 5:
            problems.add(number, f"expected at least 5 fields ({_STM_FIELDS}), got {len(fields)}")
            continue
        start = _time(problems, number, "start", fields[3])
        end = _time(problems, number, "end", fields[4])
        if start is None or end is None:
            continue
        if end < start:
            problems.add(number, f"end {describe(fields[4])} is before start "
                                 f"{describe(fields[3])}")
            continue
        text = fields[5] if len(fields) > 5 else ""
        bucket = files.setdefault(fields[0], [])
        if text and not text.isspace():
            bucket.append((start, end, text, fields[2], number))
    return _finish(problems, files)


def load_ctm(path: str | Path, speaker: str | None = None) -> WordSessions:
    """`{file: words}` of a CTM file, every word of `speaker` (default: the file's name
    without its extension); raises LoadError listing every problem."""
    speaker = speaker if speaker is not None else Path(path).stem
    problems = Problems(path)
    files: dict[str, list[tuple]] = {}
    for number, line in enumerate(_lines(path, problems), 1):
        if line is None or _skip(line):
            continue
        fields = line.split()
        if len(fields) not in (5, 6):
            problems.add(number, f"expected 5 or 6 fields ({_CTM_FIELDS}), got {len(fields)}")
            continue
        start = _time(problems, number, "start", fields[2])
        duration = _time(problems, number, "duration", fields[3])
        if start is None or duration is None:
            continue
        if not math.isfinite(start + duration):   # pragma: no cover (bounded above)
            continue
        files.setdefault(fields[0], []).append(
            (start, start + duration, fields[4], speaker, number))
    return _finish(problems, files)


def load_words(path: str | Path) -> WordSessions:
    """By extension: `.stm` STM, `.ctm` CTM (speaker: the file name), otherwise SegLST JSON."""
    suffix = Path(path).suffix.lower()
    if suffix == ".stm":
        return load_stm(path)
    if suffix == ".ctm":
        return load_ctm(path)
    from llgui.io.seglst import load_seglst

    return load_seglst(path)


def format_stm(file: str, words: Sequence[Word]) -> str:
    """STM text, one line per word (words without a speaker left out)."""
    return "".join(f"{file} 1 {w.speaker} {w.start!r} {w.end!r} {w.word}\n"
                   for w in sorted(words, key=lambda w: w.order) if w.speaker is not None)


def format_ctm(file: str, words: Sequence[Word]) -> str:
    """CTM text of one speaker's words (the caller names the file after the speaker)."""
    return "".join(f"{file} 1 {w.start!r} {w.end - w.start!r} {w.word}\n"
                   for w in sorted(words, key=lambda w: w.order))


def write_stm(path: str | Path, file: str, words: Sequence[Word]) -> None:
    from llgui.utils.atomic import write_atomic

    write_atomic(Path(path), format_stm(file, words))


def write_ctm(path: str | Path, file: str, words: Sequence[Word]) -> None:
    from llgui.utils.atomic import write_atomic

    write_atomic(Path(path), format_ctm(file, words))
