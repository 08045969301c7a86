"""The one numeric parser of every loader: numbers as our formats write them, finite, in range.

Two entry points, both raising `ValueError` whose message is the reason for the user:

- `parse_number(text)`: a number written in a text format (RTTM, UEM, score files, CSV, a
  time in a bundle). Python's `float()` is too lenient for data: it reads `1_2.00` as 12,
  fullwidth or Arabic-Indic digits as ASCII ones, and `1e999` as infinity. Only ASCII
  `[+-]digits[.digits][e[+-]digits]` is a number here; infinities, NaN and overflow are refused.
- `check_number(value, name, ...)`: a value a structured parser (TOML, JSON) already made,
  which may be a bool, a string, or an int beyond float range (TOML and JSON integers have no
  bound: `float(10**400)` raises OverflowError). Refused with a reason naming `name` and the
  allowed range.

The reasons end in the same words everywhere, so users see one vocabulary: "is not a number",
"is not a finite number", "must be ... between A and B".
"""
from __future__ import annotations

import math
import re

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)

MAX_INT_DIGITS = 300
"""Integers with more digits than this are refused before Python converts them (a 5000-digit
integer costs quadratic time and hits Python's int/str conversion limit)."""


def parse_number(text: str) -> float:
    """A finite float from `text` (already stripped of surrounding whitespace).

    Raises ValueError("is not a number" | "is not a finite number" | "... (why)"); callers
    prefix the field name and the value: `onset '1_2' is not a number (...)`.
    """
    if _NUMBER.fullmatch(text) is None:
        if _NOT_FINITE.fullmatch(text):
            raise ValueError("is not a finite number")
        if "_" in text and _NUMBER.fullmatch(text.replace("_", "")):
            raise ValueError("is not a number (no '_' inside numbers)")
        if any(ch.isdigit() and not ch.isascii() for ch in text):
            raise ValueError("is not a number (digits must be ASCII 0-9)")
        raise ValueError("is not a number")
    if len(text) > MAX_INT_DIGITS + 30:
        raise ValueError("is not a finite number (too many digits)")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("is not a finite number")
    return value


def _range_text(minimum, maximum, above, integer: bool, below=None) -> str:
    noun = "an integer" if integer else "a number"
    if above is not None and below is not None:
        return f"{noun} > {above:g} and < {below:g}"
    if minimum is not None and maximum is not None:
        return f"{noun} between {minimum:g} and {maximum:g}"
    if above is not None:
        return f"{noun} > {above:g}" + (f" and <= {maximum:g}" if maximum is not None else "")
    if minimum is not None:
        return f"{noun} >= {minimum:g}"
    if maximum is not None:
        return f"{noun} <= {maximum:g}"
    return noun if integer else "a finite number"


def show_value(value: object, limit: int = 40) -> str:
    """A parsed value for a message, shortened (a 400-digit integer must not flood a line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) >= 10 ** MAX_INT_DIGITS:
            return f"an integer of more than {MAX_INT_DIGITS} digits"
        text = str(value)
    elif isinstance(value, float):
        text = repr(value)
    elif isinstance(value, str):
        return repr(value) if len(value) <= limit else repr(value[: limit - 3] + "...")
    elif isinstance(value, (list, tuple)):
        return "an array"
    elif isinstance(value, dict):
        return "a table"
    else:
        return type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_number(value: object, name: str, *, minimum: float | None = None,
                 maximum: float | None = None, above: float | None = None,
                 integer: bool = False, below: float | None = None) -> float | int:
    """`value` as a finite number in range: an int when `integer`, else a float.

    `minimum`/`maximum` are inclusive bounds, `above`/`below` exclusive ones. Raises
    ValueError("NAME must be <range>, not <value>") for a bool, a non-number, a float where an
    integer is wanted, NaN, infinity, an integer beyond float range, or a value out of range.
    """
    wanted = _range_text(minimum, maximum, above, integer, below)
    bad = ValueError(f"{name} must be {wanted}, not {show_value(value)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    if integer and not isinstance(value, int):
        raise bad
    try:
        as_float = float(value)
    except OverflowError:
        raise bad from None
    if not math.isfinite(as_float):
        raise bad
    if minimum is not None and as_float < minimum:
        raise bad
    if maximum is not None and as_float > maximum:
        raise bad
    if above is not None and as_float <= above:
        raise bad
    if below is not None and as_float >= below:
        raise bad
    return int(value) if integer else as_float


ENV_NUMBERS = {
    # name: (default, minimum, maximum)
    "LLGUI_CACHE_MAX_MB": (512.0, 0.0, 1e9),
    "LLGUI_PROGRESS_EVERY": (5.0, 0.0, 86400.0),
}
"""The numeric environment variables the README names, with their defaults and ranges."""


def env_problem(name: str, value: str) -> str | None:
    """Why `value` of the numeric environment variable `name` is unusable, or None."""
    _, low, high = ENV_NUMBERS[name]
    try:
        number = parse_number(value.strip())
    except ValueError as exc:
        return f"{name}={show_value(value)} {exc}"
    if not low <= number <= high:
        return f"{name}={show_value(value)} must be a number between {low:g} and {high:g}"
    return None


def env_number(name: str, environ=None) -> float:
    """The numeric environment variable `name`: its default when unset or unusable (the
    CLI refuses an unusable one before running, `llgui.cli.options.check_environment`)."""
    import os

    default = ENV_NUMBERS[name][0]
    value = (os.environ if environ is None else environ).get(name)
    if not value or env_problem(name, value) is not None:
        return default
    return parse_number(value.strip())
