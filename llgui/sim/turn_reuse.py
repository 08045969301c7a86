"""A diarization system's turn lists read against the one before (per document).

A system sends its whole hypothesis with every `adapted` message: on a 3-hour show 3,000
turns, of which a step changes a handful (often none). `TurnReuse` keeps the last list it
checked, as parsed JSON and as `protocol.parse_turns` made it, and for the next list finds the
common head and tail with one C-level comparison each: only the items in between are checked
and made anew; the others are the previous list's tuples, the same objects (so the session's
turn cache, the scorer and the log writer see unchanged turns as unchanged by identity). A
list equal to the previous one is returned as the previous result itself.

Equal items parse equally: the check of `parse_turns` is per item, and JSON gives an item
equal to a checked one only with the same numbers (an integer equal to a float is the same
number to it). The one JSON value equal to a number that the check refuses is a boolean
(`true == 1`): a message holding a `true` or `false` literal (or a label spelled so) is
parsed whole. Anything the middle's bulk check refuses is parsed whole too, so a malformed
item is named by its place in the whole list, as before.
"""
from __future__ import annotations

import operator
from typing import Callable

from llgui.utils.common_ends import common_ends

_EQ = operator.eq


def _holds_literal(raw: bytes | str | None) -> bool:
    """Whether the raw message may hold a JSON boolean (True when it is not given)."""
    if raw is None:
        return True
    if isinstance(raw, bytes):
        return b"true" in raw or b"false" in raw
    return "true" in raw or "false" in raw


class TurnReuse:
    """The last turn list of a document, checked (see the module text). One per document."""

    __slots__ = ("_value", "_parsed")

    def __init__(self) -> None:
        self._value: list | None = None      # the JSON list last checked
        self._parsed: tuple | None = None    # ... and what parse_turns made of it

    def parse(self, value: object, parse_turns: Callable, fast: Callable,
              raw: bytes | str | None = None):
        """`parse_turns(value)`, reusing the previous list's items where equal. `fast`:
        the bulk check (None when an item needs the item-by-item one)."""
        before, parsed_before = self._value, self._parsed
        if (before is None or not isinstance(value, list) or not value
                or _holds_literal(raw)):
            parsed = parse_turns(value)
        elif value == before:
            parsed = parsed_before
        else:
            n, m = len(value), len(before)
            p, s = common_ends(value, before, _EQ)
            middle = value[p:n - s]
            made = fast(middle) if middle else ()
            if made is None:
                parsed = parse_turns(value)    # its message names the item in the whole list
            else:
                parsed = parsed_before[:p] + made + parsed_before[m - s:]
        if isinstance(value, list):
            self._value, self._parsed = value, parsed
        return parsed
