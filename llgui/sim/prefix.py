"""Protocol 1.2: the prefix interaction of interactive-predictive MT, and the prefix oracles.

Interactive-predictive MT (Barrachina et al., Computational Linguistics 2009): the expert
validates the longest correct prefix of a sentence, types the next word (or character), and
the system completes the sentence; repeat until the sentence is right, then the expert
accepts it. On the wire (docs/protocol.md, "Interactive-predictive MT"):

    llgui:  {"type": "prefix", "doc": D, "step": n, "target": {"sentence": i},
             "prefix": "Das ist ", "typed": "ein", "unit": "word", "accept": false,
             "cost": C, "left": L}
    system: {"type": "completion", "step": n, "completion": " Haus.", "lines": {...}?}

The sentence becomes prefix + typed + completion (llgui joins them; the system never
rewrites the prefix); `lines` may change other sentences (what the system learned). An
acceptance (`"accept": true`, `typed` "", `prefix` the finished sentence) is answered by an
empty completion. A system opts in by answering hello with `"minor": 2` or more; llgui's
hello says `"minor": 2`, which version-1.0 and 1.1 systems ignore: they are sent no prefix
messages unless a prefix oracle runs, which then stops at their hello (exit 3).

The simulated expert is `llgui.sim.oracles.PrefixOracle` (`--oracle prefix`, `prefix-char`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from llgui.core.mt.ipmt import CHARACTER, PREFIX_UNITS, WORD, PrefixAnswer
from llgui.core.types import SentenceTarget

PREFIX_MINOR = 2
"""The minor protocol version that brings the prefix interaction."""


@dataclass(frozen=True)
class PrefixMessage:
    """llgui -> system: the expert validated `prefix` of sentence `target.sentence` and typed
    `typed` after it (`accept`: the sentence is `prefix`, finished)."""

    target: SentenceTarget
    prefix: str
    typed: str
    unit: str
    accept: bool
    cost: float
    left: float | None = None
    doc: str | None = None
    step: int | None = None
    type = "prefix"

    @property
    def answer(self) -> PrefixAnswer:
        return PrefixAnswer(self.prefix, self.typed, self.unit)

    def to_json(self) -> dict:
        out: dict = {"type": self.type}
        for key in ("doc", "step"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out.update(target={"sentence": self.target.sentence}, prefix=self.prefix,
                   typed=self.typed, unit=self.unit, accept=self.accept, cost=self.cost)
        if self.left is not None:
            out["left"] = self.left
        return out


@dataclass(frozen=True)
class Completion:
    """system -> llgui: the rest of the sentence after prefix + typed, and the other lines
    that changed (1-based), if any."""

    completion: str = ""
    lines: Mapping[int, str] | None = field(default=None, hash=False)
    doc: str | None = None
    step: int | None = None
    type = "completion"

    def to_json(self) -> dict:
        out: dict = {"type": self.type}
        for key in ("doc", "step"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["completion"] = self.completion
        if self.lines is not None:
            out["lines"] = {str(k): v for k, v in sorted(self.lines.items())}
        return out


def prefix_message(move, cost: float, left: float) -> PrefixMessage:
    """The message of a prefix oracle's move (`llgui.sim.oracles.PrefixOracle`)."""
    answer: PrefixAnswer = move.answer
    return PrefixMessage(move.target, answer.prefix, answer.typed, answer.unit, answer.accept,
                         cost, left)


def parse_prefix(obj: dict) -> PrefixMessage:
    """llgui's prefix message (for systems written in Python)."""
    unit = obj.get("unit", WORD)
    if unit not in PREFIX_UNITS:
        raise ValueError(f"prefix unit {unit!r} is not one of {', '.join(PREFIX_UNITS)}")
    return PrefixMessage(SentenceTarget(int(obj["target"]["sentence"])), str(obj["prefix"]),
                         str(obj["typed"]), unit, bool(obj.get("accept", False)),
                         float(obj.get("cost", 0.0)), obj.get("left"), obj.get("doc"),
                         obj.get("step"))


def parse_completion(obj: dict, echo: dict, string, changed, one_line) -> Completion:
    """The system's completion (shape only); `string`, `changed`, `one_line` are the
    protocol parser's checks (their faults name the message)."""
    text = obj.get("completion", "")
    one_line(string(text, "completion"), "completion")
    lines = obj.get("lines")
    return Completion(text, None if lines is None else changed(lines), **echo)


def completed_lines(message: PrefixMessage, reply: Completion) -> dict[int, str]:
    """1-based line -> text after the step: the prefix's sentence completed, and the other
    lines the reply changes."""
    out = dict(reply.lines or {})
    number = message.target.sentence
    out[number] = (message.prefix if message.accept
                   else message.prefix + message.typed + reply.completion)
    return out


def step_limit(document, unit: str) -> int:
    """The most prefix steps a document may take: one per reference unit, plus the
    acceptance, per sentence."""
    refs = document.references[0]
    per = (len if unit == CHARACTER else (lambda text: len(text.split())))
    return sum(per(text) + 1 for text in refs)


def run_effort(bundle, steps, documents: list[dict]) -> dict:
    """run.json's effort of a run's prefix steps: `{"ipmt": {...}}` over the run, and each
    document's entry of `documents` given its own `ipmt` (in place)."""
    from llgui.core.mt.ipmt import ipmt_effort

    references = {d.id: d.references[0] for d in bundle.documents}
    for entry in documents:
        effort = ipmt_effort([s for s in steps if s.doc == entry["doc"]], references)
        if effort is not None:
            entry["ipmt"] = effort.to_json()
    total = ipmt_effort(steps, references)
    return {"ipmt": total.to_json()} if total is not None else {}
