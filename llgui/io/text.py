"""Plain-text MT files (references, hypotheses, sources): one segment per line, UTF-8.

Conventions:

- a line ends with "\n" or "\r\n", and the ending is not part of the segment;
- a final line ending does not make an extra, empty segment; an empty line in the middle (or a
  second final "\n") is an empty segment, kept;
- U+FEFF at the start of line 1 is KEPT as part of segment 1: the WMT17 submissions scored by
  sacrebleu's published tables begin that way (newstest2017.online-A), and sacrebleu, which
  opens files as plain UTF-8, keeps it too;
- nothing else is stripped. sacrebleu's command line also `rstrip()`s each line; trailing
  whitespace changes no BLEU, chrF or TER score under their default settings (the tokenizers
  drop it), and keeping the text as written lets a post-edit diff show it.

Problems, all collected: missing or unreadable file, an empty file (0 bytes), invalid UTF-8
(line and byte column, file offset), a NUL character, and any other character that some tool
would take for a line break (a lone "\\r", U+2028, U+2029, U+0085, vertical tab, form feed,
U+001C-U+001E: exactly what `str.splitlines` splits on), because a segment that one tool splits
and another does not misaligns every later segment with its reference.
"""
from __future__ import annotations

import re
from pathlib import Path

from llgui.core.errors import Problems
from llgui.io._read import decode_lines, read_bytes

_BREAKS = {
    "\r": "a carriage return (\\r) not followed by \\n",
    "\x0b": "a vertical tab (U+000B, a line break for some tools)",
    "\x0c": "a form feed (U+000C, a line break for some tools)",
    "\x1c": "U+001C FILE SEPARATOR (a line break for some tools)",
    "\x1d": "U+001D GROUP SEPARATOR (a line break for some tools)",
    "\x1e": "U+001E RECORD SEPARATOR (a line break for some tools)",
    "\x85": "U+0085 NEXT LINE (a line break for some tools)",
    "\u2028": "U+2028 LINE SEPARATOR (a line break for some tools)",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR (a line break for some tools)",
}
_SUSPECT = re.compile("[\x00" + "".join(_BREAKS) + "]")


def load_segments(path: str | Path) -> tuple[str, ...]:
    """The segments of a UTF-8 text file, one per line, in file order (segment i = line i).

    Raises LoadError listing every problem (see the module docstring).
    """
    problems = Problems(path)
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    if not data:
        problems.add(0, "file is empty")
        problems.raise_if_any()
    lines = decode_lines(data, problems, strip_bom=False)
    for number, line in enumerate(lines, 1):
        if line is None:
            continue
        match = _SUSPECT.search(line)
        if match is None:
            continue
        char = match.group()
        column = match.start() + 1
        if char == "\x00":
            problems.add(number, f"contains a NUL character at column {column}")
        else:
            problems.add(
                number,
                f"contains {_BREAKS[char]} at column {column}; a segment must be one line",
            )
    problems.raise_if_any()
    return tuple(lines)  # type: ignore[arg-type]  # no None left once no problem was found


def write_segments(path: str | Path, segments) -> None:
    """Write `segments`, one a line, each ended by "\\n" (atomically): what `load_segments`
    reads back, for segments without line breaks (and a file of at least one segment)."""
    from llgui.utils.atomic import write_atomic   # not on the reading path's imports

    write_atomic(Path(path), "".join(segment + "\n" for segment in segments))


def parse_line_range(value: object) -> tuple[int, int]:
    """(first, last) of a `lines = "FIRST-LAST"` selection: 1-based, inclusive, first <= last.

    Raises ValueError with the reason (for the bundle's line) on anything else.
    """
    usage = 'lines must be a range "FIRST-LAST" of 1-based line numbers, e.g. "131-260"'
    if not isinstance(value, str):
        raise ValueError(f"{usage}; not {'a number' if isinstance(value, (int, float)) else type(value).__name__}")
    # ASCII digits only: \d alone also matches '١' and '٣', which int() reads as 1 and 3
    match = re.fullmatch(r"\s*([0-9]{1,12})\s*-\s*([0-9]{1,12})\s*", value, re.ASCII)
    if match is None:
        raise ValueError(f"{usage}; not {value[:40]!r}")
    first, last = int(match.group(1)), int(match.group(2))
    if first < 1:
        raise ValueError(f"lines {value!r}: line numbers start at 1")
    if last < first:
        raise ValueError(f"lines {value!r}: the last line comes before the first")
    return first, last


CUT_ALREADY = ("; it has just the lines the selection takes: the file should hold the whole "
               "test set, which the selection cuts")
"""Said when a file is exactly as long as what its selection takes (a batch's lines saved to a
file of their own, where the whole output was wanted: outsider helper-55)."""


def selection_problem(n: int, exact: int | None, least: int, what: str,
                      taken: int | None = None) -> str | None:
    """Why a file of `n` lines cannot be cut by a selection (`lines` or `docids`), or None:
    a docids selection needs exactly `exact` lines (the test set's), a range at least `least`;
    `taken`: the lines the selection takes (a file of just those is said so). The reason
    follows the file's name: "hypothesis file 'x' " + reason."""
    hint = CUT_ALREADY if taken is not None and n == taken else ""
    if exact is not None and n != exact:
        return (f"has {n} lines but {what} has {exact} (one document id per line of the test "
                f"set){hint}")
    if n < least:
        return f"has {n} lines; {what} needs at least {least}{hint}"
    return None


def unmatched_line(n: int, expected: int) -> int:
    """The line to name in a file of `n` lines that should have `expected` (1-based; 0 names
    the whole file): the first line without a counterpart when it is longer, its last line,
    where it ends too early, when it is shorter (where a line went missing cannot be told)."""
    if n > expected:
        return expected + 1
    return n if n < expected else 0


def blank_tail(segments, expected: int) -> str:
    """" (its last 2 lines are empty: a blank line at the end of the file?)" when `segments`
    runs past `expected` lines with empty lines only, else ""."""
    extra = len(segments) - expected
    if extra <= 0 or any(s.strip() for s in segments[expected:]):
        return ""
    return (f" (its last {'line is' if extra == 1 else f'{extra} lines are'} empty: a blank "
            f"line at the end of the file?)")


def length_unlike_references(segments, references: int, what: str,
                             taken: int | None = None) -> str | None:
    """Why a hypothesis file of `segments` (its lines) cannot be cut by a line range (`what`)
    whose reference file has `references` lines, or None. A whole system output of another
    length than its test set's references is another file, or has a line too many or too few
    somewhere, which shifts every segment after it: a line missing in the middle left the
    ranges before it scored on their neighbours' lines, named only by the range past the end
    (outsider helper-51); one too many was cut and scored without a word (helper-49). Lines
    past the references' that are all empty get a hint: a blank line at the end. The reason
    follows the file's name, as `selection_problem`'s."""
    n = len(segments)
    if n == references:
        return None
    apart = abs(n - references)
    reason = (f"has {n} lines but its references have {references}: {what} takes the same "
              f"lines of both, and {'a line' if apart == 1 else f'{apart} lines'} too "
              f"{'many' if n > references else 'few'} shift{'s' * (apart == 1)} every segment "
              f"after {'it' if apart == 1 else 'them'}")
    reason += blank_tail(segments, references)
    if taken is not None and n == taken:
        reason += CUT_ALREADY
    return reason


def load_docid_fields(path: str | Path) -> tuple[tuple[str, ...], ...]:
    """The tab-separated fields of each line of a doc-id file (`load_docids` checks it): one
    id per line (sacrebleu's `--echo docid`), or WMT's `.docs` layout, `domain<TAB>docid`
    (WMT24's `documents/PAIR.docs`): a document is found by an id in any field."""
    load_docids(path)
    data = read_bytes(path, Problems(path)) or b""
    lines = decode_lines(data, Problems(path), strip_bom=True)
    return tuple(tuple(f.strip() for f in (line or "").split("\t")) for line in lines)


def load_docids(path: str | Path) -> tuple[str, ...]:
    """The document id of each line of a test set, from a WMT / sacrebleu doc-id file.

    One id per line, aligned with the test set's lines (`sacrebleu -t wmt23 -l de-en --echo
    docid` writes one); when a line has tab-separated fields (`--echo docid origlang`), the
    first is the id. Surrounding whitespace is dropped. Problems, all collected: missing,
    empty or non-UTF-8 file, and a line with no id (every line of the test set needs one).
    """
    problems = Problems(path)
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    if not data:
        problems.add(0, "file is empty")
        problems.raise_if_any()
    lines = decode_lines(data, problems, strip_bom=True)
    ids: list[str] = []
    for number, line in enumerate(lines, 1):
        if line is None:
            ids.append("")
            continue
        docid = line.split("\t", 1)[0].strip()
        if not docid:
            problems.add(number, "no document id on this line (one id per line of the test set)")
        elif "\x00" in docid:
            problems.add(number, "contains a NUL character")
        ids.append(docid)
    problems.raise_if_any()
    return tuple(ids)
