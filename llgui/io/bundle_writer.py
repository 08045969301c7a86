"""Writing a bundle file (TOML), the layout `llgui.io.bundle.load_bundle` reads.

    # COMMENT
    [bundle]
    task = "mt"
    name = "..."
    metrics = ["bleu", "ter"]

    [settings]            (only when there are settings)
    ...
    [cost]
    ...
    [[documents]]         (one table per document, its keys in the order given)
    id = "..."
    ...
    [interactions]        (only with a log)
    log = "logs/system.jsonl"

Values are written as TOML literals: strings as basic strings (ASCII, escaped), numbers as
Python's shortest text (a float reads back to the same bits), booleans, lists of them. Paths
are written as given: relative ones are resolved against the bundle's folder by the loader.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Mapping, Sequence

from llgui.utils.atomic import write_atomic


_NOT_ASCII = re.compile("[^\x00-\x7e]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        raise ValueError(f"cannot write a lone surrogate (U+{code:04X}) to TOML")
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def toml_value(value) -> str:
    """A TOML literal of a str, int, float, bool or list of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r} to TOML")
        return repr(float(value))      # a numpy float's repr is not TOML
    if isinstance(value, str):
        # JSON's escapes, all of them TOML's too, and every character beyond ASCII as
        # \\uXXXX (as json.dumps(ensure_ascii=True) writes it) or, past U+FFFF, as \\UXXXXXXXX:
        # JSON's surrogate pairs are not TOML
        return _NOT_ASCII.sub(_escape, json.dumps(value, ensure_ascii=False))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def _pairs(table: Mapping[str, object]) -> list[str]:
    return [f"{k} = {toml_value(v)}" for k, v in table.items()]


def bundle_toml(*, task: str, name: str, metrics: Sequence[str],
                settings: Mapping[str, object], cost: Mapping[str, object],
                documents: Sequence[Mapping[str, object]], log: str | None = None,
                comment: str | None = None) -> str:
    """The text of a bundle file: `documents` are the `[[documents]]` tables (keys in the
    order given), `log` the interaction log's path, `comment` a first line (after "# ")."""
    lines = [] if comment is None else [f"# {comment}"]
    lines += ["[bundle]", f"task = {toml_value(task)}", f"name = {toml_value(name)}",
              f"metrics = {toml_value(list(metrics))}", ""]
    if settings:
        lines += ["[settings]", *_pairs(settings), ""]
    lines += ["[cost]", *_pairs(cost), ""]
    for table in documents:
        lines += ["[[documents]]", *_pairs(table), ""]
    if log is not None:
        lines += ["[interactions]", f"log = {toml_value(log)}", ""]
    return "\n".join(lines)


def write_bundle(path: str | Path, **parts) -> None:
    """Write `bundle_toml(**parts)` to `path` (atomically)."""
    write_atomic(Path(path), bundle_toml(**parts))
