"""Protocol version 1.1 between llgui and a system under evaluation.

JSON objects, one per line, UTF-8; llgui writes the system's stdin and reads its stdout. The
messages are frozen dataclasses: `encode(message)` is the one writer (llgui's messages, and
the system's for the reference systems and tests), `parse_system(...)` / `parse_llgui(...)`
the one parser for each direction. A parser error names the message and its fault exactly:

    system message 14 (doc X, step 3): unknown type 'adaptd'

Targets are the core's types (`SentenceTarget`, `SameTarget`, `PointTarget`, `SpanTarget`);
MT lines are 1-based; times are seconds; turns are (start, end, speaker) triples.

Version 1.1 (hello: `"protocol": 1, "minor": 1`) only adds to version 1, so a version-1
system runs unchanged: every message llgui sends inside a document carries `doc` and `step`
(0 for the document, then 1, 2, ... per step), a system's message may echo them (a wrong
echo is a fault at once: a duplicate, skipped or late reply), `answer`/`correction`/`refused`
say the budget `left`, and in active mode a system may ask the cost of a request first
(`quote`, answered by a `quote`, no step spent). docs/protocol.schema.json is the schema of
every message.

Version 1.2 (hello: `"minor": 2`) adds the prefix interaction of interactive-predictive MT
(`llgui.sim.prefix`: llgui's `prefix`, the system's `completion`), spoken only with a system
whose hello says `"minor": 2`; 1.0 and 1.1 systems run unchanged.
"""
from __future__ import annotations

import json
import math
import operator
import re
from dataclasses import dataclass, field
from typing import Mapping, Union

import orjson

from llgui.core.numbers import show_value

from llgui.core.errors import SystemFailed
from llgui.io.interactions import target_to_json, turns_to_json
from llgui.sim.prefix import Completion, PrefixMessage, parse_completion, parse_prefix
from llgui.sim.turn_reuse import TurnReuse
from llgui.core.types import (
    DIAR_KINDS, MT_KINDS, PointTarget, SameTarget, SentenceTarget, SpanTarget, Target, Turn,
)

PROTOCOL_VERSION = 1
PROTOCOL_MINOR = 2
MAX_QUOTES_PER_STEP = 1000
"""Quotes a system may ask before it requests or stops (a loop of quotes is a fault)."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest message accepted from a system (a 3-hour show's turn list is ~200 kB)."""

KINDS = {"mt": MT_KINDS, "diarization": DIAR_KINDS}
REQUEST_KINDS = {"mt": ("reference",), "diarization": ("same", "boundary", "name")}
MODES = ("active", "interactive", "none")

TurnList = tuple[tuple[float, float, str], ...]


# --------------------------------------------------------------------------------------------
# llgui -> system


@dataclass(frozen=True)
class Hello:
    task: str
    seed: int
    protocol: int = PROTOCOL_VERSION
    minor: int = PROTOCOL_MINOR
    type = "hello"


@dataclass(frozen=True)
class DocumentStart:
    """A document to process; `hypothesis` is the bundle's (lines, or turns), when it has one;
    `audio` the absolute path of a diarization document's recording, when the bundle names
    one."""

    doc: str
    time: object
    mode: str
    budget: float
    source: tuple[str, ...] | None = None
    hypothesis: tuple | None = None
    uem: tuple[tuple[float, float], ...] | None = None
    audio: str | None = None
    step: int | None = 0
    type = "document"


@dataclass(frozen=True)
class Answer:
    kind: str
    target: Target
    answer: object
    cost: float
    doc: str | None = None
    step: int | None = None
    left: float | None = None
    type = "answer"


@dataclass(frozen=True)
class Refused:
    """A request that does not fit the budget left: the document's steps end."""

    reason: str = "budget"
    doc: str | None = None
    step: int | None = None
    cost: float | None = None
    left: float | None = None
    type = "refused"


@dataclass(frozen=True)
class Correction:
    kind: str
    target: Target
    answer: object
    cost: float
    doc: str | None = None
    step: int | None = None
    left: float | None = None
    type = "correction"


@dataclass(frozen=True)
class Quote:
    """What a request would cost (the reply to a system's `quote`); no step is spent."""

    kind: str
    target: Target
    cost: float
    left: float
    doc: str | None = None
    step: int | None = None
    type = "quote"


@dataclass(frozen=True)
class EndDocument:
    doc: str
    type = "end_document"


@dataclass(frozen=True)
class Bye:
    type = "bye"


# --------------------------------------------------------------------------------------------
# system -> llgui


@dataclass(frozen=True)
class SystemHello:
    name: str
    version: str = ""
    minor: int | None = None
    """The minor protocol version the system speaks, when its hello says (2: prefix)."""
    type = "hello"


@dataclass(frozen=True)
class Hypothesis:
    """h0 of a document: `lines` (MT) or `turns` (diarization)."""

    doc: str
    lines: tuple[str, ...] | None = None
    turns: TurnList | None = None
    step: int | None = None
    type = "hypothesis"


@dataclass(frozen=True)
class Request:
    kind: str
    target: Target
    doc: str | None = None
    step: int | None = None
    type = "request"


@dataclass(frozen=True)
class QuoteRequest:
    """Active mode: what would this request cost? (answered by `Quote`)."""

    kind: str
    target: Target
    doc: str | None = None
    step: int | None = None
    type = "quote"


@dataclass(frozen=True)
class Stop:
    doc: str | None = None
    step: int | None = None
    type = "stop"


@dataclass(frozen=True)
class AdaptedReply:
    """The system's hypothesis after a step: changed MT lines (1-based), the whole new turn
    list, or neither (unchanged)."""

    lines: Mapping[int, str] | None = field(default=None, hash=False)
    turns: TurnList | None = None
    doc: str | None = None
    step: int | None = None
    type = "adapted"


LlguiMessage = Union[Hello, DocumentStart, Answer, Refused, Correction, Quote, EndDocument, Bye,
                     PrefixMessage]
SystemMessage = Union[SystemHello, Hypothesis, Request, QuoteRequest, Stop, AdaptedReply,
                      Completion]


# --------------------------------------------------------------------------------------------
# Faults


class ProtocolFault(SystemFailed):
    """The system broke the protocol, crashed or hung: names the message, document and step."""

    def __init__(self, reason: str, number: int | None = None, doc: str | None = None,
                 step: int | None = None, stderr_tail: str = ""):
        self.reason, self.number, self.doc, self.step = reason, number, doc, step
        self.stderr_tail = stderr_tail
        super().__init__(self.describe())

    def describe(self) -> str:
        where = []
        if self.doc is not None:
            where.append(f"doc {self.doc}")
        if self.step is not None:
            where.append(f"step {self.step}")
        context = f" ({', '.join(where)})" if where else ""
        head = (f"system message {self.number}" if self.number is not None else "system")
        text = f"{head}{context}: {self.reason}"
        if self.stderr_tail:
            text += "\n  its stderr ends with:\n" + "\n".join(
                "    " + line for line in self.stderr_tail.splitlines())
        return text

    def with_stderr(self, tail: str) -> "ProtocolFault":
        return ProtocolFault(self.reason, self.number, self.doc, self.step, tail)


class _Bad(ValueError):
    pass


# --------------------------------------------------------------------------------------------
# Writer


def _where(out: dict, message) -> None:
    """`doc` and `step` of a message that has them set (version 1.1)."""
    for key in ("doc", "step"):
        value = getattr(message, key, None)
        if value is not None:
            out[key] = value


def to_json(message) -> dict:
    """The JSON object of a message (either direction)."""
    if isinstance(message, (PrefixMessage, Completion)):   # protocol 1.2
        return message.to_json()
    out: dict = {"type": message.type}
    if isinstance(message, Hello):
        out.update(protocol=message.protocol, minor=message.minor, task=message.task,
                   seed=message.seed)
    elif isinstance(message, DocumentStart):
        out.update(doc=message.doc)
        if message.step is not None:
            out["step"] = message.step
        out.update(time=message.time, mode=message.mode, budget=message.budget)
        if message.source is not None:
            out["source"] = list(message.source)
        if message.hypothesis is not None:
            hyp = list(message.hypothesis)
            out["hypothesis"] = (turns_to_json(hyp) if hyp and not isinstance(hyp[0], str)
                                 else hyp)
        if message.uem is not None:
            out["uem"] = [list(span) for span in message.uem]
        if message.audio is not None:
            out["audio"] = message.audio
    elif isinstance(message, (Answer, Correction)):
        answer = message.answer
        if isinstance(answer, tuple):
            answer = list(answer)
        if isinstance(answer, list) and answer and isinstance(answer[0], (tuple, Turn)):
            answer = turns_to_json(answer)
        _where(out, message)
        out.update(kind=message.kind, target=target_to_json(message.target), answer=answer,
                   cost=message.cost)
        if message.left is not None:
            out["left"] = message.left
    elif isinstance(message, Refused):
        _where(out, message)
        out["reason"] = message.reason
        for key in ("cost", "left"):
            if getattr(message, key) is not None:
                out[key] = getattr(message, key)
    elif isinstance(message, Quote):
        _where(out, message)
        out.update(kind=message.kind, target=target_to_json(message.target),
                   cost=message.cost, left=message.left)
    elif isinstance(message, EndDocument):
        out["doc"] = message.doc
    elif isinstance(message, SystemHello):
        out.update(name=message.name, version=message.version)
        if message.minor is not None:
            out["minor"] = message.minor
    elif isinstance(message, Hypothesis):
        _where(out, message)
        if message.lines is not None:
            out["lines"] = list(message.lines)
        if message.turns is not None:
            out["turns"] = turns_to_json(message.turns)
    elif isinstance(message, (Request, QuoteRequest)):
        _where(out, message)
        out.update(kind=message.kind, target=target_to_json(message.target))
    elif isinstance(message, Stop):
        _where(out, message)
    elif isinstance(message, AdaptedReply):
        _where(out, message)
        if message.lines is not None:
            out["lines"] = {str(k): v for k, v in sorted(message.lines.items())}
        if message.turns is not None:
            out["turns"] = turns_to_json(message.turns)
    return out


def encode(message) -> str:
    """One protocol line (with its newline), compact, UTF-8 safe, no NaN."""
    return json.dumps(to_json(message), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")) + "\n"


# --------------------------------------------------------------------------------------------
# Parser


def _no_constant(name: str):
    raise _Bad(f"{name} is not JSON")


_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19
"""19 digits in a row (every digit written 0): what orjson reads otherwise than json, an
integer past 64 bits becoming a float. Found with a translation and a substring search (a
regular expression took 2 ms on a 3-hour show's turn list)."""


def _decode_fast(raw: bytes | str) -> dict | None:
    """A well-formed message as `_decode` would read it, decoded by orjson (a 3-hour show's
    turn list each step: 2.2 ms with json, 0.4 ms); None for anything else, which `_decode`
    reads and names as before. orjson refuses what `_decode` refuses (invalid UTF-8, NaN and
    Infinity, a number past the doubles' range, lone surrogates, nesting past 1,024) and
    reads every other value as json does, but integers past 64 bits: a message holding 19
    digits in a row goes the slow way."""
    if not isinstance(raw, bytes) or _LONG_NUMBER in raw.translate(_DIGITS_AS_ZERO):
        return None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) and "type" in obj else None


def _decode(raw: bytes | str, reuse: TurnReuse | None = None) -> dict:
    fast = reuse.decode(raw, _decode_fast) if reuse is not None else None
    if fast is None:
        fast = _decode_fast(raw)
    if fast is not None:
        return fast
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Bad(f"not UTF-8 (byte {exc.start + 1})") from None
    text = raw.strip()
    if not text:
        raise _Bad("an empty line is not a message")
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise _Bad(f"not valid JSON ({exc.msg}, column {exc.colno}): {shown!r}") from None
    except RecursionError:
        raise _Bad("not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise _Bad(f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise _Bad(f"expected a JSON object, got {type(obj).__name__}")
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(obj):
        raise _Bad("a string holds a lone surrogate (a \\uD800-\\uDFFF escape without its "
                   "pair), which is no character: send UTF-8 text")
    if "type" not in obj:
        raise _Bad("missing key 'type'")
    return obj


_SURROGATE_ESCAPE = __import__("re").compile(r"\\u[dD][89abcdefABCDEF]")
"""A JSON escape of a UTF-16 surrogate: json.loads pairs two of them into one character, and
leaves a lone one in the string, where it fails every later write (issue 38.6)."""


def _lone_surrogate(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _show(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return show_value(value)   # repr of a 5000-digit int raises ValueError
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(f"{what} must be a number, not {_show(value)}")
    try:
        value = float(value)
    except OverflowError:   # a 400-digit integer
        raise _Bad(f"{what} must be a finite number, not {_show(value)}") from None
    if not math.isfinite(value):
        raise _Bad(f"{what} must be finite")
    return value


_LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""What `str.splitlines` breaks at: a hypothesis line holding one would become two lines in
a file some reader splits that way."""
_LABEL = re.compile(r"[^\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
"""A speaker label as RTTM holds it: one field, no white space, no control character."""


def _one_line(text: str, what: str) -> str:
    found = _LINE_BREAKS.search(text)
    if found is not None:
        raise _Bad(f"{what} contains a line break (U+{ord(found.group()):04X}); a segment "
                   "must be one line")
    return text


def _time(value: object, what: str) -> float:
    t = _number(value, what)
    if t < 0:
        raise _Bad(f"{what} must be >= 0 seconds, not {_show(value)}")
    return t


def _string(value: object, what: str, empty: bool = True) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise _Bad(f"{what} must be a {'' if empty else 'non-empty '}string, not {_show(value)}")
    return value


def parse_target(kind: str, value: object) -> Target:
    if not isinstance(value, dict):
        raise _Bad(f"target must be an object, not {_show(value)}")
    try:
        if kind in MT_KINDS:
            sentence = value["sentence"]
            if isinstance(sentence, bool) or not isinstance(sentence, int) or sentence < 1:
                raise _Bad(f"target sentence must be an integer >= 1, not {_show(sentence)}")
            return SentenceTarget(sentence)
        if kind == "same":
            doc2 = value.get("doc2")
            if doc2 is not None:
                _string(doc2, "target doc2", empty=False)
            return SameTarget(_time(value["t1"], "target t1"), _time(value["t2"], "target t2"),
                              doc2)
        if kind in ("boundary", "name"):
            return PointTarget(_time(value["t"], "target t"))
        if kind == "segment":
            start, end = _time(value["start"], "target start"), _time(value["end"], "target end")
            if end <= start:
                raise _Bad("target end is not after start")
            return SpanTarget(start, end)
    except KeyError as exc:
        raise _Bad(f"target of a {kind} request: missing key {exc.args[0]!r}") from None
    raise _Bad(f"unknown kind {_show(kind)}")


def _turns_fast(value: list) -> TurnList | None:
    """`parse_turns` of a well-formed list checked in bulk (a show has thousands of turns per
    message); None when any item needs the item-by-item check and its message."""
    try:
        if set(map(type, value)) != {list} or set(map(len, value)) != {3}:
            return None
        starts, ends, speakers = zip(*value)
    except (TypeError, ValueError):
        return None
    types = set(map(type, starts)) | set(map(type, ends))
    if not types <= {int, float} or set(map(type, speakers)) != {str} or "" in speakers:
        return None
    if not all(_LABEL.fullmatch(label) for label in set(speakers)):
        return None   # the item-by-item check names the label
    if types == {float}:     # floats as parsed (float(x) is x): checked by C-level passes
        # a sum is finite only if every term is (an overflow just takes the slow path)
        if math.isfinite(sum(starts) + sum(ends)) and min(starts) >= 0 \
                and all(map(operator.ge, ends, starts)):
            return tuple(zip(starts, ends, speakers))
        return None
    import numpy as np   # here only: a system process speaking the protocol starts without it

    try:
        s = np.array(starts, dtype=float)
        e = np.array(ends, dtype=float)
    except OverflowError:   # an integer beyond float range: the slow path names it
        return None
    if not (np.isfinite(s).all() and np.isfinite(e).all() and (s >= 0).all()
            and (e >= s).all()):
        return None
    return tuple(zip(s.tolist(), e.tolist(), speakers))


def parse_turns(value: object, what: str = "turns") -> TurnList:
    if not isinstance(value, list):
        raise _Bad(f"{what} must be a list of [start, end, speaker], not {_show(value)}")
    if value:
        fast = _turns_fast(value)
        if fast is not None:
            return fast
    out = []
    for i, item in enumerate(value, 1):
        if not isinstance(item, list) or len(item) != 3:
            raise _Bad(f"{what} item {i} must be [start, end, speaker], not {_show(item)}")
        start = _time(item[0], f"{what} item {i} start")
        end = _time(item[1], f"{what} item {i} end")
        if end < start:
            raise _Bad(f"{what} item {i} ends before it starts")
        speaker = _string(item[2], f"{what} item {i} speaker", empty=False)
        if not _LABEL.fullmatch(speaker):
            raise _Bad(f"{what} item {i} speaker {_show(speaker)} holds white space or a "
                       "control character (an RTTM label is one field)")
        out.append((start, end, speaker))
    return tuple(out)


def _parse_lines(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad(f"{what} must be a list of strings")
    for i, text in enumerate(value, 1):
        _one_line(text, f"{what} item {i}")
    return tuple(value)


def _parse_changed(value: object) -> dict[int, str]:
    if not isinstance(value, dict):
        raise _Bad(f"lines must be an object {{\"12\": \"text\"}}, not {_show(value)}")
    out = {}
    for key, text in value.items():
        # ASCII digits only ('١' is a digit to str.isdigit and int()), bounded
        if (not key.isascii() or not key.isdigit() or key.startswith("0")
                or len(key) > 12):
            raise _Bad(f"lines key {_show(key)} is not a line number >= 1")
        out[int(key)] = _one_line(_string(text, f"line {key}"), f"line {key}")
    return out


def _echo(obj: dict) -> dict:
    """The `doc` and `step` a system's message echoes (version 1.1; both optional)."""
    out = {}
    if obj.get("doc") is not None:
        out["doc"] = _string(obj["doc"], "doc", empty=False)
    step = obj.get("step")
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < 10**12:
            raise _Bad(f"step must be an integer >= 0, not {_show(step)}")
        out["step"] = step
    return out


def parse_system(raw: bytes | str, number: int, task: str, doc: str | None = None,
                 step: int | None = None, reuse: TurnReuse | None = None) -> SystemMessage:
    """Parse the system's message number `number` (1-based) sent while llgui was at (`doc`,
    `step`); raises `ProtocolFault` naming them and the fault. Checks shape only: whether the
    message fits the turn, the document and the step is the session's business. `reuse`: the
    document's `llgui.sim.turn_reuse.TurnReuse`, to check only what changed in a turn list."""

    def read_turns(value):
        if reuse is None:
            return parse_turns(value)
        return reuse.parse(value, parse_turns, _turns_fast, raw)

    try:
        obj = _decode(raw, reuse)
        kind = obj["type"]
        if kind == "hello":
            minor = obj.get("minor")
            if minor is not None and (isinstance(minor, bool) or not isinstance(minor, int)
                                      or not 0 <= minor < 1000):
                raise _Bad(f"hello minor must be an integer >= 0, not {_show(minor)}")
            return SystemHello(_string(obj.get("name", ""), "name"),
                               str(obj.get("version", "")), minor)
        if kind == "hypothesis":
            _string(obj.get("doc"), "doc", empty=False)
            echo = _echo(obj)
            if task == "mt":
                if "lines" not in obj:
                    raise _Bad("an MT hypothesis needs 'lines'")
                return Hypothesis(lines=_parse_lines(obj["lines"], "lines"), **echo)
            if "turns" not in obj:
                raise _Bad("a diarization hypothesis needs 'turns'")
            return Hypothesis(turns=read_turns(obj["turns"]), **echo)
        if kind in ("request", "quote"):
            what = obj.get("kind")
            if what not in REQUEST_KINDS[task]:
                raise _Bad(f"unknown {kind} kind {_show(what)} for {task} "
                           f"(expected: {', '.join(REQUEST_KINDS[task])})")
            cls = Request if kind == "request" else QuoteRequest
            return cls(what, parse_target(what, obj.get("target")), **_echo(obj))
        if kind == "stop":
            return Stop(**_echo(obj))
        if kind == "completion" and task == "mt":   # protocol 1.2
            return parse_completion(obj, _echo(obj), _string, _parse_changed, _one_line)
        if kind == "adapted":
            echo = _echo(obj)
            if task == "mt":
                if "turns" in obj:
                    raise _Bad("an MT system adapts 'lines', not 'turns'")
                lines = obj.get("lines")
                return AdaptedReply(lines=None if lines is None else _parse_changed(lines),
                                    **echo)
            if "lines" in obj:
                raise _Bad("a diarization system adapts 'turns', not 'lines'")
            turns = obj.get("turns")
            return AdaptedReply(turns=None if turns is None else read_turns(turns), **echo)
        raise _Bad(f"unknown type {_show(kind)}")
    except _Bad as exc:
        raise ProtocolFault(str(exc), number, doc, step) from None


def parse_llgui(raw: bytes | str) -> LlguiMessage:
    """Parse one of llgui's messages (for systems written in Python, the reference ones)."""
    obj = _decode(raw)
    kind = obj["type"]
    if kind == "hello":
        return Hello(obj["task"], int(obj.get("seed", 0)), int(obj.get("protocol", 1)),
                     int(obj.get("minor", 0)))
    if kind == "document":
        hyp = obj.get("hypothesis")
        if hyp is not None and hyp and not isinstance(hyp[0], str):
            hyp = parse_turns(hyp, "hypothesis")
        elif hyp is not None:
            hyp = tuple(hyp)
        uem = obj.get("uem")
        audio = obj.get("audio")
        return DocumentStart(obj["doc"], obj.get("time"), obj["mode"], float(obj["budget"]),
                             tuple(obj["source"]) if obj.get("source") is not None else None,
                             hyp, tuple(tuple(s) for s in uem) if uem is not None else None,
                             audio if isinstance(audio, str) else None,
                             obj.get("step"))
    if kind in ("answer", "correction"):
        cls = Answer if kind == "answer" else Correction
        answer = obj.get("answer")
        if isinstance(answer, list) and answer and isinstance(answer[0], list):
            answer = parse_turns(answer, "answer")
        return cls(obj["kind"], parse_target(obj["kind"], obj["target"]), answer,
                   float(obj.get("cost", 0.0)), obj.get("doc"), obj.get("step"),
                   obj.get("left"))
    if kind == "refused":
        return Refused(str(obj.get("reason", "")), obj.get("doc"), obj.get("step"),
                       obj.get("cost"), obj.get("left"))
    if kind == "quote":
        return Quote(obj["kind"], parse_target(obj["kind"], obj["target"]),
                     float(obj["cost"]), float(obj["left"]), obj.get("doc"), obj.get("step"))
    if kind == "end_document":
        return EndDocument(obj["doc"])
    if kind == "prefix":   # protocol 1.2
        return parse_prefix(obj)
    if kind == "bye":
        return Bye()
    raise _Bad(f"unknown type {_show(kind)}")
