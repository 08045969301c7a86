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
from llgui.utils.regular import output_folder  # noqa: F401 - the CLI's path guard

from llgui.core.bounds import (  # noqa: F401 - one bound per option, for the CLI and the API
    MAX_SAMPLES, MAX_SECONDS, MAX_SEED, MAX_WORKERS_PER_CORE, OPTIONS, Bound, max_workers)


def _option_type(bound: Bound):
    def convert(text: str):
        try:
            return bound.parse(text)
        except ValueError as exc:
            reason = str(exc)
            joint = ": " if reason.startswith("must") else " "
            raise argparse.ArgumentTypeError(f"{text[:40]!r}{joint}{reason}") from None
    convert.__name__ = "integer" if bound.integer else "number"
    return convert


def bounded(name: str):
    """The argparse type of the option `name` of `llgui.core.bounds.OPTIONS` (`--samples`:
    "samples"): the same check as the Python API's argument of that name."""
    return _option_type(OPTIONS[name])


def integer(minimum: int | None = None, maximum: int | None = None):
    return _option_type(Bound(True, minimum, maximum))


def number(minimum: float | None = None, maximum: float | None = None,
           above: float | None = None):
    return _option_type(Bound(False, minimum, maximum, above))


def non_empty(what: str):
    def convert(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what} must not be empty")
        return text
    convert.__name__ = "text"
    return convert


def byte_size(what: str):
    """A memory size as Dask writes them ("2GB", "512MiB", "4e9" is not one), at least
    64 MB and at most 1 PB (`llgui.core.bounds.check_byte_size`, the API's check too)."""
    from llgui.core.bounds import check_byte_size

    def convert(text: str) -> str:
        try:
            return check_byte_size(text, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = "size"
    return convert


# -- environment ---------------------------------------------------------------------------


def check_environment() -> str | None:
    """Raise ValueError naming the first environment variable the README names that cannot
    be used (a number that is not finite or out of range). A cache folder that cannot be one
    (a file, /dev/null) is not an error, as a read-only cache is not (issue 38.6): the caches
    skip it, and its reason is returned for a note."""
    from llgui.core.numbers import ENV_NUMBERS, env_problem
    from llgui.utils.cachedir import cache_root

    for name in ENV_NUMBERS:
        value = os.environ.get(name)
        if value:
            problem = env_problem(name, value)
            if problem is not None:
                raise ValueError(problem)
    try:
        cache_root()
    except ValueError as exc:   # the caches skip it (stats_cache, campaign.run)
        return str(exc)
    return None


# -- output folders: llgui.utils.regular.output_folder
