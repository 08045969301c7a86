"""Problems found in user input, reported as `FILE:LINE: reason`.

Every loader collects all the problems of a file before raising one `LoadError`, so a user
fixes a file in one pass instead of one error at a time. Line numbers are 1-based; line 0 means
"the file as a whole" (missing, empty, unreadable) and is printed as `FILE: reason`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        if self.line > 0:
            return f"{self.file}:{self.line}: {self.reason}"
        return f"{self.file}: {self.reason}"


class LoadError(Exception):
    """An input file (or several) could not be loaded; `problems` lists every reason found."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("LoadError needs at least one problem")
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def single(cls, file: str | Path, line: int, reason: str) -> "LoadError":
        return cls([Problem(str(file), line, reason)])


class Problems:
    """Collects problems while a file is read; `raise_if_any()` ends the load when needed.

    Usage::

        problems = Problems(path)
        for lineno, text in enumerate(lines, 1):
            if bad:
                problems.add(lineno, "reason")
        problems.raise_if_any()
    """

    def __init__(self, file: str | Path, limit: int = 200):
        self.file = str(file)
        self.limit = limit
        self.items: list[Problem] = []
        self.dropped = 0
        self._format: tuple[str, Callable[[], bool]] | None = None

    def expect_format(self, what: str, foreign: Callable[[], bool]) -> None:
        """Declare the format being read, so that a file of another kind is not echoed.

        Messages quote fields of the offending line; that is right for a file in our format
        with a typo, but a bundle may name any file (`references = ["/etc/passwd"]`), and its
        lines must not end up on a terminal or in a log. When there are problems and
        `foreign()` says the file does not have the format's shape at all (called only then),
        the file's line problems are replaced by one, `not <what>`, that names no content.
        """
        self._format = (what, foreign)

    def _hide_foreign(self) -> None:
        if self._format is None:
            return
        what, foreign = self._format
        if not any(p.file == self.file and p.line > 0 for p in self.items) or not foreign():
            return
        others = [p for p in self.items if not (p.file == self.file and p.line > 0)]
        self.items = others + [Problem(self.file, 0, f"not {what} (no line has its shape; "
                                                     f"the content is not shown)")]
        self.dropped = 0

    def add(self, line: int, reason: str, file: str | Path | None = None) -> None:
        if len(self.items) >= self.limit:
            self.dropped += 1
            return
        self.items.append(Problem(self.file if file is None else str(file), line, reason))

    def extend(self, problems: Iterable[Problem]) -> None:
        for p in problems:
            if len(self.items) >= self.limit:
                self.dropped += 1
            else:
                self.items.append(p)

    def __bool__(self) -> bool:
        return bool(self.items)

    @property
    def count(self) -> int:
        """Every problem added, the ones past the limit too: a reader that asks "did this
        table add a problem?" compares counts, which keep growing once the list is full."""
        return len(self.items) + self.dropped

    def raise_if_any(self) -> None:
        if not self.items:
            return
        self._hide_foreign()
        items = list(self.items)
        if self.dropped:
            items.append(Problem(self.file, 0, f"... and {self.dropped} more problems"))
        raise LoadError(items)


SAME_SHOWN = 3
"""Problems of one file with the same reason (but for the values it quotes) shown before the
rest are summed up in one line (`summarised`)."""


def _shape(reason: str) -> str:
    import re

    return re.sub(r"'[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "#", reason)


def summarised(problems: Iterable[Problem], shown: int = SAME_SHOWN) -> list[Problem]:
    """`problems` as a terminal shows them: of the ones of a file whose reasons differ only in
    the values they quote (a score file given as the key: "unknown label 'x'" on each of its
    25,000 lines), the first `shown`, then one line saying how many more and on which lines;
    the others as they are, in their order."""
    problems = list(problems)
    groups: dict = {}
    for p in problems:
        if p.line > 0:
            groups.setdefault((p.file, _shape(p.reason)), []).append(p)
    out = []
    for p in problems:
        group = groups.get((p.file, _shape(p.reason))) if p.line > 0 else None
        if group is None or len(group) <= shown + 1:
            out.append(p)
            continue
        index = next(k for k, q in enumerate(group) if q is p)
        if index < shown:
            out.append(p)
        elif index == shown:
            rest = [q.line for q in group[shown:]]
            lines = ", ".join(str(n) for n in rest[:8]) + (", ..." if len(rest) > 8 else "")
            out.append(Problem(p.file, 0, f"the same problem as line {group[0].line} on "
                                          f"{len(rest)} more lines ({lines})"))
    return out


class SystemFailed(Exception):
    """The system under evaluation failed (crashed, hung past its timeout, broke the protocol).

    The message names the document, the step and the fault; the CLI exits with code 3.
    """


class UsageError(ValueError):
    """A bad argument value (an option, a setting, a document id): the command line says it on
    one line with exit 2, the Python API raises it as a ValueError."""
