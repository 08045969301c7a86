"""Human scores of MT systems, as WMT publishes them (issue 32), read beside metric scores.

Three layouts, told apart by their content:

- **WMT annotations** (comma-separated, no header), one human judgment a line: WMT23's DA+SQM
  `humaneval/DA+SQM/*.csv` (11 fields: UserID, SystemID, SegmentID, Type, SourceLanguage,
  TargetLanguage, Score, DocumentID, IsDocument?, StartTime, EndTime) and WMT24's ESA
  `humeval/esa_generalMT2024_wave*.csv` (12 fields: the error spans, a JSON list, before the
  two times). Lines of Type other than TGT, document-level lines (IsDocument? True), and what
  WMT24's own scripts drop (tutorial systems, the `canary` document, documents marked
  `#incomplete` or `#dup`) are skipped. A segment is (DocumentID, SegmentID); its score is the mean of its judgments; a
  system's score is the mean of all its judgments (as WMT24's `convert_to_metrics.py`). A file
  holding several language pairs needs the pair named (`pair = "eng-jpn"`, `--human-pair`).
- **mt-metrics-eval** score files (`SYSTEM<TAB>SCORE`, WMT's `human-scores/*.sys.score` and
  `*.seg.score`): one line per system is system-level; several lines per system are segment
  scores in test-set order (`None` for a segment not judged).
- **WMT23 results** (`humaneval/DA+SQM/WMT23.results.txt`): blocks `[deu-->eng]` then lines
  `90.31 ('GPT4-5shot', 977, 0.319..., 90.312..., 3.96...)` (system, judgments, z-score, raw
  mean, ...); the raw mean is read, in the block of the pair named (`pair = "deu-eng"`).

Every score must be a finite number (ESA and DA: 0 to 100). Bad input raises LoadError with
`FILE:LINE: reason`.
"""
from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np

from llgui.core.errors import LoadError, Problem
from llgui.core.significance.agreement import HumanScores

MAX_BYTES = 500_000_000
_RESULT_HEAD = re.compile(r"^\[([A-Za-z]+)-->([A-Za-z]+)\]\s*$")
_RESULT_LINE = re.compile(r"^\s*-?\d+(\.\d+)?\s+\((.*)\)\s*$")
_RESULT_TUPLE = re.compile(r"^'([^']+)',\s*\d+,\s*([^,]+),\s*([^,]+)(,.*)?$")


def read_human_scores(path: str | Path, pair: str | None = None) -> HumanScores:
    """The human scores in `path` (see the module docstring); `pair` ("eng-jpn", or
    "deu-->eng") picks one language pair of a file that has several."""
    from llgui.utils.regular import read_regular

    path = Path(path)
    try:
        data = read_regular(path, MAX_BYTES)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise LoadError([Problem(str(path), 0, f"cannot read the human scores ({reason})")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise LoadError([Problem(str(path), line, "not UTF-8 text")]) from None
    pair = _pair(pair)
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), "")
    if not first:
        raise LoadError([Problem(str(path), 0, "empty: no human score")])
    if any(_RESULT_HEAD.match(ln) for ln in lines[:200]):
        return _results(path, lines, pair)
    if "\t" in first:
        return _tsv(path, lines)
    return _annotations(path, text, pair)


def _pair(pair: str | None) -> tuple[str, str] | None:
    if pair is None:
        return None
    parts = re.split(r"-->|-", pair.strip())
    if len(parts) != 2 or not all(parts):
        raise LoadError([Problem("<pair>", 0, f"language pair {pair!r}: write it as "
                                              "SOURCE-TARGET, e.g. eng-jpn")])
    return parts[0].lower(), parts[1].lower()


def _number(path, line: int, value: str, what: str, low=-math.inf, high=math.inf) -> float:
    try:
        x = float(value)
    except ValueError:
        raise LoadError([Problem(str(path), line, f"{what} {value!r} is not a number")]) \
            from None
    if not math.isfinite(x) or not low <= x <= high:
        raise LoadError([Problem(str(path), line, f"{what} {value!r} is out of range "
                                                   f"[{low:g}, {high:g}]")])
    return x


def _tsv(path: Path, lines: list[str]) -> HumanScores:
    rows: dict[str, list[float]] = {}
    for number, ln in enumerate(lines, 1):
        if not ln.strip():
            continue
        fields = ln.split("\t")
        if len(fields) != 2 or not fields[0].strip():
            raise LoadError([Problem(str(path), number, "expected SYSTEM<TAB>SCORE "
                                                        f"(mt-metrics-eval), got {len(fields)} "
                                                        "field(s)")])
        name, value = fields[0].strip(), fields[1].strip()
        score = math.nan if value == "None" else _number(path, number, value, "score")
        rows.setdefault(name, []).append(score)
    lengths = {len(v) for v in rows.values()}
    if lengths == {1}:
        return HumanScores(str(path), "mt-metrics-eval system-level",
                           {n: v[0] for n, v in rows.items() if math.isfinite(v[0])})
    if len(lengths) != 1:
        raise LoadError([Problem(str(path), 0, "segment scores: every system needs as many "
                                               "lines (one per segment, None when not "
                                               f"judged); found {sorted(lengths)}")])
    segments = {n: np.asarray(v, dtype=np.float64) for n, v in rows.items()}
    systems = {n: float(np.nanmean(v)) for n, v in segments.items() if np.isfinite(v).any()}
    n = lengths.pop()
    return HumanScores(str(path), "mt-metrics-eval segment-level", systems,
                       {k: segments[k] for k in systems}, tuple(range(1, n + 1)),
                       notes=("system score: the mean of its judged segments",))


def _annotations(path: Path, text: str, pair) -> HumanScores:
    by_pair: dict[tuple[str, str], dict] = {}
    reader = csv.reader(io.StringIO(text))
    for row in reader:
        number = reader.line_num
        if not row or not any(f.strip() for f in row):
            continue
        if len(row) not in (11, 12):
            raise LoadError([Problem(str(path), number, f"{len(row)} fields: a WMT human "
                                                        "annotation line has 11 (DA+SQM) or "
                                                        "12 (ESA), comma-separated")])
        if row[3] != "TGT" or row[8].strip().lower() == "true" or _skipped(row):
            continue
        system, segment, document = row[1].strip(), row[2].strip(), row[7].strip()
        if not system:
            raise LoadError([Problem(str(path), number, "empty SystemID")])
        score = _number(path, number, row[6].strip(), "Score", 0.0, 100.0)
        key = (row[4].strip().lower(), row[5].strip().lower())
        entry = by_pair.setdefault(key, {"all": {}, "seg": {}})
        entry["all"].setdefault(system, []).append(score)
        entry["seg"].setdefault(system, {}).setdefault((document, segment), []).append(score)
    if not by_pair:
        raise LoadError([Problem(str(path), 0, "no segment-level human judgment (Type TGT, "
                                               "IsDocument? False)")])
    if pair is None and len(by_pair) > 1:
        found = ", ".join(f"{a}-{b}" for a, b in sorted(by_pair))
        raise LoadError([Problem(str(path), 1, f"judgments of several language pairs "
                                               f"({found}): name one")])
    key = pair if pair is not None else next(iter(by_pair))
    if key not in by_pair:
        found = ", ".join(f"{a}-{b}" for a, b in sorted(by_pair))
        raise LoadError([Problem(str(path), 0, f"no judgment of {key[0]}-{key[1]} (the file "
                                               f"has {found})")])
    entry = by_pair[key]
    systems = {n: float(np.mean(v)) for n, v in entry["all"].items()}
    ids = sorted({s for per in entry["seg"].values() for s in per})
    column = {s: k for k, s in enumerate(ids)}
    segments = {}
    for name, per in entry["seg"].items():
        row = np.full(len(ids), np.nan)
        for s, values in per.items():
            row[column[s]] = float(np.mean(values))
        segments[name] = row
    return HumanScores(str(path), "wmt-annotations", systems, segments, tuple(ids),
                       pair=f"{key[0]}-{key[1]}",
                       notes=("a segment's score: the mean of its judgments; a system's: the "
                              "mean of all its judgments",))


def _skipped(row: list[str]) -> bool:
    """WMT24's own filters (`humeval/tools.py`): tutorial items, the canary, documents used
    to fill an annotator's account (`#incomplete`, `#dup`)."""
    document = row[7]
    return ("tutorial" in row[1] or document == "canary" or "#incomplete" in document
            or "#dup" in document)


def _results(path: Path, lines: list[str], pair) -> HumanScores:
    blocks: dict[tuple[str, str], dict[str, float]] = {}
    current = None
    for number, ln in enumerate(lines, 1):
        head = _RESULT_HEAD.match(ln)
        if head:
            current = (head.group(1).lower(), head.group(2).lower())
            blocks.setdefault(current, {})
            continue
        match = _RESULT_LINE.match(ln)
        if not match or current is None:
            continue
        fields = _RESULT_TUPLE.match(match.group(2).strip())
        if not fields:   # parsed by pattern: nothing in a data file is evaluated
            raise LoadError([Problem(str(path), number, "a results line must end in a tuple "
                                                        "('system', n, z, raw, ...)")])
        blocks[current][fields.group(1)] = _number(path, number, fields.group(3).strip(),
                                                   "raw score", 0.0, 100.0)
    if pair is None:
        if len(blocks) != 1:
            raise LoadError([Problem(str(path), 1, f"results of {len(blocks)} language pairs: "
                                                   "name one")])
        pair = next(iter(blocks))
    if not blocks.get(pair):
        raise LoadError([Problem(str(path), 0, f"no results for {pair[0]}-->{pair[1]}")])
    return HumanScores(str(path), "wmt23-results system-level", blocks[pair],
                       pair=f"{pair[0]}-{pair[1]}",
                       notes=("the raw mean score of each system (WMT23 DA+SQM)",))
