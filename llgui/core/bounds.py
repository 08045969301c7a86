"""The bounds of every numeric option, one check for the command line and the Python API.

`OPTIONS` names each bounded option once (`--samples` on the command line is `samples=` in
`llgui.compare`); `Bound.parse(text)` reads the command line's text (ASCII digits only,
finite, in range: argparse's `int` reads '١٢' and '1_000'), `Bound.check(value)` a Python
value (an int for a count: not a bool, not 2.0, not a str; a real number for the others;
numpy scalars are numbers). Both give the same reason, e.g. "must be an integer between 1
and 1000000"; the CLI shows it as argparse's exit 2, the API raises `UsageError` naming the
argument (issue 38.4: `llgui.compare(..., samples=10**12)` ran for minutes and
`score_campaign(workers=10**12)` ran out of memory, where the command line refuses both).
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass

from llgui.core.errors import UsageError
from llgui.core.numbers import parse_number

MAX_WORKERS_PER_CORE = 4
MAX_SAMPLES = 1_000_000
"""Resamples of `compare --samples` (10**4 is the usual; 10**6 takes minutes already)."""
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest --timeout / --cell-timeout: a week (a finite bound: nan and inf refused)."""
MIN_SECONDS = 0.001
"""The shortest --cell-timeout / --timeout / --connect-timeout: a millisecond (below it a
clock's resolution, not a time limit: `--cell-timeout 0.000001` gave up no cell)."""
MAX_SEED = 2 ** 32 - 1
MAX_THREADS = 64
MAX_BUDGET = 1e15


def max_workers() -> int:
    """The most local worker processes: 4 per core, at least 8."""
    return max(8, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1))


@dataclass(frozen=True)
class Bound:
    """An option's kind and range: `integer` or a real number, `minimum`/`maximum`
    (inclusive) and `above` (exclusive); a callable `maximum` is computed when checked."""

    integer: bool
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None

    @property
    def top(self) -> float | None:
        return self.maximum() if callable(self.maximum) else self.maximum

    def _show(self, x: float) -> str:
        return str(int(x)) if self.integer else f"{x:g}"

    def range_text(self) -> str:
        kind = "an integer" if self.integer else "a number"
        top, show = self.top, self._show
        if self.above is not None:
            return f"{kind} > {show(self.above)}" + (f" and <= {show(top)}" if top is not None
                                                     else "")
        if self.minimum is None and top is None:
            return "an integer" if self.integer else "a finite number"
        if top is None:
            return f"{kind} >= {show(self.minimum)}"
        return f"{kind} between {show(self.minimum)} and {show(top)}"

    def reason(self, value: float) -> str | None:
        """Why `value` (already a finite number of the right kind) is out of range, or None."""
        top = self.top
        if ((self.minimum is not None and value < self.minimum)
                or (top is not None and value > top)
                or (self.above is not None and value <= self.above)):
            return f"must be {self.range_text()}"
        return None

    def parse(self, text: str) -> float | int:
        """The command line's text as a value; ValueError with the reason."""
        text = text.strip()
        value = parse_number(text)   # ValueError: not a finite number (ASCII digits only)
        if self.integer:
            if not text or not all(c in "+-0123456789" for c in text):
                raise ValueError("is not an integer")
            value = int(text)
        reason = self.reason(value)
        if reason is not None:
            raise ValueError(reason)
        return value

    def check(self, value: object, name: str) -> float | int:
        """A Python value, checked; UsageError "NAME VALUE: reason"."""
        shown = repr(value) if not isinstance(value, str) else repr(value[:40])
        if isinstance(value, str):
            try:
                return self.parse(value)
            except ValueError as exc:
                raise UsageError(f"{name} {shown}: {exc}") from None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise UsageError(f"{name} {shown[:60]}: must be {self.range_text()}, not "
                             f"{type(value).__name__}")
        if not isinstance(value, numbers.Integral):   # in the command line's order
            if not math.isfinite(float(value)):
                raise UsageError(f"{name} {shown}: is not a finite number")
            if self.integer:
                raise UsageError(f"{name} {shown}: is not an integer")
            value = float(value)
        else:
            value = int(value) if self.integer else float(value)
        reason = self.reason(value)
        if reason is not None:
            raise UsageError(f"{name} {shown}: {reason}")
        return value


OPTIONS: dict[str, Bound] = {
    # compare
    "samples": Bound(True, 1, MAX_SAMPLES),
    "seed": Bound(True, 0, MAX_SEED),
    # campaign
    "workers": Bound(True, 0, max_workers),
    "threads": Bound(True, 1, MAX_THREADS),
    "cell_timeout": Bound(False, MIN_SECONDS, MAX_SECONDS),
    "connect_timeout": Bound(False, MIN_SECONDS, 3600.0),
    # simulate
    "budget": Bound(False, 0, MAX_BUDGET),
    "interactive_ratio": Bound(False, 0, 1),
    "timeout": Bound(False, MIN_SECONDS, MAX_SECONDS),
    # det
    "threshold": Bound(False),
}
"""Every bounded numeric option, by its Python name (the command line's with '-' for '_')."""


def check(name: str, value: object, shown: str | None = None):
    """`value` of the option `name` checked (None passes: not given); UsageError naming
    `shown` (default: `name`)."""
    if value is None:
        return None
    return OPTIONS[name].check(value, shown or name)


def check_text(name: str, value: object, shown: str | None = None, empty: bool = False
               ) -> str | None:
    """A text option (a scheduler address, a document id): a str, not empty unless `empty`;
    None passes."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"{shown or name} {str(value)[:40]!r}: must be a string, not "
                         f"{type(value).__name__}")
    if not empty and not value.strip():
        raise UsageError(f"{shown or name} must not be empty")
    return value


# -- the Python API's other arguments: types said as a UsageError, never an internal error --


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def check_path(value: object, name: str):
    """A file name: a str or os.PathLike (not empty, no NUL); returned as given."""
    if isinstance(value, os.PathLike):
        value_text = os.fspath(value)
    elif isinstance(value, str):
        value_text = value
    else:
        raise UsageError(f"{name} must be a file name (str or pathlib.Path), not "
                         f"{_kind(value)}")
    if isinstance(value_text, bytes) or not str(value_text).strip() or "\x00" in value_text:
        raise UsageError(f"{name} {str(value_text)[:40]!r}: not a file name")
    return value


def is_bundle(value: object) -> bool:
    """A loaded bundle (`llgui.load`'s result), by its shape."""
    return hasattr(value, "task") and hasattr(value, "documents")


def check_bundle(value: object, name: str = "bundle"):
    """A bundle or the path of a bundle file."""
    if is_bundle(value):
        return value
    if isinstance(value, (str, os.PathLike)):
        return check_path(value, name)
    raise UsageError(f"{name} must be a bundle (llgui.load) or the path of a bundle file, "
                     f"not {_kind(value)}")


def check_names(value: object, name: str) -> tuple[str, ...]:
    """One name or a sequence of names (metrics, calibrated systems)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    try:
        items = tuple(value)   # type: ignore[arg-type]
    except TypeError:
        raise UsageError(f"{name} must be a name or a sequence of names, not "
                         f"{_kind(value)}") from None
    bad = next((v for v in items if not isinstance(v, str)), None)
    if bad is not None or any(v is None for v in items):
        raise UsageError(f"{name}: every name must be a string, not {_kind(bad)}")
    return items


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{name} {str(value)[:40]!r}: {' or '.join(choices)}")
    return value


def check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name} must be True or False, not {_kind(value)}")
    return value


def check_pairs(value: object, name: str = "pairs") -> list[tuple]:
    """(targets, non-targets) file pairs."""
    try:
        pairs = list(value)   # type: ignore[arg-type]
    except TypeError:
        raise UsageError(f"{name} must be a sequence of (targets, nontargets) file pairs, "
                         f"not {_kind(value)}") from None
    out = []
    for k, pair in enumerate(pairs):   # (indexed as Python indexes the sequence given)
        if isinstance(pair, (str, bytes, os.PathLike)) or not hasattr(pair, "__len__") \
                or len(pair) != 2:
            raise UsageError(f"{name}[{k}] must be a pair (targets file, nontargets file), "
                             f"not {str(pair)[:60]}")
        out.append((check_path(pair[0], f"{name}[{k}] targets"),
                    check_path(pair[1], f"{name}[{k}] nontargets")))
    return out


_SIZE_UNITS = {"": 1, "B": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def check_byte_size(value: object, name: str) -> str:
    """A memory size as Dask reads them ("2GB", "512MiB", in any case), at least 64 MB and at
    most 1 PB; returned as Dask writes it ("2gb" as "2GB"). ValueError (a UsageError) with
    the reason."""
    import re

    text = value if isinstance(value, str) else None
    match = re.fullmatch(r"\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*(B|[KMGTP]i?B|[KMGTP])?\s*",
                         text, re.ASCII | re.IGNORECASE) if text is not None else None
    if match is None:
        raise UsageError(f"{name} {str(value)[:40]!r}: a size such as 2GB or 512MiB")
    number, written = float(match.group(1)), (match.group(2) or "").lower()
    # in any case, as Dask reads it ("2gb" too: outsider helper-53), written as Dask writes it
    unit = "B" if written == "b" else (written[:1].upper() + written[1:].replace("ib", "iB")
                                       .replace("b", "B"))
    scale = _SIZE_UNITS[unit[:1]] * (1.024 ** (" KMGTP".index(unit[:1]))
                                     if "i" in unit else 1)
    if not 64e6 <= number * scale <= 1e15:
        raise UsageError(f"{name} {str(value)[:40]!r}: must be between 64MB and 1PB")
    return f"{match.group(1)}{unit}"


def check_sequence(value: object, name: str) -> list:
    """A list or tuple (or any iterable that is not a string or a mapping)."""
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise UsageError(f"{name} must be a sequence, not {_kind(value)}")
    try:
        return list(value)   # type: ignore[call-overload]
    except TypeError:
        raise UsageError(f"{name} must be a sequence, not {_kind(value)}") from None
