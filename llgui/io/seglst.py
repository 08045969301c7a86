"""Word transcripts in SegLST JSON (meeteval's and CHiME's segment list), reader and writer.

A SegLST file is a JSON array of segments, each an object with at least `session_id`,
`speaker`, `words` (a string of whitespace-separated words), `start_time` and `end_time`
(seconds, finite, 0 <= start <= end); other keys are ignored. `load_seglst` returns
`{session_id: words}` (sessions in order of first appearance), each segment split into its
words with meeteval's `character_based` pseudo-word timing (the segment's interval divided
in proportion to the words' lengths in characters; a one-word segment keeps its interval),
so a file of one word per segment keeps its times exactly. Words are ordered by (start,
segment number in the file, word number), the order in which meeteval concatenates them.
Segments without words are skipped. Problems are reported as `FILE:LINE: reason` at the line
where the segment starts; the file is a regular file of bounded size (`llgui.io._read`).

Linear time (issue 38.5: a line number counted from the file's start for every segment made
reading quadratic, 10**6 words did not finish in 7 minutes): the file is parsed by the
standard library's C decoder in one pass, each segment's line counted from the previous one
only, and every segment checked; the `Word`s of a session are made when that session is
asked for (`WordSessions`), so a document reading its session from a file holding every
session of a data set makes only its own words (gate 15 "word files": 10**6 words).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from llgui.core.errors import Problems
from llgui.core.numbers import show_value
from llgui.core.types import Word
from llgui.io._read import decode_lines, read_bytes, value_error_reason

REQUIRED = ("session_id", "speaker", "words", "start_time", "end_time")
MAX_TIME = 1e9
"""Seconds: a word time beyond 30 years of audio is a unit mistake (milliseconds, samples)."""


def split_segment(start: float, end: float, text: str, speaker: str | None, segment: int
                  ) -> list[Word]:
    """The words of one segment, timed by meeteval's `character_based` rule."""
    words = text.split()
    if len(words) == 1:
        return [Word(start, end, words[0], speaker, (start, segment, 0))]
    total = sum(len(w) for w in words)
    step = (end - start) / total if total else 0.0
    out, done = [], 0
    for k, w in enumerate(words):
        s = start + step * done
        done += len(w)
        e = start + step * done
        out.append(Word(s, e, w, speaker, (s, segment, k)))
    return out


class WordSessions(Mapping):
    """`{session: words}` of a word file: every segment already checked, each session's
    `Word`s made (split, timed and ordered) when it is first asked for."""

    def __init__(self, segments: dict[str, list[tuple]]):
        # session -> [(start, end, text, speaker, segment number)]
        self._segments = segments
        self._words: dict[str, tuple[Word, ...]] = {}

    def __getitem__(self, session: str) -> tuple[Word, ...]:
        words = self._words.get(session)
        if words is None:
            made = [w for start, end, text, speaker, number in self._segments[session]
                    for w in split_segment(start, end, text, speaker, number)]
            words = self._words[session] = tuple(sorted(made, key=lambda w: w.order))
        return words

    def __iter__(self) -> Iterator[str]:
        return iter(self._segments)

    def __len__(self) -> int:
        return len(self._segments)

    def __contains__(self, session: object) -> bool:
        return session in self._segments

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    __hash__ = None   # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WordSessions({len(self)} sessions)"


def check_times(start: object, end: object) -> str | None:
    """Why a segment's (start, end) cannot be used, or None."""
    for name, value in (("start_time", start), ("end_time", end)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{name} must be a number, not {show_value(value)}"
        if not math.isfinite(value):
            return f"{name} {show_value(value)} is not a finite number"
        if not 0 <= value <= MAX_TIME:
            return f"{name} must be a number between 0 and {MAX_TIME:g} s, not {value!r}"
    if end < start:   # type: ignore[operator]
        return f"end_time {end!r} is before start_time {start!r}"
    return None


def _elements(text: str, problems: Problems) -> list[tuple[int, object]] | None:
    """[(line, value)] of the top-level JSON array's elements, or None after a problem."""
    decoder = json.JSONDecoder(parse_constant=lambda name: float(name))
    pos = len(text) - len(text.lstrip())
    if pos >= len(text) or text[pos] != "[":
        problems.add(text.count("\n", 0, pos) + 1 if pos < len(text) else 0,
                     "a SegLST file is a JSON array of segments ([{...}, ...])")
        return None
    pos += 1
    out: list[tuple[int, object]] = []
    line, counted = 1, 0   # the line of position `counted` (counted forward only: linear)

    def line_at(at: int) -> int:
        nonlocal line, counted
        if at >= counted:
            line += text.count("\n", counted, at)
            counted = at
            return line
        return line - text.count("\n", at, counted)
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos < len(text) and text[pos] == "]" and not out:
            pos += 1
            break
        try:
            value, end = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            where = line_at(getattr(exc, "pos", pos))
            if isinstance(exc, json.JSONDecodeError):
                reason = exc.msg
            elif isinstance(exc, RecursionError):
                reason = "too deeply nested"
            else:   # e.g. an integer longer than Python's conversion limit
                reason = value_error_reason(exc)
            problems.add(where, f"invalid JSON ({reason})")
            return None
        out.append((line_at(pos), value))
        pos = end
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos < len(text) and text[pos] == ",":
            pos += 1
            continue
        if pos < len(text) and text[pos] == "]":
            pos += 1
            break
        problems.add(line_at(pos), "invalid JSON (expected ',' or ']')")
        return None
    if text[pos:].strip():
        problems.add(line_at(pos), "invalid JSON (text after the array)")
        return None
    return out


def load_seglst(path: str | Path) -> WordSessions:
    """`{session_id: words}` of a SegLST file (a `WordSessions`: each session's words made
    when asked for); raises LoadError listing every problem."""
    problems = Problems(path)
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    lines = decode_lines(data, problems, strip_bom=True)
    problems.raise_if_any()
    elements = _elements("\n".join(lines), problems)   # type: ignore[arg-type]
    if elements is None:
        problems.raise_if_any()
    sessions: dict[str, list[tuple]] = {}
    for index, (line, segment) in enumerate(elements):
        if not isinstance(segment, dict):
            problems.add(line, f"segment {index + 1} must be an object, not "
                               f"{type(segment).__name__}")
            continue
        missing = [k for k in REQUIRED if k not in segment]
        if missing:
            problems.add(line, f"segment {index + 1} has no {', '.join(missing)} (a SegLST "
                               f"segment has {', '.join(REQUIRED)})")
            continue
        session, speaker, text = segment["session_id"], segment["speaker"], segment["words"]
        bad = [k for k, v in (("session_id", session), ("speaker", speaker))
               if not isinstance(v, str) or not v.strip()]
        if bad:
            problems.add(line, f"segment {index + 1}: {bad[0]} must be a non-empty string, "
                               f"not {show_value(segment[bad[0]])}")
            continue
        if not isinstance(text, str):
            problems.add(line, f"segment {index + 1}: words must be a string, not "
                               f"{show_value(text)}")
            continue
        reason = check_times(segment["start_time"], segment["end_time"])
        if reason is not None:
            problems.add(line, f"segment {index + 1}: {reason}")
            continue
        bucket = sessions.setdefault(session, [])
        if text and not text.isspace():
            bucket.append((float(segment["start_time"]), float(segment["end_time"]), text,
                           speaker, index))
    if not problems and not any(sessions.values()):
        problems.add(0, "no words")
    problems.raise_if_any()
    return WordSessions(sessions)


def format_seglst(session: str, words: Sequence[Word]) -> str:
    """SegLST JSON of `words` (one segment per word; words without a speaker left out)."""
    segments = [{"session_id": session, "speaker": w.speaker, "words": w.word,
                 "start_time": w.start, "end_time": w.end}
                for w in sorted(words, key=lambda w: w.order) if w.speaker is not None]
    return "[\n" + ",\n".join(json.dumps(s, ensure_ascii=False) for s in segments) + "\n]\n"


def write_seglst(path: str | Path, session: str, words: Sequence[Word]) -> None:
    """Write `format_seglst(session, words)` to `path` (atomically)."""
    from llgui.utils.atomic import write_atomic

    write_atomic(Path(path), format_seglst(session, words))
