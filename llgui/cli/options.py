"""Numeric options and environment settings: one parser (`llgui.core.numbers.parse_number`)
and one bound per count, for every command.

`integer(name, minimum, maximum)` and `number(name, ...)` are argparse `type=` functions:
ASCII digits only (argparse's `int` reads '١٢' and '1_000'), finite, in range; a bad value
is argparse's exit 2 with the option and the reason. `check_environment()` reads the
environment variables the README names once, before a command runs, and says which one is
wrong (exit 2) instead of failing deep inside a cache or a progress bar.
"""
from __future__ import annotations

import argparse
import os

from llgui.core.numbers import parse_number
from llgui.utils.regular import output_folder  # noqa: F401 - the CLI's path guard

MAX_WORKERS_PER_CORE = 4
MAX_SAMPLES = 1_000_000
"""Resamples of `compare --samples` (10**4 is the usual; 10**6 takes minutes already)."""
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest --timeout: a week (a finite bound, so nan and inf are refused too)."""
MAX_SEED = 2 ** 32 - 1


def max_workers() -> int:
    return max(8, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1))


def _parse(text: str, integer: bool) -> float | int:
    text = text.strip()
    value = parse_number(text)   # ValueError with the reason
    if integer:
        if not all(c in "+-0123456789" for c in text):
            raise ValueError("is not an integer")
        return int(text)
    return value


def _range(minimum, maximum, above=None) -> str:
    if above is not None:
        return f"> {above:g}" + (f" and <= {maximum:g}" if maximum is not None else "")
    if maximum is None:
        return f">= {minimum:g}"
    return f"between {minimum:g} and {maximum:g}"


def _option_type(integer: bool, minimum=None, maximum=None, above=None):
    def convert(text: str):
        try:
            value = _parse(text, integer)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} {exc}") from None
        if ((minimum is not None and value < minimum) or (maximum is not None and value > maximum)
                or (above is not None and value <= above)):
            raise argparse.ArgumentTypeError(
                f"{text[:40]!r}: must be {'an integer' if integer else 'a number'} "
                f"{_range(minimum, maximum, above)}")
        return value
    convert.__name__ = "integer" if integer else "number"
    return convert


def integer(minimum: int | None = None, maximum: int | None = None):
    return _option_type(True, minimum, maximum)


def number(minimum: float | None = None, maximum: float | None = None,
           above: float | None = None):
    return _option_type(False, minimum, maximum, above)


def non_empty(what: str):
    def convert(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what} must not be empty")
        return text
    convert.__name__ = "text"
    return convert


# -- environment ---------------------------------------------------------------------------


def check_environment() -> None:
    """Raise ValueError naming the first environment variable the README names that cannot
    be used (a number that is not finite or out of range, a cache folder that is a file)."""
    from llgui.core.numbers import ENV_NUMBERS, env_problem
    from llgui.utils.cachedir import cache_root

    for name in ENV_NUMBERS:
        value = os.environ.get(name)
        if value:
            problem = env_problem(name, value)
            if problem is not None:
                raise ValueError(problem)
    cache_root()


# -- output folders: llgui.utils.regular.output_folder
