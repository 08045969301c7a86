"""Where things are in a TOML file: the line of a table, of a key in a table, of an array element.

`tomllib` parses but keeps no positions, and a problem in a bundle must be reported at the
bundle's line (`bundle.toml:12: references file 'ref/x.de' not found`). This scanner walks the
text once, skipping strings (all four kinds, multi-line included), comments and nested values,
and records:

- each table header: `[name]` and every `[[name]]` (the n-th array table is index n, from 0);
- each key of each table, by its first component (`a.b = 1` records `a`), at the line where
  the key starts;
- for a key whose value is an array, the line where each top-level element starts.

It is meant for text that `tomllib` has already accepted; on anything else it never raises,
it just knows less. Every lookup falls back to the nearest thing it knows (an element to its
key, a key to its table, a table to 0 = "the whole file").
"""
from __future__ import annotations

from dataclasses import dataclass, field

TablePath = tuple[str, ...]

_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass
class TomlPositions:
    tables: dict[TablePath, list[int]] = field(default_factory=dict)
    keys: dict[tuple[TablePath, int, str], int] = field(default_factory=dict)
    elements: dict[tuple[TablePath, int, str], list[int]] = field(default_factory=dict)

    def table_line(self, table: TablePath, index: int = 0) -> int:
        """Line of the header of `table` (its `index`-th occurrence for `[[table]]`), or 0."""
        lines = self.tables.get(tuple(table), [])
        return lines[index] if 0 <= index < len(lines) else 0

    def key_line(self, table: TablePath, key: str, index: int = 0) -> int:
        """Line of `key` in `table` (occurrence `index`), else the table's line."""
        line = self.keys.get((tuple(table), index, key))
        return line if line is not None else self.table_line(table, index)

    def element_line(self, table: TablePath, key: str, element: int, index: int = 0) -> int:
        """Line where element `element` of the array value of `key` starts, else the key's."""
        lines = self.elements.get((tuple(table), index, key), [])
        if 0 <= element < len(lines):
            return lines[element]
        return self.key_line(table, key, index)


def locate(text: str) -> TomlPositions:
    """Scan TOML `text` (see the module docstring); never raises."""
    scanner = _Scanner(text)
    try:
        scanner.run()
    except (IndexError, ValueError, OverflowError):
        pass
    return scanner.positions


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.i = 0
        self.line = 1
        self.positions = TomlPositions()
        self.table: TablePath = ()
        self.index = 0

    # --- low level ---------------------------------------------------------------------
    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.text[j] if j < len(self.text) else ""

    def advance(self, n: int = 1) -> None:
        for _ in range(n):
            if self.i < len(self.text):
                if self.text[self.i] == "\n":
                    self.line += 1
                self.i += 1

    def skip_spaces(self) -> None:
        while self.peek() in (" ", "\t"):
            self.advance()

    def skip_to_eol(self) -> None:
        while self.peek() not in ("", "\n"):
            self.advance()

    # --- structure -----------------------------------------------------------------------
    def run(self) -> None:
        while self.i < len(self.text):
            self.skip_spaces()
            c = self.peek()
            if c == "":
                return
            if c in ("\n", "\r"):
                self.advance()
            elif c == "#":
                self.skip_to_eol()
            elif c == "[":
                self.header()
            else:
                self.key_value()

    def header(self) -> None:
        line = self.line
        array = self.peek(1) == "["
        self.advance(2 if array else 1)
        path = self.key_path(("]",))
        self.advance(2 if array else 1)
        self.skip_to_eol()
        lines = self.positions.tables.setdefault(path, [])
        if array or not lines:
            lines.append(line)
        self.table = path
        self.index = len(lines) - 1 if array else 0
        # a header [a.b] also "defines" key b of table a, for messages about that key
        if len(path) > 1:
            parent_key = (path[:-1], 0, path[-1])
            self.positions.keys.setdefault(parent_key, line)

    def key_path(self, stops: tuple[str, ...]) -> TablePath:
        parts: list[str] = []
        while True:
            self.skip_spaces()
            c = self.peek()
            if c == "":
                break
            if c in ('"', "'"):
                parts.append(self.quoted_key(c))
            else:
                start = self.i
                while self.peek() in _BARE and self.peek() != "":
                    self.advance()
                if self.i == start:  # not a key character: give up on this line
                    if c not in stops:
                        raise ValueError("unexpected character")
                    break
                parts.append(self.text[start:self.i])
            self.skip_spaces()
            if self.peek() == ".":
                self.advance()
                continue
            break
        return tuple(parts)

    def quoted_key(self, quote: str) -> str:
        self.advance()
        chars: list[str] = []
        while self.peek() not in ("", quote, "\n"):
            if quote == '"' and self.peek() == "\\":
                chars.append(self.escape())
                continue
            chars.append(self.peek())
            self.advance()
        self.advance()
        return "".join(chars)

    def escape(self) -> str:
        """Decode the escape sequence at the cursor (a backslash) in a basic string."""
        code = self.peek(1)
        self.advance(2)
        if code in _ESCAPES:
            return _ESCAPES[code]
        if code in ("u", "U"):
            width = 4 if code == "u" else 8
            digits = self.text[self.i:self.i + width]
            self.advance(width)
            return chr(int(digits, 16))
        return code

    def key_value(self) -> None:
        line = self.line
        path = self.key_path(("=",))
        if self.peek() != "=":
            raise ValueError("expected '='")
        self.advance()
        key = (self.table, self.index, path[0] if path else "")
        self.positions.keys.setdefault(key, line)
        self.value(key)

    def value(self, key: tuple[TablePath, int, str]) -> None:
        """Skip one value (to the end of its logical line), recording top-level array elements."""
        stack: list[str] = []
        expecting = False
        elements: list[int] | None = None
        while True:
            c = self.peek()
            if c == "":
                return
            if not stack and c == "\n":
                self.advance()
                return
            if c in (" ", "\t", "\r", "\n"):
                self.advance()
                continue
            if c == "#":
                self.skip_to_eol()
                continue
            if len(stack) == 1 and stack[0] == "[" and expecting and c not in ",]":
                elements.append(self.line)  # type: ignore[union-attr]
                expecting = False
            if c in "[{":
                if not stack and c == "[":
                    elements = self.positions.elements.setdefault(key, [])
                    expecting = True
                stack.append(c)
                self.advance()
            elif c in "]}":
                if stack:
                    stack.pop()
                self.advance()
            elif c == ",":
                if len(stack) == 1:
                    expecting = True
                self.advance()
            elif c in ('"', "'"):
                self.string(c)
            else:
                self.advance()

    def string(self, quote: str) -> None:
        if self.peek(1) == quote and self.peek(2) == quote:
            self.advance(3)
            while self.peek() != "":
                if quote == '"' and self.peek() == "\\":
                    self.advance(2)
                elif self.peek() == quote and self.peek(1) == quote and self.peek(2) == quote:
                    self.advance(3)
                    for _ in range(2):  # up to two quotes may end the content itself
                        if self.peek() == quote:
                            self.advance()
                    return
                else:
                    self.advance()
            return
        self.advance()
        while self.peek() not in ("", "\n"):
            if quote == '"' and self.peek() == "\\":
                self.advance(2)
            elif self.peek() == quote:
                self.advance()
                return
            else:
                self.advance()
