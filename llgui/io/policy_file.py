"""The policy file (JSON): read with every problem at its line, written atomically.

Format: DESIGN.md section 7, ``{"mode": "relative"|"absolute", "points": [[x, w], ...],
"normalise": true}``; the content is checked by `llgui.core.across_time.policy.policy_from_node`.
"""
from __future__ import annotations

import bisect
import json
import re
from pathlib import Path

from llgui.utils.atomic import write_atomic
from llgui.core.errors import LoadError, Problems
from llgui.core.across_time.policy import Policy, _Node, policy_from_node
from llgui.io._read import NotRegularFile, read_regular

MAX_POLICY_BYTES = 16 << 20
"""A policy file is a few points; 16 MiB is far beyond any real one."""


def load_policy(path: str | Path) -> Policy:
    """Read a policy file; LoadError with every problem as FILE:LINE: reason."""
    path = Path(path)
    try:
        text = read_regular(path, MAX_POLICY_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise LoadError.single(path, 0, "policy file not found") from None
    except UnicodeDecodeError as error:
        raise LoadError.single(path, 0, f"not UTF-8 text ({error.reason})") from None
    except NotRegularFile as error:
        raise LoadError.single(path, 0, str(error)) from None
    except (OSError, ValueError) as error:
        raise LoadError.single(path, 0, f"cannot read: {getattr(error, 'strerror', None) or error}"
                               ) from None
    if not text.strip():
        raise LoadError.single(path, 0, "policy file is empty")
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise LoadError.single(path, error.lineno,
                               f"not valid JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        raise LoadError.single(path, 0, "not a policy: nested too deeply") from None
    except ValueError:   # an integer beyond Python's int/str conversion limit
        raise LoadError.single(path, 0, "not a policy: a number has too many digits") from None
    problems = Problems(path)
    try:
        root = _located(text)
    except RecursionError:
        raise LoadError.single(path, 0, "not a policy: nested too deeply") from None
    policy = policy_from_node(root, problems)
    problems.items.sort(key=lambda problem: problem.line)  # read top to bottom
    problems.raise_if_any()
    assert policy is not None
    return policy


def save_policy(policy: Policy, path: str | Path) -> None:
    """Write `policy.to_json()` to `path` atomically (a temporary file, then a rename)."""
    write_atomic(path, policy.to_json())


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _located(text: str) -> _Node:
    """Parse JSON text already known to be valid, keeping each value's line number."""
    decoder = json.JSONDecoder()
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    def skip(pos: int) -> int:
        return _WHITESPACE.match(text, pos).end()

    def parse(pos: int) -> tuple[_Node, int]:
        pos = skip(pos)
        line = line_of(pos)
        opener = text[pos]
        if opener not in "{[":
            value, end = decoder.raw_decode(text, pos)
            return _Node(value, line), end
        closer = "}" if opener == "{" else "]"
        items: dict[str, _Node] | list[_Node] = {} if opener == "{" else []
        pos = skip(pos + 1)
        if text[pos] == closer:
            return _Node(items, line), pos + 1
        while True:
            if opener == "{":
                key_pos = skip(pos)
                key, pos = decoder.raw_decode(text, key_pos)
                pos = skip(pos) + 1  # the ':'
                child, pos = parse(pos)
                # Objects keep the key's line: "points": [...] is reported where it is named.
                items[key] = _Node(child.value, line_of(key_pos))  # type: ignore[index]
            else:
                child, pos = parse(pos)
                items.append(child)  # type: ignore[union-attr]
            pos = skip(pos)
            if text[pos] == closer:
                return _Node(items, line), pos + 1
            pos += 1  # the ','

    node, _end = parse(0)
    return node


