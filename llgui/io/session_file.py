"""The window's session file (JSON): read and checked as a whole, or set aside.

The session is written by the window on closing and read at the next start without
arguments. A file that cannot be trusted as a whole (not JSON, nested too deeply, a value of
the wrong type, a number out of range, a path that is not a regular file, ...) must not crash
the start nor half-restore a session: `read_session_file` returns the reason, the caller moves
the file aside with `set_aside` (`session.json.bad` beside it) and starts clean.

Checks, in order: the path is a regular file of at most MAX_SESSION_BYTES (never blocks on a
FIFO); UTF-8 JSON without NaN/Infinity or integers of more than MAX_INT_DIGITS digits; the
JSON schema SESSION_SCHEMA (jsonschema, draft 2020-12); then what a schema cannot say: every
cost model and the policy build (their own range checks), and every bundle path that exists
is a regular file (a bundle path that no longer exists is skipped, not an error: files move).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from llgui.core.numbers import MAX_INT_DIGITS
from llgui.io._read import NotRegularFile, check_regular, read_regular

SESSION_VERSION = 1
MAX_SESSION_BYTES = 4 << 20
MAX_STEP = 10 ** 9

_STR = {"type": "string", "maxLength": 4096}
_NULLABLE_STR = {"type": ["string", "null"], "maxLength": 4096}
_NUMBER = {"type": "number"}   # ranges: CostModel and Policy check their own
_SCALAR = {"type": ["string", "number", "boolean", "null"]}

SESSION_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "llgui session",
    "type": "object",
    "required": ["version"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": SESSION_VERSION},
        "bundles": {"type": "array", "items": _STR, "maxItems": 1000},
        "selection": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"bundle": _NULLABLE_STR, "doc": _NULLABLE_STR},
        },
        "step": {"type": "integer", "minimum": 0, "maximum": MAX_STEP},
        "metrics": {"type": "object", "additionalProperties": _STR, "maxProperties": 16},
        "cost_models": {
            "type": "object",
            "maxProperties": 1000,
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "window": _NUMBER, "reference_weight": _NUMBER, "post_edit_weight": _NUMBER,
                    "listen_weight": _NUMBER, "use_log_cost": {"type": "boolean"},
                },
            },
        },
        "policy": {
            "type": "object",
            "required": ["mode", "points"],
            "additionalProperties": False,
            "properties": {
                "name": _STR,
                "mode": {"enum": ["relative", "absolute"]},
                "normalise": {"type": "boolean"},
                "points": {
                    "type": "array", "minItems": 1, "maxItems": 10000,
                    "items": {"type": "array", "minItems": 2, "maxItems": 2,
                              "prefixItems": [{"type": ["number", "string"], "maxLength": 64},
                                              _NUMBER]},
                },
            },
        },
        "view": {
            "type": "object",
            "maxProperties": 1000,
            "additionalProperties": {"anyOf": [_SCALAR, {"type": "array", "items": _SCALAR,
                                                          "maxItems": 1000}]},
        },
    },
}
"""What a session file may hold (DESIGN.md section 6); the window writes exactly this."""


class _Refused(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(text)} digits")
    return int(text)


def _parse_constant(name: str) -> float:
    raise _Refused(f"{name} is not a JSON number")


def _where(path) -> str:
    return "/".join(str(p) for p in path) or "the top level"


def check_session(data: object) -> str | None:
    """Why `data` (a parsed session) cannot be restored as a whole, or None."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(SESSION_SCHEMA)
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    except RecursionError:
        return "nested too deeply"
    if error is not None:
        message = error.message if len(error.message) <= 120 else error.message[:117] + "..."
        return f"{_where(error.absolute_path)}: {message}"
    from llgui.core.cost import CostModel
    from llgui.core.across_time.policy import Policy

    assert isinstance(data, dict)
    for bundle, saved in (data.get("cost_models") or {}).items():
        try:
            CostModel.from_dict(saved)
        except (TypeError, ValueError) as exc:
            return f"cost_models/{bundle}: {exc}"
    if "policy" in data:
        try:
            Policy.from_dict(data["policy"])
        except (TypeError, ValueError) as exc:
            return f"policy: {exc}"
    for i, written in enumerate(data.get("bundles") or []):
        try:
            check_regular(written)
        except FileNotFoundError:
            continue
        except NotRegularFile as exc:
            return f"bundles/{i}: {written!r} {exc}"
        except (OSError, ValueError) as exc:
            return f"bundles/{i}: {written!r} cannot be read ({exc})"
    return None


def read_session_file(path: str | Path) -> tuple[dict | None, str | None]:
    """(the session, None), (None, why it cannot be used), or (None, None) if there is none."""
    path = Path(path)
    try:
        raw = read_regular(path, MAX_SESSION_BYTES)
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, str(exc) if isinstance(exc, NotRegularFile) else f"cannot be read ({exc})"
    try:
        data = json.loads(raw.decode("utf-8"), parse_int=_parse_int,
                          parse_constant=_parse_constant)
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON (line {exc.lineno}: {exc.msg})"
    except RecursionError:
        return None, "is not a session: nested too deeply"
    except ValueError as exc:   # _Refused, or Python's own int/str conversion limit
        return None, f"is not a session: {exc}"
    reason = check_session(data)
    if reason is not None:
        return None, f"is not a valid session ({reason})"
    return data, None


def set_aside(path: str | Path) -> Path | None:
    """Move `path` to `path.bad` (replacing an older one); the new path, or None if it could not
    be moved (then it is left as it is: the next save replaces it)."""
    path = Path(path)
    bad = path.with_name(path.name + ".bad")
    try:
        os.replace(path, bad)
    except OSError:
        return None
    return bad
