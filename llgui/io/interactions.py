"""Interaction logs (JSON Lines, schema version 1): the corrections a human gave, step by step.

One JSON object per line; blank lines are allowed; one U+FEFF at the start is ignored::

    {"doc": "nc-1", "step": 1, "initiative": "active", "kind": "post_edit",
     "target": {"sentence": 3}, "answer": "Das ist gut.", "cost": 4, "adapted": {"lines": {"4": "..."}}}

Keys (any other key is an error: a misspelt optional key would otherwise vanish silently):

- `version` (optional): 1;
- `doc`: the document id (a non-empty string);
- `step`: 1, 2, 3, ... per document, in file order (documents may interleave);
- `initiative`: "active" (the system asked) or "interactive" (the human volunteered);
- `kind` and `target`, `answer` by kind (times are seconds >= 0, sentences count from 1):

  | kind      | target                          | answer                              |
  |-----------|---------------------------------|-------------------------------------|
  | reference | {"sentence": i}                 | absent or null (the reference)      |
  | post_edit | {"sentence": i}                 | the post-edited text (one line)     |
  | prefix    | {"sentence": i}                 | {"prefix": text, "typed": text,     |
  |           |                                 |  "unit"?: "word" or "character"}    |
  | same      | {"t1": s, "t2": s, "doc2"?: id} | true or false                       |
  | boundary  | {"t": s}                        | [start, end], end > start           |
  | name      | {"t": s}                        | the speaker label (non-empty)       |
  | segment   | {"start": s, "end": s}, end > start | absent, null, or the reference turns |
  |           |                                 | in the span: [[start, end, speaker], ...] |
  | label     | {"items": [id, ...]}, ids distinct  | one label per item: [label, ...]    |

  Detection labels are "target" / "nontarget" (also 1/0, true/false, as in the score files;
  JSON true/false too), stored as "target" / "nontarget".

- `cost` (optional, null = absent): a number >= 0; absent means the cost model decides;
- `elapsed_s` (optional): the system's reply time in seconds (written by `llgui simulate`;
  read past, it scores nothing);
- `effort` (optional): a live session's expert effort, `{"seconds": s, "keystrokes": n,
  "word_edits": n}` (each optional, >= 0); checked, it scores nothing (the cost does);
- `adapted` (optional, null = absent = the hypothesis did not change), exactly one of:
  `{"path": FILE}`, a complete new hypothesis resolved against `base_dir` (default: the log's
  folder); MT: a text file read with `load_segments`, giving every line; diarization: an
  RTTM/MDTM file whose turns with file field `uris[doc]` (default: the doc id) are taken, and a
  file without that field gives an empty hypothesis (the system found no speech);
  `{"lines": {"12": "text", ...}}` (MT only), the changed segments by 1-based number;
  `{"turns": [[start, end, speaker], ...]}` (diarization only), the complete new turn list;
  detection: `{"path": FILE}` is a score file of the system's new scores for every trial,
  read by the bundle (it needs the key); `{"scores": {"ID": score, ...}}` the changed scores.

A log holds one task: MT kinds (reference, post_edit, prefix), diarization kinds (same, boundary,
name, segment) and the detection kind (label) never mix, and when `task` is given every kind must belong to it. Checks that
need the documents (sentence numbers, times within the recording, doc2) are the bundle's.
JSON's NaN/Infinity extensions and duplicate keys in an object are errors.

Writing: `step_line(step, extra)` is one line of the schema (MT and diarization steps, the
`adapted` lines or turns inline; `extra` appends keys such as `elapsed_s` or `effort`), what
`load_log` reads back; `TurnTexts` keeps each turn's JSON text for a writer that writes the
same turns step after step. Both are in `llgui.io.interactions_writer`, importable from here.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Mapping

from llgui.core.errors import LoadError, Problems
from llgui.core.mt.ipmt import PREFIX_UNITS, WORD, PrefixAnswer
from llgui.core.types import (
    DIAR_KINDS, INITIATIVES, LABEL_KINDS, MT_KINDS, STEP_KINDS, Adapted, ItemsTarget,
    PointTarget, SameTarget, SentenceTarget, SpanTarget, Step, Turn,
)
from llgui.io._read import (
    NotRegularFile, check_regular, decode_lines, describe, foreign, read_bytes,
    value_error_reason,
)
from llgui.io.rttm import load_turns
from llgui.io.text import load_segments
from llgui.io.interactions_writer import (   # noqa: F401 - the writer, re-exported
    TurnTexts, step_line, target_to_json, turns_to_json,
)

SCHEMA_VERSION = 1
KEYS = ("version", "doc", "step", "initiative", "kind", "target", "answer", "cost", "adapted",
        "elapsed_s", "effort")
_EFFORT_KEYS = ("seconds", "keystrokes", "word_edits")
_REQUIRED = ("doc", "step", "initiative", "kind", "target")
_TARGET_KEYS = {
    "reference": (("sentence",), ()),
    "post_edit": (("sentence",), ()),
    "prefix": (("sentence",), ()),
    "same": (("t1", "t2"), ("doc2",)),
    "boundary": (("t",), ()),
    "name": (("t",), ()),
    "segment": (("start", "end"), ()),
    "label": (("items",), ()),
}
"""kind -> (required target keys, optional target keys)."""

_ADAPTED_KEYS = ("path", "lines", "turns", "scores", "labels")
_ADAPTED_BY_TASK = {"mt": ("path", "lines"), "diarization": ("path", "turns"),
                    "detection": ("path", "scores"), "classification": ("path", "labels")}
_KINDS = {"mt": MT_KINDS, "diarization": DIAR_KINDS, "detection": LABEL_KINDS,
          "classification": LABEL_KINDS}
_ARTICLE = {"mt": "an", "diarization": "a", "detection": "a", "classification": "a"}
_DET_LABELS = {"target": "target", "nontarget": "nontarget", "non-target": "nontarget",
               "1": "target", "0": "nontarget", "true": "target", "false": "nontarget"}
"""Detection labels as the score files spell them (lower case) -> the stored label."""
_MAX_ITEMS = 1_000_000
_LINE_BREAK = re.compile("[\n\r\x00\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_SEGMENT_NUMBER = re.compile(r"[1-9][0-9]*")


def task_of_kind(kind: str) -> str:
    """"mt", "diarization" or "detection", for a kind in STEP_KINDS."""
    if kind in MT_KINDS:
        return "mt"
    return "detection" if kind in LABEL_KINDS else "diarization"


def load_log(
    path: str | Path,
    task: str | None = None,
    base_dir: str | Path | None = None,
    uris: Mapping[str, str] | None = None,
) -> tuple[Step, ...]:
    """The steps of an interaction log, in file order, each with `line` = its line number.

    `task` ("mt", "diarization" or "detection"; None = whichever the kinds say) restricts the
    kinds; `base_dir` is where `adapted` paths are resolved (default: the log's folder);
    `uris` maps a document id to the file field of its turns in adapted RTTM/MDTM files
    (default: the id). A detection step's adapted score file is only checked to exist here
    (`Adapted(path=...)`); the bundle reads it with the key. Raises LoadError listing every
    problem of the log and of the files it names.
    """
    if task not in (None, "mt", "diarization", "detection", "classification"):
        raise ValueError(f"task must be None, 'mt', 'diarization', 'detection' or "
                         f"'classification', not {task!r}")
    problems = Problems(path)
    data = read_bytes(path, problems)
    if data is None:
        problems.raise_if_any()
    problems.expect_format("an interaction log (JSONL)",
                           foreign(data, lambda line: line.startswith(b"{")))
    lines = decode_lines(data, problems, strip_bom=True)
    reader = _Reader(problems, Path(base_dir) if base_dir is not None else Path(path).parent,
                     task, dict(uris or {}))
    for number, line in enumerate(lines, 1):
        if line is None or not line.strip():
            continue
        reader.read(number, line)
    if not problems and not reader.steps:
        problems.add(0, "no interaction steps")
    problems.raise_if_any()
    return tuple(reader.steps)


class _Bad(Exception):
    """A problem already reported; abandons the rest of this part of the line."""


class _DuplicateKey(Exception):
    pass


class _NotJson(Exception):
    pass


def _object_pairs(pairs: list[tuple[str, object]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


def _reject_constant(name: str) -> object:
    raise _NotJson(f"invalid JSON: {name} is not a JSON value")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(f"invalid JSON: number {describe(text)} is out of range")
    return value


def _show(value: object, limit: int = 40) -> str:
    """A JSON value for a message: a string in single quotes (as every loader quotes a bad
    field), anything else as JSON; shortened so one bad line cannot flood the terminal."""
    if isinstance(value, str):
        return describe(value, limit)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_float(value: object) -> float | None:
    """A finite float from a JSON number, or None (bool, other types, NaN, overflow)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _as_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


class _Reader:
    """Reads log lines into steps, adding problems at their lines."""

    def __init__(self, problems: Problems, base: Path, task: str | None, uris: dict[str, str]):
        self.problems = problems
        self.base = base
        self.task = task
        self.task_line: tuple[int, str] | None = None  # the first kind that fixed the task
        self.uris = uris
        self.steps: list[Step] = []
        self.last_step: dict[str, int] = {}
        self.files: dict[str, object] = {}  # resolved path -> loaded content, or None if bad
        self.line = 0
        self.line_bad = False
        self.task_given = task is not None

    def add(self, reason: str) -> None:
        self.line_bad = True
        self.problems.add(self.line, reason)

    def fail(self, reason: str) -> "_Bad":
        self.add(reason)
        return _Bad()

    # ---------------------------------------------------------------------------------------
    def read(self, number: int, line: str) -> None:
        self.line = number
        self.line_bad = False
        obj = self._parse(line)
        if obj is None:
            return
        if not isinstance(obj, dict):
            self.add(f"expected a JSON object, got {_show(obj)}")
            return
        for key in obj:
            if key not in KEYS:
                self.add(f"unknown key {_show(key)} (expected: {', '.join(KEYS)})")
        for key in _REQUIRED:
            if key not in obj:
                self.add(f"missing key {key!r}")
        if "version" in obj and (_as_int(obj["version"]) != SCHEMA_VERSION):
            self.add(f"version must be {SCHEMA_VERSION}, not {_show(obj['version'])}")
        fields = {}
        for key, check in (("doc", self._doc), ("step", self._step_number),
                           ("initiative", self._initiative), ("kind", self._kind),
                           ("cost", self._cost), ("effort", self._effort)):
            if key in obj:
                try:
                    fields[key] = check(obj[key])
                except _Bad:
                    fields[key] = _Bad
        kind = fields.get("kind")
        if kind is not None and kind is not _Bad:
            self.target_now = None
            for key, check in (("target", self._target), ("answer", self._answer),
                               ("adapted", self._adapted)):
                try:
                    fields[key] = check(kind, obj.get(key), fields.get("doc"), key in obj)
                except _Bad:
                    fields[key] = _Bad
                if key == "target":
                    self.target_now = fields[key]
        doc, step = fields.get("doc"), fields.get("step")
        if isinstance(doc, str) and isinstance(step, int):
            self._check_order(doc, step)
        if self.line_bad or any(v is _Bad for v in fields.values()):
            return
        self.steps.append(Step(
            doc=doc, step=step, initiative=fields["initiative"], kind=kind,
            target=fields["target"], answer=fields["answer"], cost=fields.get("cost"),
            adapted=fields.get("adapted"), line=number,
        ))

    def _parse(self, line: str) -> object | None:
        try:
            return json.loads(line, object_pairs_hook=_object_pairs,
                              parse_constant=_reject_constant, parse_float=_parse_float)
        except json.JSONDecodeError as exc:
            self.add(f"invalid JSON: {exc.msg[:1].lower()}{exc.msg[1:]} (column {exc.colno})")
        except _DuplicateKey as exc:
            self.add(f"duplicate key {_show(exc.args[0])} in an object")
        except _NotJson as exc:
            self.add(str(exc))
        except RecursionError:
            self.add("invalid JSON: nested too deeply")
        except ValueError as exc:  # e.g. an integer longer than Python's conversion limit
            self.add(f"invalid JSON: {value_error_reason(exc)}")
        return None

    def _check_order(self, doc: str, step: int) -> None:
        last = self.last_step.get(doc)
        if last is None and step != 1:
            self.add(f"step {step} is the first of document {doc!r} (expected 1)")
        elif last is not None and step != last + 1:
            self.add(f"step {step} of document {doc!r} follows step {last} (expected {last + 1})")
        self.last_step[doc] = step

    # --- top-level fields ----------------------------------------------------------------
    def _doc(self, value: object) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(f"doc must be a non-empty string, not {_show(value)}")
        return value

    def _step_number(self, value: object) -> int:
        number = _as_int(value)
        if number is None or number < 1:
            raise self.fail(f"step must be an integer >= 1, not {_show(value)}")
        return number

    def _initiative(self, value: object) -> str:
        if value not in INITIATIVES or not isinstance(value, str):
            raise self.fail(
                f"initiative must be 'active' or 'interactive', not {_show(value)}"
            )
        return value

    def _kind(self, value: object) -> str:
        if not isinstance(value, str) or value not in STEP_KINDS:
            raise self.fail(f"unknown kind {_show(value)} (expected one of: {', '.join(STEP_KINDS)})")
        kind_task = self._task_of(value)
        if self.task is not None and kind_task != self.task:
            this = f"kind {value!r} is {_ARTICLE[kind_task]} {kind_task} kind"
            if self.task_given:
                raise self.fail(f"{this}, but the task is {self.task} "
                                f"(expected one of: {', '.join(_KINDS[self.task])})")
            first_line, first_kind = self.task_line
            raise self.fail(f"{this}, but line {first_line} has the {self.task} kind "
                            f"{first_kind!r} (a log holds one task)")
        if self.task is None:
            self.task = kind_task
        if self.task_line is None:
            self.task_line = (self.line, value)
        return value

    def _task_of(self, kind: str) -> str:
        """The task of a kind; a label step belongs to classification in such a log."""
        if kind in LABEL_KINDS and self.task == "classification":
            return "classification"
        return task_of_kind(kind)

    def _cost(self, value: object) -> float | None:
        if value is None:
            return None
        number = _as_float(value)
        if number is None or number < 0:
            raise self.fail(f"cost must be a number >= 0, not {_show(value)}")
        return number

    def _effort(self, value: object) -> None:
        if not isinstance(value, dict):
            raise self.fail(f"effort must be an object, not {_show(value)}")
        for key, number in value.items():
            if key not in _EFFORT_KEYS:
                raise self.fail(f"effort: unknown key {_show(key)} (expected: "
                                f"{', '.join(_EFFORT_KEYS)})")
            got = _as_float(number)
            if got is None or got < 0:
                raise self.fail(f"effort {key} must be a number >= 0, not {_show(number)}")
        return None

    # --- kind-dependent fields -----------------------------------------------------------
    def _time(self, where: str, value: object) -> float:
        number = _as_float(value)
        if number is None or number < 0:
            raise self.fail(f"{where} must be a number of seconds >= 0, not {_show(value)}")
        return number

    def _target(self, kind: str, value: object, doc: object, present: bool):
        if not present:
            raise _Bad()  # "missing key 'target'" is already reported
        if not isinstance(value, dict):
            raise self.fail(f"target must be an object, not {_show(value)}")
        required, optional = _TARGET_KEYS[kind]
        expected = required + optional
        bad = False
        for key in value:
            if key not in expected:
                self.add(f"target of a {kind} step: unknown key {_show(key)} "
                         f"(expected: {', '.join(expected)})")
                bad = True
        for key in required:
            if key not in value:
                self.add(f"target of a {kind} step: missing key {key!r}")
                bad = True
        if bad:
            raise _Bad()
        if kind == "label":
            return self._items(value["items"])
        if kind in MT_KINDS:
            sentence = _as_int(value["sentence"])
            if sentence is None or sentence < 1:
                raise self.fail(
                    f"target sentence must be an integer >= 1, not {_show(value['sentence'])}"
                )
            return SentenceTarget(sentence)
        if kind == "same":
            t1 = self._time_or_none("target t1", value["t1"])
            t2 = self._time_or_none("target t2", value["t2"])
            doc2 = value.get("doc2")
            if doc2 is not None and (not isinstance(doc2, str) or not doc2):
                raise self.fail(f"target doc2 must be a document id, not {_show(doc2)}")
            if t1 is None or t2 is None:
                raise _Bad()
            return SameTarget(t1, t2, doc2)
        if kind in ("boundary", "name"):
            return PointTarget(self._time("target t", value["t"]))
        start = self._time_or_none("target start", value["start"])
        end = self._time_or_none("target end", value["end"])
        if start is None or end is None:
            raise _Bad()
        if end <= start:
            raise self.fail(
                f"target end {_show(value['end'])} is not after start {_show(value['start'])}"
            )
        return SpanTarget(start, end)

    def _items(self, value: object) -> ItemsTarget:
        if not isinstance(value, list) or not value:
            raise self.fail(f"target items must be a non-empty list of item ids, not {_show(value)}")
        if len(value) > _MAX_ITEMS:
            raise self.fail(f"target items: {len(value)} items in one step (at most {_MAX_ITEMS})")
        first: dict[str, int] = {}
        bad = False
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.add(f"target items[{i}] must be an item id (a non-empty string), "
                         f"not {_show(item)}")
                bad = True
            elif item in first:
                self.add(f"target items[{i}] {_show(item)} is a duplicate of items[{first[item]}]")
                bad = True
            else:
                first[item] = i
        if bad:
            raise _Bad()
        return ItemsTarget(tuple(value))

    def _labels(self, value: object, count: object) -> tuple[str, ...]:
        n = len(count.items) if isinstance(count, ItemsTarget) else None
        if not isinstance(value, list) or not value:
            raise self.fail(f"answer of a label step must be a list of labels, one per item, "
                            f"not {_show(value)}")
        if n is not None and len(value) != n:
            raise self.fail(f"answer has {len(value)} labels for {n} items (one label per item)")
        labels = []
        bad = False
        if self.task == "classification":   # the classes are the bundle's to check
            for i, label in enumerate(value):
                if not isinstance(label, str) or not label.strip():
                    self.add(f"answer[{i}] must be a class name (a non-empty string), "
                             f"not {_show(label)}")
                    bad = True
            if bad:
                raise _Bad()
            return tuple(value)
        for i, label in enumerate(value):
            if isinstance(label, bool):
                labels.append("target" if label else "nontarget")
            elif isinstance(label, str) and label.lower() in _DET_LABELS:
                labels.append(_DET_LABELS[label.lower()])
            else:
                self.add(f"answer[{i}] {_show(label)} is not a detection label (expected one "
                         f"of: target, nontarget, 1, 0, true, false)")
                bad = True
        if bad:
            raise _Bad()
        return tuple(labels)

    def _time_or_none(self, where: str, value: object) -> float | None:
        try:
            return self._time(where, value)
        except _Bad:
            return None

    def _answer(self, kind: str, value: object, doc: object, present: bool):
        if kind == "segment" and value is not None:
            return self._segment_turns(value)
        if kind in ("reference", "segment"):
            if value is not None:
                raise self.fail(
                    f"a {kind} step takes no answer (absent or null), not {_show(value)}"
                )
            return None
        if not present:
            what = {"post_edit": "the post-edited text", "same": "true or false",
                    "prefix": '{"prefix": text, "typed": text}',
                    "boundary": "[start, end] in seconds", "name": "the speaker",
                    "label": "one label per item"}[kind]
            raise self.fail(f"missing key 'answer' (a {kind} step needs {what})")
        if kind == "label":
            return self._labels(value, self.target_now)
        if kind == "prefix":
            return self._prefix(value)
        if kind == "post_edit":
            if not isinstance(value, str):
                raise self.fail(
                    f"answer must be the post-edited text (a string), not {_show(value)}"
                )
            found = _LINE_BREAK.search(value)
            if found:
                raise self.fail(
                    f"answer contains a line break (U+{ord(found.group()):04X} at column "
                    f"{found.start() + 1} of the text); a segment must be one line"
                )
            return value
        if kind == "same":
            if not isinstance(value, bool):
                raise self.fail(f"answer of a same step must be true or false, not {_show(value)}")
            return value
        if kind == "name":
            if not isinstance(value, str) or not value:
                raise self.fail(
                    f"answer of a name step must be the speaker (a non-empty string), "
                    f"not {_show(value)}"
                )
            return value
        # boundary
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(
                f"answer of a boundary step must be [start, end] in seconds, not {_show(value)}"
            )
        start = self._time_or_none("answer start", value[0])
        end = self._time_or_none("answer end", value[1])
        if start is None or end is None:
            raise _Bad()
        if end <= start:
            raise self.fail(f"answer end {_show(value[1])} is not after start {_show(value[0])}")
        return (start, end)

    def _prefix(self, value: object) -> PrefixAnswer:
        """A prefix step's answer (interactive-predictive MT, llgui.core.mt.ipmt): the
        validated prefix and the text typed after it ("" = the acceptance)."""
        if not isinstance(value, dict) or not {"prefix", "typed"} <= set(value):
            raise self.fail('answer of a prefix step must be {"prefix": text, "typed": text}, '
                            f"not {_show(value)}")
        extra = set(value) - {"prefix", "typed", "unit"}
        if extra:
            raise self.fail(f"answer of a prefix step: unknown key {_show(sorted(extra)[0])} "
                            "(expected: prefix, typed, unit)")
        texts = []
        for key in ("prefix", "typed"):
            text = value[key]
            if not isinstance(text, str):
                raise self.fail(f"answer {key} of a prefix step must be a string, "
                                f"not {_show(text)}")
            if _LINE_BREAK.search(text):
                raise self.fail(f"answer {key} of a prefix step contains a line break")
            texts.append(text)
        unit = value.get("unit", WORD)
        if unit not in PREFIX_UNITS:
            raise self.fail(f"answer unit of a prefix step must be one of "
                            f"{', '.join(PREFIX_UNITS)}, not {_show(unit)}")
        return PrefixAnswer(texts[0], texts[1], unit)

    def _segment_turns(self, value: object) -> tuple:
        """A segment step's answer: the turns the human annotated in the span (what
        `llgui simulate` logs; it scores nothing, the reference does)."""
        if not isinstance(value, list):
            raise self.fail(f"answer of a segment step must be null or a list of [start, end, "
                            f"speaker], not {_show(value)}")
        turns = []
        for i, item in enumerate(value):
            if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[2], str)
                    or not item[2]):
                raise self.fail(f"answer[{i}] of a segment step must be [start, end, speaker], "
                                f"not {_show(item)}")
            start = self._time_or_none(f"answer[{i}] start", item[0])
            end = self._time_or_none(f"answer[{i}] end", item[1])
            if start is None or end is None:
                raise _Bad()
            if end < start:
                raise self.fail(f"answer[{i}] of a segment step ends before it starts")
            turns.append((start, end, item[2]))
        return tuple(turns)

    def _adapted(self, kind: str, value: object, doc: object, present: bool):
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(f"adapted must be an object or null, not {_show(value)}")
        unknown = [k for k in value if k not in _ADAPTED_KEYS]
        for key in unknown:
            self.add(f"adapted: unknown key {_show(key)} (expected one of: "
                     f"{', '.join(_ADAPTED_KEYS)})")
        if unknown:
            raise _Bad()
        if len(value) != 1:
            raise self.fail('adapted must hold exactly one of "path", "lines", "turns", "scores"')
        (key, content), = value.items()
        task = self._task_of(kind)
        if key not in _ADAPTED_BY_TASK[task] and (task in ("detection", "classification")
                                                 or key in ("scores", "labels")):
            given = " or ".join(f'"{k}"' for k in _ADAPTED_BY_TASK[task])
            raise self.fail(f'adapted "{key}" is not for {_ARTICLE[task]} {task} step, which '
                            f'gives {given}')
        if task == "detection":
            if key == "scores":
                return Adapted(scores=self._adapted_scores(content))
            return self._adapted_score_file(content)
        if task == "classification":
            if key == "labels":
                return Adapted(labels=self._adapted_labels(content))
            return self._adapted_score_file(content)
        mt = kind in MT_KINDS
        if key == "turns" and mt:
            raise self.fail('adapted "turns" is for diarization steps; an MT step gives '
                            '"lines" or "path"')
        if key == "lines" and not mt:
            raise self.fail('adapted "lines" is for MT steps; a diarization step gives '
                            '"turns" or "path"')
        if key == "path":
            return self._adapted_path(content, mt, doc)
        if key == "lines":
            return Adapted(lines=self._adapted_lines(content))
        return Adapted(turns=self._adapted_turns(content))

    def _adapted_scores(self, content: object) -> dict[str, float]:
        if not isinstance(content, dict) or not content:
            raise self.fail(f'adapted "scores" must be a non-empty object {{"ID": score, ...}}, '
                            f'not {_show(content)}')
        scores: dict[str, float] = {}
        bad = False
        for key, number in content.items():
            value = _as_float(number)
            if not key.strip():
                self.add("adapted scores: an empty item id")
                bad = True
            elif value is None:
                self.add(f"adapted scores: the score of {_show(key)} must be a finite number, "
                         f"not {_show(number)}")
                bad = True
            else:
                scores[key] = value
        if bad:
            raise _Bad()
        return scores

    def _adapted_labels(self, content: object) -> dict[str, str]:
        if not isinstance(content, dict) or not content:
            raise self.fail(f'adapted "labels" must be a non-empty object {{"ID": "class", '
                            f'...}}, not {_show(content)}')
        bad = False
        for key, label in content.items():
            if not key.strip():
                self.add("adapted labels: an empty item id")
                bad = True
            elif not isinstance(label, str) or not label.strip():
                self.add(f"adapted labels: the class of {_show(key)} must be a non-empty "
                         f"string, not {_show(label)}")
                bad = True
        if bad:
            raise _Bad()
        return dict(content)

    def _adapted_score_file(self, content: object) -> Adapted:
        if not isinstance(content, str) or not content:
            raise self.fail(f'adapted "path" must be a file name, not {_show(content)}')
        try:
            candidate = self.base / content
            exists, is_file = candidate.exists(), candidate.is_file()
        except (OSError, ValueError):
            raise self.fail(f"adapted file {content!r} is not a valid path") from None
        if not exists:
            raise self.fail(f"adapted file {content!r} not found")
        if not is_file:
            raise self.fail(f"adapted file {content!r} is not a file")
        return Adapted(path=str(candidate))

    def _adapted_lines(self, content: object) -> dict[int, str]:
        if not isinstance(content, dict):
            raise self.fail(
                f'adapted "lines" must be an object {{"12": "text", ...}}, not {_show(content)}'
            )
        lines: dict[int, str] = {}
        bad = False
        for key, text in content.items():
            if not _SEGMENT_NUMBER.fullmatch(key):
                self.add(f"adapted lines: key {_show(key)} is not a segment number (\"1\", \"2\", ...)")
                bad = True
                continue
            if not isinstance(text, str):
                self.add(f"adapted lines: segment {key} must be a string, not {_show(text)}")
                bad = True
                continue
            found = _LINE_BREAK.search(text)
            if found:
                self.add(f"adapted lines: segment {key} contains a line break "
                         f"(U+{ord(found.group()):04X}); a segment must be one line")
                bad = True
                continue
            lines[int(key)] = text
        if bad:
            raise _Bad()
        return lines

    def _adapted_turns(self, content: object) -> tuple[Turn, ...]:
        if not isinstance(content, list):
            raise self.fail(
                f'adapted "turns" must be a list of [start, end, speaker], not {_show(content)}'
            )
        turns = []
        bad = False
        for i, item in enumerate(content):
            where = f"adapted turns[{i}]"
            if (not isinstance(item, list) or len(item) != 3 or not isinstance(item[2], str)
                    or not item[2]):
                self.add(f"{where} must be [start, end, speaker], not {_show(item)}")
                bad = True
                continue
            start = self._time_or_none(f"{where} start", item[0])
            end = self._time_or_none(f"{where} end", item[1])
            if start is None or end is None:
                bad = True
                continue
            if end <= start:
                self.add(f"{where}: end {_show(item[1])} is not after start {_show(item[0])}")
                bad = True
                continue
            turns.append(Turn(start, end, item[2]))
        if bad:
            raise _Bad()
        return tuple(sorted(turns))

    def _adapted_path(self, content: object, mt: bool, doc: object) -> Adapted:
        if not isinstance(content, str) or not content:
            raise self.fail(f'adapted "path" must be a file name, not {_show(content)}')
        try:
            resolved = str(self.base / content)
        except (TypeError, ValueError):
            raise self.fail(f"adapted file {content!r} is not a valid path") from None
        key = ("mt:" if mt else "diar:") + resolved
        if key not in self.files:
            self.files[key] = self._load_file(content, resolved, mt)
        loaded = self.files[key]
        if loaded is None:
            raise _Bad()  # reported once, at the first step naming the file
        if mt:
            return Adapted(lines={i: s for i, s in enumerate(loaded, 1)}, path=resolved)
        uri = self.uris.get(doc, doc) if isinstance(doc, str) else None
        turns = loaded.get(uri, ()) if uri is not None else ()
        return Adapted(turns=turns, path=resolved)

    def _load_file(self, written: str, resolved: str, mt: bool) -> object | None:
        try:
            check_regular(resolved)
        except FileNotFoundError:
            self.add(f"adapted file {written!r} not found")
            return None
        except NotRegularFile as exc:
            self.add(f"adapted file {written!r} {exc}")
            return None
        except (OSError, ValueError):
            self.add(f"adapted file {written!r} is not a file")
            return None
        try:
            return load_segments(resolved) if mt else load_turns(resolved)
        except LoadError as exc:
            self.problems.extend(exc.problems)
            return None
