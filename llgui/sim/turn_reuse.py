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

Most steps change nothing: the message differs from the one before in its step number only.
`decode` then reads the message without its list (1 ms of orjson on a 3-hour show): when
the raw message ends with the previous list's bytes and the object's close, the head is
decoded with a sentinel list in their place (`["<nonce>"]`, a random word the system never
sees). The sentinel decoding as the head's "turns" proves the bytes stand where the value
of the object's last "turns" key is read (inside a string, a number, a nested value or after
any other key the sentinel fails to parse or lands elsewhere), so the whole message reads as
the head with the previous list there. The list's bytes are orjson's writing of the previous
list (`orjson.dumps`, which reads back to it exactly), found at the end of that message; a
system writing its lists otherwise always takes the whole path.
"""
from __future__ import annotations

import operator
import secrets
from typing import Callable

import orjson

from llgui.utils.common_ends import common_ends

_EQ = operator.eq
_NONCE = "llgui" + secrets.token_hex(16)   # a letter first: no JSON token goes on so
_SENTINEL = b'["' + _NONCE.encode() + b'"]'
_SENTINEL_VALUE = [_NONCE]
_JSON_SPACE = b" \t\n\r"


def _holds_literal(raw: bytes | str | None) -> bool:
    """Whether the raw message may hold a JSON boolean (True when it is not given)."""
    if raw is None:
        return True
    if isinstance(raw, bytes):
        return b"true" in raw or b"false" in raw
    return "true" in raw or "false" in raw


class TurnReuse:
    """The last turn list of a document, checked (see the module text). One per document."""

    __slots__ = ("_value", "_parsed", "_tail", "_close", "_otherwise")

    def __init__(self) -> None:
        self._value: list | None = None      # the JSON list last checked
        self._parsed: tuple | None = None    # ... and what parse_turns made of it
        self._tail: bytes | None = None      # its bytes and the object's close, as sent
        self._close = b""                    # ... the close: "}" and white space
        self._otherwise = False              # the system writes its lists otherwise

    def decode(self, raw: bytes | str, decode: Callable) -> dict | None:
        """The message `raw` as `decode` (the protocol's orjson reading) reads it, with the
        previous list as its "turns" when it ends with that list's bytes (see the module
        text); None when it does not, or its head does not decode with the sentinel there."""
        tail = self._tail
        if tail is None or not isinstance(raw, bytes) or not raw.endswith(tail):
            return None
        obj = decode(raw[:len(raw) - len(tail)] + _SENTINEL + self._close)
        if obj is None or obj.get("turns") != _SENTINEL_VALUE:
            return None
        obj["turns"] = self._value
        return obj

    def _remember(self, value: list, raw: bytes | str | None) -> None:
        """Keep `value`'s bytes when `raw` ends with them (orjson's writing) and a close. A
        system that wrote a list otherwise once (white space, escapes, another float
        format) is not asked again: writing a show's list costs ~0.3 ms."""
        self._tail = None
        if not isinstance(raw, bytes) or self._otherwise:
            return
        try:
            encoded = orjson.dumps(value)
        except (TypeError, orjson.JSONEncodeError):
            return
        body = raw.rstrip(_JSON_SPACE)
        if body.endswith(b"}") and body[:-1].endswith(encoded):
            self._close = raw[len(body) - 1:]
            self._tail = encoded + self._close
        else:
            self._otherwise = True

    def parse(self, value: object, parse_turns: Callable, fast: Callable,
              raw: bytes | str | None = None):
        """`parse_turns(value)`, reusing the previous list's items where equal. `fast`:
        the bulk check (None when an item needs the item-by-item one)."""
        before, parsed_before = self._value, self._parsed
        if value is before and before is not None:   # `decode` put it there: unchanged
            return parsed_before
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
            self._remember(value, raw)
        return parsed
