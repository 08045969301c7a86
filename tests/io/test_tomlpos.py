"""llgui.io._tomlpos: the line of every table, key and array element of a TOML text."""
from __future__ import annotations

import json
import tomllib

from hypothesis import given
from hypothesis import strategies as st

from llgui.io._tomlpos import locate
from tests.io.helpers import FUZZ

TEXT = '''\
# comment [not a table]
top = 1
[bundle]
task = "mt"  # x = 2
name = """multi
[fake]
fake = 1
line"""
'quoted key' = 'a # b'
metrics = [
  "bleu", # c
  ["nested",
   "array"],
  {x = 1, y = [2,
   3]},
]
dotted.key = 3

[[documents]]
id = "a"

[[documents]]
id = 'b'
references = ["r1", "r2"]
[settings.sub]
k = 1
'''


def test_known_text():
    pos = locate(TEXT)
    assert tomllib.loads(TEXT)  # the text is valid TOML
    assert pos.key_line((), "top") == 2
    assert pos.table_line(("bundle",)) == 3
    assert pos.key_line(("bundle",), "task") == 4
    assert pos.key_line(("bundle",), "name") == 5
    assert pos.key_line(("bundle",), "fake") == 3  # inside a string: falls back to the table
    assert pos.key_line(("bundle",), "quoted key") == 9
    assert pos.key_line(("bundle",), "metrics") == 10
    assert [pos.element_line(("bundle",), "metrics", i) for i in range(4)] == [11, 12, 14, 10]
    assert pos.key_line(("bundle",), "dotted") == 17
    assert pos.table_line(("documents",), 0) == 19
    assert pos.table_line(("documents",), 1) == 22
    assert pos.key_line(("documents",), "id", 1) == 23
    assert pos.element_line(("documents",), "references", 1, 1) == 24
    assert pos.key_line(("documents",), "time", 1) == 22  # absent: its table's line
    assert pos.key_line(("settings",), "sub") == 25      # [settings.sub] defines settings.sub
    assert pos.key_line(("settings", "sub"), "k") == 26
    assert pos.table_line(("nope",)) == 0


# --------------------------------------------------------------------------------------------
# Property: a generated TOML text, with the line of every key and element known by construction

_SAFE_TEXT = st.text(alphabet=st.sampled_from(list("ab #=[]{},.'\"\\\t") + ["\x1f", "é", "日"]),
                     max_size=8)
_KEY = st.one_of(st.text(alphabet="abcXYZ_-019", min_size=1, max_size=6),
                 st.sampled_from(["a b", "x.y", "[z]", "\x1f", "é", "=", "#", "'", '"', ""]))


def _basic(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # JSON escapes are valid TOML escapes here


@st.composite
def _value(draw) -> tuple[list[str], list[int] | None]:
    """(lines of a value written after `key = `, line offsets where array elements start)."""
    kind = draw(st.sampled_from(["int", "basic", "literal", "multi", "array", "inline"]))
    if kind == "int":
        return [str(draw(st.integers()))], None
    if kind == "basic":
        return [_basic(draw(_SAFE_TEXT))], None
    if kind == "literal":
        return ["'" + draw(_SAFE_TEXT).replace("'", "").replace("\x1f", "") + "'"], None
    if kind == "multi":
        parts = draw(st.lists(st.sampled_from(["a", "[x]", "k = 1", "# c", '"', "''", "\\\\"]),
                              min_size=1, max_size=4))
        return ['"""' + parts[0]] + parts[1:] + ['end"""'], None
    if kind == "inline":
        return ["{a = 1, b = [1,", "2]}"], None
    items = [_basic(x) for x in draw(st.lists(_SAFE_TEXT, max_size=4))]
    if draw(st.booleans()):
        return ["[", *[f"  {item}, # note [" for item in items], "]"], list(range(1, len(items) + 1))
    return ["[" + ", ".join(items) + "]"], [0] * len(items)


@st.composite
def _document(draw):
    """A valid TOML text, and the line of every key and array element in it."""
    lines: list[str] = ["# generated"]
    keys_at, elements_at = {}, {}
    tables = draw(st.lists(st.tuples(st.booleans(), _KEY), max_size=4, unique_by=lambda t: t[1]))
    names = {name for _, name in tables}
    for array, name in [(False, None)] + tables:
        if name is not None:
            lines.append(f"[[{_basic(name)}]]" if array else f"[{_basic(name)}]")
        path = () if name is None else (name,)
        keys = draw(st.lists(_KEY, max_size=4, unique=True))
        for key in keys:
            if name is None and key in names:
                continue
            value, elements = draw(_value())
            first = len(lines) + 1
            spaced = draw(st.sampled_from(["", "  ", "\t"]))
            lines.append(f"{spaced}{_basic(key)} = {value[0]}")
            lines.extend(value[1:])
            keys_at[(path, key)] = first
            if elements is not None:
                elements_at[(path, key)] = [first + e for e in elements]
        lines.append("")
    return "\n".join(lines), keys_at, elements_at


@given(_document())
@FUZZ
def test_generated_documents(document):
    text, keys_at, elements_at = document
    tomllib.loads(text)  # the generator writes valid TOML
    pos = locate(text)
    for (path, key), line in keys_at.items():
        assert pos.key_line(path, key) == line, (path, key, text)
    for (path, key), lines in elements_at.items():
        got = [pos.element_line(path, key, i) for i in range(len(lines))]
        assert got == lines, (path, key, text)


@given(st.text(max_size=300))
@FUZZ
def test_never_raises_on_any_text(text):
    pos = locate(text)
    assert pos.key_line(("a",), "b") >= 0
