"""utils/names.py (issue 28): safe names are injective, bounded and stay in their folder;
names shown on a terminal or in CSV are neutralised."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from llgui.utils.names import csv_cell, inside, safe_name, shown


def test_the_ids_of_the_issue_get_two_files():
    assert safe_name("x/y") != safe_name("x_y")
    assert safe_name("x_y") == "x_y"            # a safe id is kept as it is
    assert safe_name("..") not in ("..", ".", "")
    assert "/" not in safe_name("a/../../b")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_safe_names_are_injective_bounded_and_one_component(a, b):
    for name in (a, b):
        safe = safe_name(name)
        assert safe and "/" not in safe and "\\" not in safe and "\x00" not in safe
        assert not safe.startswith(".")
        assert len(safe.encode("utf-8")) <= 255
    if a != b:
        assert safe_name(a) != safe_name(b)


@given(st.text(max_size=50))
def test_a_name_joined_to_a_folder_stays_inside(name):
    folder = Path("/tmp/llgui-out")
    path = inside(folder, name)
    assert path.parent == folder


def test_terminal_and_csv_neutralisation():
    assert "\x1b" not in shown("a\x1b[31mb") and "\\x1b" in shown("a\x1b[31mb")
    assert "\n" not in shown("a\nb") and "\u2028" not in shown("a\u2028b")
    assert csv_cell('=HYPERLINK("x")') == '\'=HYPERLINK("x")'
    for bad in ("+1+1", "-A1", "@SUM(A1)", "\tx", "\rx"):
        assert csv_cell(bad).startswith("'")
    assert csv_cell("-1.5") == "-1.5" and csv_cell("sys") == "sys" and csv_cell(2.0) == 2.0
