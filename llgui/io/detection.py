"""Detection trials: system scores with target / non-target labels, for DET, EER and DCF.

Two layouts, fields separated by any run of whitespace, blank lines and lines starting with
"#" skipped, one U+FEFF at the start ignored:

1. without a key, a score file of `score label` lines;
2. with a key (NIST / Kaldi style), a score file of `enroll test score` lines and a key file of
   `enroll test label` lines (Kaldi's `trials` file has exactly this shape), joined on
   (enroll, test).

Scores are finite numbers, higher meaning "target". Labels, in any case: `target`, `nontarget`
(also `non-target`), `1`, `0`, `true`, `false` (1/true mean target); the boolean spellings
are accepted because scikit-learn-style dumps write them.

Problems: wrong field count, a score that is not a finite number, an unknown label, a trial
(enroll, test) twice in a file, a scored trial missing from the key (at its line), key trials
without a score (one problem on the score file: how many, and the first few key lines), and a
file with no target or no non-target trial (a DET curve needs both).

Speed: a million-line file loads in about a second. The whole file is split and converted in
bulk first; only when that finds something wrong does the line-by-line checker run, so every
message still names its exact line.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, compress, repeat
from pathlib import Path

import numpy as np

from llgui.core.errors import LoadError, Problems
from llgui.core.types import Trials
from llgui.core.numbers import parse_number
from llgui.io._read import (
    MAX_SCORE_LINES, decode_lines, describe, foreign, raise_in_line_order, read_bytes,
)

LABELS = {
    "target": True, "nontarget": False, "non-target": False,
    "1": True, "0": False, "true": True, "false": False,
}
"""Accepted labels (compared in lower case) and whether they mean "target"."""

_LABEL_LIST = "target, nontarget, 1, 0, true, false"
_MISSING_SHOWN = 5


@dataclass(frozen=True, eq=False)
class TrialKey(Mapping):
    """A trial key: a read-only mapping `{(enroll, test): is_target}`, in file order.

    `enroll[i]`, `test[i]`, `is_target[i]` and `lines[i]` (its 1-based line in the key file,
    for messages) describe trial i. Pass it to `load_scores` to join several score files to
    one key without reading the key again.
    """

    path: str
    enroll: tuple[str, ...]
    test: tuple[str, ...]
    is_target: np.ndarray
    lines: np.ndarray

    @cached_property
    def enroll_codes(self) -> np.ndarray:
        """An integer code per key trial for its enrolment id (the speaker unit)."""
        return _factorize(list(self.enroll))[0]

    @cached_property
    def _index(self) -> dict[tuple[str, str], int]:
        return {trial: i for i, trial in enumerate(zip(self.enroll, self.test))}

    def __getitem__(self, trial: tuple[str, str]) -> bool:
        return bool(self.is_target[self._index[trial]])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self.enroll, self.test)

    def __len__(self) -> int:
        return len(self.enroll)


def load_key(path: str | Path) -> TrialKey:
    """A NIST/Kaldi trial key of `enroll test label` lines; raises LoadError on any problem."""
    problems = Problems(path)
    rows = _table(path, problems, 3, "enroll test target|nontarget")
    if rows is not None:
        labels = _labels(rows, problems, column=2)
        _duplicates(rows, _trial_codes(rows.cells[0], rows.cells[1]), problems)
        if not problems:
            _require_both(labels, problems)
    raise_in_line_order(problems)
    return TrialKey(str(path), tuple(rows.cells[0]), tuple(rows.cells[1]), labels, rows.lines)


def load_scores(path: str | Path, key: str | Path | TrialKey | None = None) -> Trials:
    """The trials of one system; `Trials.name` is the file stem, `Trials.path` the path.

    Without `key`: `score label` lines. With `key` (a path, or a `TrialKey` from `load_key`):
    `enroll test score` lines joined to the key, in score-file order. Raises LoadError listing
    every problem of the score file (and of the key file, when it is read here).
    """
    problems = Problems(path)
    if key is not None and not isinstance(key, TrialKey):
        try:
            key = load_key(key)
        except LoadError as exc:
            problems.extend(exc.problems)
            key = False
    return _load_scores(path, key, problems)


def _load_scores(path: str | Path, key: TrialKey | bool | None,
                 problems: Problems | None = None) -> Trials | None:
    """`load_scores` with the key already read: a TrialKey, None (no key: `score label`
    lines), or False (a key was named but could not be read: the `enroll test score` lines
    are still checked, without the join, and None is returned when they are fine)."""
    problems = problems if problems is not None else Problems(path)
    labels = None
    extra: dict = {}   # with a key: each trial's key position and enrolment code
    if key is None:
        rows = _table(path, problems, 2, "score label")
        if rows is not None:
            scores = _scores(rows, problems, column=0)
            labels = _labels(rows, problems, column=1)
    else:
        rows = _table(path, problems, 3, "enroll test score")
        if rows is not None:
            scores = _scores(rows, problems, column=2)
            if key is False:
                _duplicates(rows, _trial_codes(rows.cells[0], rows.cells[1]), problems)
            else:
                joined = _join_key(rows, key, problems)
                if joined is not None:
                    labels, extra = key.is_target[joined], {
                        "key_index": joined, "groups": key.enroll_codes[joined]}
    if not problems:
        _require_both(labels, problems)
    raise_in_line_order(problems)
    if labels is None:  # key is False: nothing to build, the key's problems say why
        return None
    return Trials(Path(path).stem, scores, labels, str(path), **extra)


# --------------------------------------------------------------------------------------------


@dataclass
class _Rows:
    cells: list[list[str]]  # one list of fields per column
    lines: np.ndarray  # 1-based line number of each row


# Bytes that `str.split()` takes for whitespace in ASCII text: \t \n \v \f \r, U+001C-U+001F, space.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_UTF8_BOM = b"\xef\xbb\xbf"


def _is_number(field: bytes) -> bool:
    try:
        parse_number(field.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return False
    return True


def _shaped(line: bytes) -> bool:
    """A line of a score file or a key: 2 or 3 fields, the last a score or a key label."""
    fields = line.split()
    return len(fields) in (2, 3) and (_is_number(fields[-1]) or fields[-1].lower() in (
        b"target", b"nontarget", b"non-target", b"tgt", b"imp", b"1", b"0", b"true", b"false",
        b"y", b"n"))


def _shaped_single(line: bytes) -> bool:
    """A line of a one-score-per-line file (bob.measure, pyeer): one number."""
    fields = line.split()
    return len(fields) == 1 and _is_number(fields[0])


def _table(path: str | Path, problems: Problems, n_fields: int, layout: str) -> _Rows | None:
    """The non-blank, non-comment lines split into `n_fields` columns, or None on a problem."""
    data = read_bytes(path, problems, max_lines=MAX_SCORE_LINES,
                      split="split it by system or by enrolment")
    if data is None:
        return None
    problems.expect_format(f"a file of '{layout}' lines",
                           foreign(data, _shaped_single if n_fields == 1 else _shaped, b"#"))
    rows = _table_fast(data, n_fields)
    if rows is not None:
        return rows
    return _table_slow(data, problems, n_fields, layout)


def _table_fast(data: bytes, n_fields: int) -> _Rows | None:
    """The bulk split of an ASCII file whose every kept line has `n_fields` fields, else None.

    Token boundaries and line numbers come from numpy on the bytes; the tokens themselves
    from one `str.split()` of the whole text, which must agree with the byte count.
    """
    body = data[len(_UTF8_BOM):] if data.startswith(_UTF8_BOM) else data
    if not body.isascii():
        return None
    raw = np.frombuffer(body, dtype=np.uint8)
    space = _ASCII_SPACE[raw]
    is_start = ~space
    is_start[1:] &= space[:-1]
    starts = np.flatnonzero(is_start)
    if starts.size == 0:
        return None
    newlines = np.flatnonzero(raw == 10)
    token_line = np.searchsorted(newlines, starts)  # 0-based line of each token
    n_lines = newlines.size + 1
    counts = np.bincount(token_line, minlength=n_lines)
    first = np.ones(starts.size, dtype=bool)
    first[1:] = token_line[1:] != token_line[:-1]
    keep_line = counts > 0
    keep_line[token_line[first & (raw[starts] == ord("#"))]] = False
    if not keep_line.any() or np.any(counts[keep_line] != n_fields):
        return None
    tokens = body.decode("ascii").split()
    if len(tokens) != starts.size:
        return None
    keep_token = keep_line[token_line]
    if not keep_token.all():
        tokens = list(compress(tokens, keep_token.tolist()))
    return _Rows([tokens[i::n_fields] for i in range(n_fields)], np.flatnonzero(keep_line) + 1)


def _table_slow(data: bytes, problems: Problems, n_fields: int, layout: str) -> _Rows | None:
    lines = decode_lines(data, problems, strip_bom=True)
    rows: list[list[str]] = []
    numbers: list[int] = []
    keyed: list[int] = []   # `enroll test score` lines where `score label` ones are read
    for number, line in enumerate(lines, 1):
        if line is None:
            continue
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != n_fields:
            if n_fields == 2 and len(fields) == 3:
                keyed.append(number)
            else:
                problems.add(number, f"expected {n_fields} fields ({layout}), got {len(fields)}")
            continue
        rows.append(fields)
        numbers.append(number)
    hint = "`enroll test score` lines need a key file (--key KEY)"
    if keyed and not rows and not problems:
        # a whole file of keyed trials: said once, not once a line (24,000 lines of it)
        problems.add(keyed[0], f"expected {n_fields} fields ({layout}), got 3 on every one of "
                               f"its {len(keyed)} lines: {hint}")
        return None
    for number in keyed:
        problems.add(number, f"expected {n_fields} fields ({layout}), got 3; {hint}")
    if not rows:
        if not problems:
            problems.add(0, "no trials" if data.strip() else "file is empty")
        return None
    flat = list(chain.from_iterable(rows))
    return _Rows([flat[i::n_fields] for i in range(n_fields)], np.array(numbers, dtype=np.int64))


def _scores(rows: _Rows, problems: Problems, column: int) -> np.ndarray | None:
    texts = rows.cells[column]
    scores = None
    # numpy's parser, like float(), reads '1_2' as 12 and non-ASCII digits as ASCII ones: the
    # fast path is taken only when no text can hold either
    joined = "".join(texts)
    if joined.isascii() and "_" not in joined:
        try:
            scores = np.array(texts, dtype=np.float64)
        except ValueError:
            scores = None
    if scores is not None and np.isfinite(scores).all():
        return scores
    values = np.empty(len(texts))
    bad = False
    for i, (text, line) in enumerate(zip(texts, rows.lines)):
        try:
            value = parse_number(text)
        except ValueError as exc:
            problems.add(int(line), f"score {describe(text)} {exc}")
            bad = True
            continue
        values[i] = value
    return None if bad else values


def _labels(rows: _Rows, problems: Problems, column: int) -> np.ndarray | None:
    texts = rows.cells[column]
    distinct = set(texts)  # a handful of spellings: decide per spelling, then map in C
    unknown = {t for t in distinct if t.lower() not in LABELS}
    if not unknown:
        targets = {t for t in distinct if LABELS[t.lower()]}
        return np.fromiter(map(targets.__contains__, texts), dtype=bool, count=len(texts))
    for text, line in zip(texts, rows.lines.tolist()):
        if text in unknown:
            problems.add(line, f"unknown label {describe(text)} (expected one of: {_LABEL_LIST})")
    return None


_PANDAS_FROM = 200_000
"""From this many trials on, factorise with pandas (about three times faster at a million);
below it, a dict does it in milliseconds without importing pandas, which costs half a second
of the window's start-up."""


def _factorize(values: list[str]) -> tuple[np.ndarray, int]:
    """(codes, number of distinct values): equal codes exactly for equal strings."""
    if len(values) >= _PANDAS_FROM:
        import pandas as pd

        codes, uniques = pd.factorize(np.array(values, dtype=object))
        return codes.astype(np.int64), len(uniques)
    index = dict(zip(dict.fromkeys(values), range(len(values))))   # first-appearance order
    codes = np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))
    return codes, len(index)


def _trial_codes(enroll: list[str], test: list[str]) -> np.ndarray:
    """One int64 per (enroll, test) pair, equal exactly for equal pairs."""
    e_codes, _ = _factorize(enroll)
    t_codes, n_tests = _factorize(test)
    return e_codes * max(n_tests, 1) + t_codes


def _first_occurrence(codes: np.ndarray) -> np.ndarray:
    """For each position, the position where its code first appears."""
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def _duplicates(rows: _Rows, codes: np.ndarray, problems: Problems) -> bool:
    """Report each trial that comes again, at its line; True if there was one."""
    first = _first_occurrence(codes)
    again = np.flatnonzero(first != np.arange(codes.size))
    for i in again.tolist():
        problems.add(int(rows.lines[i]), f"duplicate trial {rows.cells[0][i]} {rows.cells[1][i]} "
                                         f"(first at line {rows.lines[first[i]]})")
    return bool(again.size)


def _lookup(keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Position of each query in `keys` (unique), -1 where absent."""
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    at = np.searchsorted(ranked, queries)
    at_clipped = np.minimum(at, max(ranked.size - 1, 0))
    found = (at < ranked.size) & (ranked[at_clipped] == queries) if ranked.size else \
        np.zeros(queries.size, dtype=bool)
    return np.where(found, order[at_clipped] if ranked.size else -1, -1)


def _join_key(rows: _Rows, key: TrialKey, problems: Problems) -> np.ndarray | None:
    """Each scored trial's position in the key (score-file order), or None after problems."""
    n_key = len(key)
    enroll, test = rows.cells[0], rows.cells[1]
    if len(enroll) < _PANDAS_FROM:
        # the key's own index (built once per key, shared by every system joined to it)
        where = np.fromiter(map(key._index.get, zip(enroll, test), repeat(-1)),
                            dtype=np.int64, count=len(enroll))
        score_codes = where.copy()
        absent = np.flatnonzero(where < 0)
        if absent.size:  # unknown trials get codes of their own, past the key's
            score_codes[absent] = n_key + _trial_codes([enroll[i] for i in absent.tolist()],
                                                       [test[i] for i in absent.tolist()])
    else:
        codes = _trial_codes(list(key.enroll) + enroll, list(key.test) + test)
        key_codes, score_codes = codes[:n_key], codes[n_key:]
        where = _lookup(key_codes, score_codes)  # a loaded key has unique trials
    duplicated = _duplicates(rows, score_codes, problems)
    missing = np.flatnonzero(where < 0)
    for i in missing.tolist():
        problems.add(int(rows.lines[i]), f"trial {rows.cells[0][i]} {rows.cells[1][i]} is not "
                                         f"in the key {key.path}")
    scored = np.zeros(n_key, dtype=bool)
    scored[where[where >= 0]] = True
    unscored = np.flatnonzero(~scored)
    if unscored.size:
        shown = ", ".join(f"{key.enroll[i]} {key.test[i]} (line {key.lines[i]})"
                          for i in unscored[:_MISSING_SHOWN].tolist())
        more = ", ..." if unscored.size > _MISSING_SHOWN else ""
        problems.add(0, f"{unscored.size} of the {n_key} trials of the key {key.path} have "
                        f"no score: {shown}{more}")
    if missing.size or unscored.size or duplicated:
        return None
    return where


def _require_both(labels: np.ndarray | None, problems: Problems) -> None:
    if labels is None:  # the key could not be read: its problems say why
        return
    if not labels.any():
        problems.add(0, "no target trials (a DET curve needs target and non-target trials)")
    elif labels.all():
        problems.add(0, "no non-target trials (a DET curve needs target and non-target trials)")


# --------------------------------------------------------------------------------------------
# Two files: target scores and non-target scores (bob.measure, pyeer)


def load_score_pair(targets: str | Path, nontargets: str | Path,
                    name: str | None = None) -> Trials:
    """One system's trials from a file of target scores and a file of non-target scores.

    The bob.measure / pyeer layout (`*-positives.txt` / `*-negatives.txt`, `exp1_true.txt` /
    `exp1_false.txt`): one score per line, blank and `#` lines skipped. Trials are the target
    scores then the non-target ones. `name` defaults to `pair_name(targets, nontargets)`;
    `Trials.path` is the target file. Raises LoadError listing the problems of both files
    (wrong field count, a score that is not a finite number, an empty file).
    """
    parts, problems_all = [], []
    for path in (targets, nontargets):
        problems = Problems(path)
        rows = _table(path, problems, 1, "one score per line")
        scores = _scores(rows, problems, column=0) if rows is not None else None
        try:   # raise_if_any hides the lines of a file that is not a score file at all
            problems.raise_if_any()
        except LoadError as error:
            problems_all.extend(error.problems)
        parts.append(scores)
    if problems_all:
        raise LoadError(problems_all)
    target_scores, nontarget_scores = parts
    labels = np.concatenate([np.ones(target_scores.size, dtype=bool),
                             np.zeros(nontarget_scores.size, dtype=bool)])
    return Trials(name or pair_name(targets, nontargets),
                  np.concatenate([target_scores, nontarget_scores]), labels, str(targets))


def pair_name(targets: str | Path, nontargets: str | Path) -> str:
    """A system name for a target / non-target pair: the longest common start of the two file
    stems without its trailing separators (`exp1_true`, `exp1_false` -> `exp1`), else the
    target file's stem."""
    a, b = Path(targets).stem, Path(nontargets).stem
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    stem = a[:common].rstrip("_-. ")
    return stem or a
