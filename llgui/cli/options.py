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


_BYTES = __import__("re").compile(r"\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*"
                                  r"(B|[kKMGT]i?B|[kKMGT])?\s*", __import__("re").ASCII)


def byte_size(what: str):
    """A memory size as Dask writes them ("2GB", "512MiB", "4e9" is not one), at least
    64 MB and at most 1 PB: returned as written, for Dask to parse."""
    units = {"": 1, "B": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

    def convert(text: str) -> str:
        match = _BYTES.fullmatch(text)
        if match is None:
            raise argparse.ArgumentTypeError(f"{what} {text[:40]!r}: a size such as 2GB or "
                                             f"512MiB")
        number, unit = float(match.group(1)), match.group(2) or ""
        scale = units[unit[:1]] * (1.024 ** (" KMGT".index(unit[:1].upper()))
                                   if "i" in unit else 1)
        if not 64e6 <= number * scale <= 1e15:
            raise argparse.ArgumentTypeError(f"{what} {text[:40]!r}: must be between 64MB "
                                             f"and 1PB")
        return f"{match.group(1)}{unit}"
    convert.__name__ = "size"
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
