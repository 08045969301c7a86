"""Lifelong score tables (CSV, long format): the score of each model version on each test.

One header line, then one row per (model, test, metric)::

    model,model_time,test,test_time,metric,value,value_pen
    m0,2020-01-01,t1,2020-01-15,bleu,25.1,24.0

- required columns: model, model_time, test, test_time, metric, value; optional: value_pen;
  any other column is an error (a misspelt `value_pen` would otherwise drop the penalised
  scores in silence); columns may come in any order;
- standard CSV quoting (RFC 4180); cells are stripped of surrounding spaces; blank lines and
  one U+FEFF at the start (Excel writes it) are ignored;
- times are ISO dates/datetimes or numbers (`Stamp.parse`), all of one kind across both time
  columns, since the policy computes positions like (t_j - l_1) / (l_i - l_1) from them;
- a model has one time, a test has one time; (model, test, metric) appears once;
- value is a finite number, required; value_pen is a finite number or empty (NaN).

Models and tests are sorted by time, then by name. Metrics keep the order of their first row.
`values_pen` holds a metric only when at least one of its rows gives value_pen.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np

from llgui.core.errors import Problems
from llgui.core.types import LifelongScores, Stamp
from llgui.core.numbers import parse_number
from llgui.io._read import foreign, decode_lines, describe, read_bytes

REQUIRED = ("model", "model_time", "test", "test_time", "metric", "value")
OPTIONAL = ("value_pen",)


def load_lifelong(path: str | Path) -> LifelongScores:
    """The score table of a lifelong run; raises LoadError listing every problem."""
    problems = Problems(path)
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    problems.expect_format("a lifelong score table (CSV)",
                           foreign(data, lambda line: b"model" in line and b"," in line,
                                   first_only=True))
    lines = decode_lines(data, problems, strip_bom=True)
    if problems:
        problems.raise_if_any()
    text = "\n".join(lines)  # type: ignore[arg-type]  # no None without a problem
    if not text.strip():
        problems.add(0, "file is empty")
        problems.raise_if_any()
    rows = _rows(text, problems)
    if rows is None:
        problems.raise_if_any()
    if not rows:
        problems.add(0, "no header line (expected: " + ", ".join(REQUIRED + OPTIONAL) + ")")
        problems.raise_if_any()
    header_line, header = rows[0]
    columns = _columns(header_line, header, problems)
    if columns is None:
        problems.raise_if_any()
    table = _Table(problems)
    for number, cells in rows[1:]:
        if len(cells) != len(header):
            problems.add(number, f"expected {len(header)} fields ({', '.join(header)}), "
                                 f"got {len(cells)}")
            continue
        table.add(number, {name: cells[i].strip() for name, i in columns.items()})
    if not problems and not table.rows:
        problems.add(0, "no score rows (only a header)")
    problems.raise_if_any()
    return table.build()


def _rows(text: str, problems: Problems) -> list[tuple[int, list[str]]] | None:
    """(first line number, cells) of every non-blank CSV record."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = []
    line = 1
    try:
        for cells in reader:
            if cells and any(c.strip() for c in cells):
                rows.append((line, cells))
            line = reader.line_num + 1
    except csv.Error as exc:
        problems.add(reader.line_num or line, f"not valid CSV: {exc}")
        return None
    return rows


def _columns(line: int, header: list[str], problems: Problems) -> dict[str, int] | None:
    names = [h.strip() for h in header]
    columns: dict[str, int] = {}
    for i, name in enumerate(names):
        if name not in REQUIRED + OPTIONAL:
            problems.add(line, f"unknown column {describe(name)} "
                               f"(expected: {', '.join(REQUIRED + OPTIONAL)})")
        elif name in columns:
            problems.add(line, f"column {name!r} appears twice")
        else:
            columns[name] = i
    for name in REQUIRED:
        if name not in columns:
            problems.add(line, f"missing column {name!r} (required: {', '.join(REQUIRED)})")
    return None if problems else columns


class _Table:
    """Rows checked one at a time, then the matrices."""

    def __init__(self, problems: Problems):
        self.problems = problems
        self.rows: list[tuple[str, str, str, float, float]] = []
        self.times: dict[tuple[str, str], tuple[Stamp, int]] = {}  # (column, name) -> first
        self.kind: tuple[bool, str, int] | None = None  # is_date, column, line that fixed it
        self.seen: dict[tuple[str, str, str], int] = {}

    def add(self, line: int, cells: dict[str, str]) -> None:
        ok = True
        for name in ("model", "test", "metric"):
            if not cells[name]:
                self.problems.add(line, f"{name} is empty")
                ok = False
        for column, owner in (("model_time", "model"), ("test_time", "test")):
            if not self._time(line, column, cells[column], cells[owner]):
                ok = False
        value = self._number(line, "value", cells["value"], required=True)
        pen = self._number(line, "value_pen", cells.get("value_pen", ""), required=False)
        if value is None or pen is None:
            ok = False
        if not ok:
            return
        key = (cells["model"], cells["test"], cells["metric"])
        if key in self.seen:
            self.problems.add(line, f"duplicate row for model {key[0]!r}, test {key[1]!r}, "
                                    f"metric {key[2]!r} (first at line {self.seen[key]})")
            return
        self.seen[key] = line
        self.rows.append((*key, value, pen))

    def _time(self, line: int, column: str, text: str, owner: str) -> bool:
        try:
            stamp = Stamp.parse(text)
        except ValueError as exc:
            self.problems.add(line, f"{column}: {exc}")
            return False
        if self.kind is None:
            self.kind = (stamp.is_date, column, line)
        elif stamp.is_date != self.kind[0]:
            this, other = ("an ISO date", "a number") if stamp.is_date else ("a number", "an ISO date")
            self.problems.add(line, f"{column} {describe(text)} is {this}, but {self.kind[1]} "
                                    f"at line {self.kind[2]} is {other} (times must not mix "
                                    f"numbers and dates)")
            return False
        if not owner:
            return True
        kind = column[: -len("_time")]
        first = self.times.setdefault((kind, owner), (stamp, line))
        if first[0].value != stamp.value:
            self.problems.add(line, f"{kind} {owner!r} has {column} {describe(text)} here "
                                    f"but {describe(first[0].text)} at line {first[1]}")
            return False
        return True

    def _number(self, line: int, column: str, text: str, required: bool) -> float | None:
        if not text:
            if required:
                self.problems.add(line, f"{column} is empty")
                return None
            return math.nan
        try:
            number = parse_number(text)
        except ValueError as exc:
            self.problems.add(line, f"{column} {describe(text)} {exc}")
            return None
        return number

    def build(self) -> LifelongScores:
        def order(kind: str) -> list[str]:
            names = {name for (k, name) in self.times if k == kind}
            return sorted(names, key=lambda n: (self.times[(kind, n)][0].value, n))

        models, tests = order("model"), order("test")
        m_index = {m: i for i, m in enumerate(models)}
        t_index = {t: i for i, t in enumerate(tests)}
        metrics = list(dict.fromkeys(row[2] for row in self.rows))
        values = {m: np.full((len(models), len(tests)), np.nan) for m in metrics}
        pens = {m: np.full((len(models), len(tests)), np.nan) for m in metrics}
        has_pen = set()
        for model, test, metric, value, pen in self.rows:
            values[metric][m_index[model], t_index[test]] = value
            pens[metric][m_index[model], t_index[test]] = pen
            if not math.isnan(pen):
                has_pen.add(metric)
        return LifelongScores(
            models=tuple(models),
            model_times=tuple(self.times[("model", m)][0] for m in models),
            tests=tuple(tests),
            test_times=tuple(self.times[("test", t)][0] for t in tests),
            metrics=tuple(metrics),
            values=values,
            values_pen={m: pens[m] for m in metrics if m in has_pen},
        )
