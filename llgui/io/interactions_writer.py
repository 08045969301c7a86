"""Writing interaction logs (JSON Lines, schema version 1; the schema and its reader:
`llgui.io.interactions`): `step_line(step, extra)` is one line of the schema (MT and
diarization steps, the `adapted` lines or turns inline; `extra` appends keys such as
`elapsed_s` or `effort`), what `load_log` reads back; `TurnTexts` keeps each turn's JSON text
for a writer that writes the same turns step after step."""
from __future__ import annotations

import json
from itertools import compress, repeat
from operator import is_
from typing import Callable, Mapping, Sequence

from llgui.core.mt.ipmt import PrefixAnswer
from llgui.core.types import (
    PointTarget, SameTarget, SentenceTarget, SpanTarget, Step, Target, Turn,
)


def target_to_json(target: Target) -> dict:
    """The `target` object of a step (MT and diarization kinds)."""
    if isinstance(target, SentenceTarget):
        return {"sentence": target.sentence}
    if isinstance(target, SameTarget):
        out: dict = {"t1": target.t1, "t2": target.t2}
        if target.doc2 is not None:
            out["doc2"] = target.doc2
        return out
    if isinstance(target, PointTarget):
        return {"t": target.t}
    if isinstance(target, SpanTarget):
        return {"start": target.start, "end": target.end}
    raise TypeError(f"not a target: {target!r}")


def turns_to_json(turns) -> list:
    """Turns (or (start, end, speaker) triples) as `[[start, end, speaker], ...]`."""
    return [[float(t[0]), float(t[1]), str(t[2])] if not isinstance(t, Turn)
            else [t.start, t.end, t.speaker] for t in turns]


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""What json.dumps(value, ensure_ascii=False, allow_nan=False) builds at every call."""


def _dumps(value: object) -> str:
    return _ENCODER.encode(value)


def _turns_text(turns: Sequence[Turn]) -> str:
    return ", ".join([_dumps(item) for item in turns_to_json(turns)])


class TurnTexts:
    """The items of `json.dumps(turns_to_json(turns))`, each turn's text made once and kept
    by the turn's identity (the turn is kept alive with it, so an id is never reused): a
    show's thousands of turns are mostly the ones of the step before."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}     # id(turn) -> its JSON text
        self._alive: list = []               # ... and the turns, so ids stay theirs
        self._last: tuple = (None, "")       # the last list given (kept alive) and its text

    def __call__(self, turns: Sequence[Turn]) -> str:
        last, text = self._last
        if turns is last and isinstance(turns, tuple):   # a system that kept its hypothesis
            return text
        texts, alive = self._texts, self._alive
        items = list(map(texts.get, map(id, turns)))   # per-turn passes in C
        for i in compress(range(len(items)), map(is_, items, repeat(None))):
            turn = turns[i]
            items[i] = texts[id(turn)] = _dumps(turns_to_json((turn,))[0])
            alive.append(turn)
        text = ", ".join(items)
        self._last = (turns, text)
        return text


def step_line(step: Step, extra: Mapping[str, object] | None = None, *,
              turns_text: Callable[[Sequence[Turn]], str] = _turns_text) -> str:
    """One line of the log (schema 1, no line ending) for `step`, its keys in the order of
    the module text, then the keys of `extra`. `adapted` is written inline (`lines` or
    `turns`); `turns_text` renders a turn list's items (`TurnTexts` to reuse them)."""
    record: dict = {"doc": step.doc, "step": step.step, "initiative": step.initiative,
                    "kind": step.kind, "target": target_to_json(step.target)}
    answer = step.answer
    if step.kind == "boundary" and answer is not None:
        answer = [answer[0], answer[1]]
    elif step.kind == "segment" and answer is not None:
        answer = [[float(t[0]), float(t[1]), str(t[2])] for t in answer]
    elif isinstance(answer, PrefixAnswer):
        answer = answer.to_json()
    record["answer"] = answer
    if step.cost is not None:
        record["cost"] = step.cost
    adapted = step.adapted
    turns = None
    if adapted is not None:
        if adapted.lines is not None:
            record["adapted"] = {"lines": {str(k): v for k, v in sorted(adapted.lines.items())}}
        elif adapted.turns is not None:
            turns = adapted.turns
    rest = dict(extra or {})
    if turns is None:
        record.update(rest)
        return _dumps(record)
    # json.dumps of the whole record, the turns' text from `turns_text`
    line = _dumps(record)[:-1] + ', "adapted": {"turns": [' + turns_text(turns) + "]}"
    return line + (", " + _dumps(rest)[1:] if rest else "}")
