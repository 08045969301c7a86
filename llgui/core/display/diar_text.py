"""Diarization steps in words, one time format everywhere (issue 23, items 11 and 13).

Times are a clock: m:ss.s, or h:mm:ss.s for every time of a document that reaches an hour
(`format_time`, as the timeline's ticks), never raw seconds; the two times of a `same`
question are named t1 and t2 as the timeline's panels are; a `name` answer (the system's
cluster label) is said in reference terms too: the reference speaker that cluster maps to.
"""
from __future__ import annotations

from typing import Mapping

from llgui.core.display.layout import format_time


def long_document(extent) -> bool:
    """True when a document's times are written h:mm:ss (it reaches an hour)."""
    return bool(extent) and float(extent[1]) >= 3600


def clock(seconds: float, hours: bool | None = None, decimals: int = 1) -> str:
    return format_time(float(seconds), decimals, hours)


def describe_target(step, hours: bool | None = None, names: bool = False) -> str | None:
    """A diarization step's target as clock times (`names`: "t1 ... ~ t2 ..."); None for
    other targets."""
    t = step.target
    if hasattr(t, "t1"):
        where = f" ({t.doc2})" if getattr(t, "doc2", None) else ""
        if names:
            return f"t1 {clock(t.t1, hours)} ~ t2 {clock(t.t2, hours)}{where}"
        return f"{clock(t.t1, hours)} ~ {clock(t.t2, hours)}{where}"
    if hasattr(t, "t"):
        return clock(t.t, hours)
    if hasattr(t, "start") and hasattr(t, "end"):
        return f"{clock(t.start, hours)}–{clock(t.end, hours)}"
    return None


def describe_step(step, hours: bool | None = None,
                  mapping: Mapping[str, str] | None = None,
                  reference_labels=(), seen_labels=()) -> str | None:
    """One line on what the human was asked or gave at a diarization step; `mapping` (the
    optimal mapping of the hypothesis the human saw, h_{n-1}), its `seen_labels` and the
    `reference_labels` say who a `name` answer is in reference terms. None for steps of other
    tasks."""
    kind, answer = step.kind, step.answer
    target = describe_target(step, hours, names=True)
    if target is None or kind not in ("same", "boundary", "name", "segment"):
        return None
    if kind == "same":
        return f"step {step.step}: same speaker at {target}? {'yes' if answer else 'no'}"
    if kind == "boundary":
        span = (f"{clock(answer[0], hours, 2)}–{clock(answer[1], hours, 2)}"
                if answer else "?")
        if hasattr(step.target, "t"):   # one precision in the line: the point as its bounds
            target = clock(step.target.t, hours, 2)   # ("10:03.4 is 9:58.13–10:05.20" mixed)
        return f"step {step.step}: the turn around {target} is {span}"
    if kind == "name":
        return f"step {step.step}: the speaker at {target} is {name_in_reference_terms(str(answer), mapping, reference_labels, seen_labels)}"
    return f"step {step.step}: segment {target} annotated"


def name_in_reference_terms(answer: str, mapping: Mapping[str, str] | None,
                            reference_labels=(), seen_labels=()) -> str:
    """A `name` answer (a label of the system's) with who it is: the reference speaker its
    cluster is mapped to; a reference speaker no cluster of h_{n-1} stands for (the human
    named the person); a cluster mapped to nobody; or a label h_{n-1} does not have."""
    if mapping is None or answer == "non-speech":
        return answer
    person = mapping.get(answer)
    if person is not None:
        return f"{answer} (reference speaker {person})"
    if answer in set(reference_labels):
        return f"{answer} (reference speaker {answer}, whom no cluster of h\u2099\u208b\u2081 stands for)"
    if answer in set(seen_labels):
        return f"{answer} (a cluster mapped to no reference speaker)"
    return f"{answer} (a label h\u2099\u208b\u2081 does not have)"


def turn_tooltip(turns, t: float, lane: str, mapping: Mapping[str, str] | None = None,
                 hours: bool | None = None) -> str:
    """The turns of a lane under time `t`: label, start, end, and (hypothesis lanes) the
    reference speaker its optimal mapping gives the label, or that it has none. "" when no
    turn is there."""
    lines = []
    for turn in turns:
        if turn.start <= t <= turn.end:
            line = (f"{turn.speaker}: {clock(turn.start, hours, 2)} – {clock(turn.end, hours, 2)}"
                    f" ({turn.end - turn.start:.2f} s)")
            if mapping is not None:
                person = mapping.get(turn.speaker)
                line += (f" · mapped to {person}" if person is not None
                         else " · unmapped (no reference speaker)")
            lines.append(line)
            if len(lines) >= 6:
                break
    return f"{lane}\n" + "\n".join(lines) if lines else ""
