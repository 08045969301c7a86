"""Names used as file or folder names, and names shown on a terminal or in a CSV cell.

`safe_name(name)` is THE mapping from a user's or a system's name (a document id, a system
or oracle name, a campaign system) to one path component:

- it never leaves the folder it is joined to: no '/', '\\', NUL, no leading '.', so `..`,
  `.`, `a/../../b` are plain names;
- it is injective: a name that is already safe (ASCII letters, digits, '-', '_', '.', not
  starting with '.', at most `MAX_NAME` characters) is kept as it is; any other name is
  cleaned AND given `~` and 16 hex digits of its SHA-256. A kept name never holds '~', so a
  kept name and a cleaned one never meet, and two cleaned names meet only if SHA-256 does
  (`x/y` and `x_y` are two files, not one);
- it is bounded (a 300-character name fits the 255-byte limit of file systems).

`shown(text)` neutralises a name for a terminal (control characters escaped, so an ANSI
escape cannot recolour or rewrite the screen); `csv_cell(text)` also quotes a cell that a
spreadsheet would run as a formula (a leading = + - @, tab or CR gets a leading apostrophe,
as OWASP's CSV-injection guidance says).
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

MAX_NAME = 100
"""The longest name kept as it is (characters; the hashed form is at most this + 17)."""

_SAFE = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*", re.ASCII)


def safe_name(name: str, fallback: str = "item") -> str:
    """`name` as one path component (see the module docstring)."""
    if _SAFE.fullmatch(name) and len(name) <= MAX_NAME:
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_.\-]+", "_", name, flags=re.ASCII).lstrip(".")
    cleaned = cleaned[:MAX_NAME] or fallback
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{cleaned}~{digest}"


def inside(folder: str | Path, *names: str) -> Path:
    """`folder / safe_name(n1) / safe_name(n2) ...`, checked to be inside `folder`."""
    path = Path(folder)
    for name in names:
        path = path / safe_name(name)
    base = Path(folder).resolve()
    resolved = path.resolve()
    if resolved != base and base not in resolved.parents:   # pragma: no cover - by design
        raise ValueError(f"{'/'.join(names)!r} would leave {folder}")
    return path


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: object) -> str:
    """`text` for a terminal or a log line: control characters (C0, C1, DEL, line and
    paragraph separators, bidirectional overrides) written as escapes like \\x1b."""
    text = str(text)
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def csv_cell(text: object) -> object:
    """A CSV cell: non-strings as they are; a string neutralised (`shown`) and, when it
    starts with = + - @, tab or CR, prefixed with an apostrophe so no spreadsheet runs it.
    A number written as text (`-1.5`) is left alone."""
    if not isinstance(text, str):
        return text
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + shown(text)
        return text
    return shown(text)


def meant_file(path: Path) -> Path | None:
    """The file of `path`'s folder that a missing `path` was probably meant to be (a typo,
    another case: `sysa.txt` for `sysA.txt`), or None."""
    import difflib

    folder = path.parent
    try:
        names = [entry.name for _, entry in zip(range(5000), folder.iterdir())]
    except OSError:
        return None
    folded = {name.casefold(): name for name in names}
    wanted = path.name.casefold()
    # close as a whole name and by its stem (`/tmp/nonexist.toml` was "meant" to be
    # `/tmp/s.toml`: the shared suffix made the names look alike)
    for close in difflib.get_close_matches(wanted, folded, n=5, cutoff=0.6):
        if difflib.SequenceMatcher(None, Path(wanted).stem, Path(close).stem).ratio() >= 0.6:
            return folder / folded[close]
    return None


def closest(word: str, choices, cutoff: float = 0.6) -> str | None:
    """The choice `word` was probably meant to be (a typo, another case: `ONLINE-b` for
    `ONLINE-B`, `colar` for `collar`), or None."""
    import difflib

    folded = {str(c).casefold(): c for c in choices}
    close = difflib.get_close_matches(str(word).casefold(), folded, n=1, cutoff=cutoff)
    return folded[close[0]] if close else None


def unknown_key(key: str, where: str, known) -> str:
    """The message for a key a table does not have: the one probably meant, then all."""
    meant = closest(key, known)
    hint = f"; did you mean {meant!r}?" if meant is not None else ""
    return f"unknown key {key!r} in {where}{hint} (known: {', '.join(known)})"
