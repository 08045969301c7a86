"""PySide6's check of each imported module for "PySide6" (its `__feature__` machinery), made a
file read (`llgui.gui.window.import_check`): the same answer as PySide6's own on every module
loaded here, and files it cannot read whole go to PySide6's check."""
from __future__ import annotations

import sys
import types

import pytest

from llgui.gui.window import import_check


def _feature():
    import PySide6.QtCore  # noqa: F401

    return sys.modules.get("shibokensupport.feature")


def test_the_file_read_answers_as_pysides_own_check(tmp_path):
    feature = _feature()
    if feature is None or not hasattr(feature, "_mod_uses_pyside"):
        pytest.skip("this PySide6 has no module check")
    assert import_check.quicken() and import_check.quicken()   # (twice: once replaced)
    quick = feature._mod_uses_pyside
    assert quick.quickened
    own = quick.original
    modules = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]
    answers = [(m.__name__, own(m), quick(m)) for m in modules]
    assert len(answers) > 300
    assert [a for a in answers if a[1] != a[2]] == []
    assert any(a[1] for a in answers) and not all(a[1] for a in answers)
    # a module whose file says PySide6 only in a comment, in UTF-8 beside other scripts
    path = tmp_path / "uses.py"
    path.write_text("# PySide6 — हिन्दी, 日本語\nx = 1\n", encoding="utf-8")
    module = types.ModuleType("uses")
    module.__file__ = str(path)
    assert quick(module) is True
    path.write_text("x = 'PySide2'\n", encoding="utf-8")
    assert quick(module) is False
    gone = types.ModuleType("gone")
    gone.__file__ = str(tmp_path / "missing.py")
    assert quick(gone) is False   # (PySide6's own: no source, no PySide6)
