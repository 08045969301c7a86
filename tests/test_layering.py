"""The core, the loaders and the CLI run without Qt: importing them loads no Qt module."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import REPO

PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    import llgui, llgui.core, llgui.io, llgui.cli.main
    imported = []
    for package in (llgui.core, llgui.io):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
            imported.append(info.name)
    qt = sorted(m for m in sys.modules
                if m.split(".")[0] in {"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"})
    print(json.dumps({"imported": imported, "qt": qt}))
    """
)


def _probe(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_core_io_and_cli_import_no_qt():
    result = _probe(PROBE)
    # The probe really walked the packages (so an empty walk cannot pass).
    assert "llgui.core.types" in result["imported"]
    assert "llgui.core.penalty" in result["imported"]
    assert result["qt"] == []


def test_the_probe_would_see_qt():
    """The same probe, after importing the GUI package's Qt, reports it (the check can fail)."""
    result = _probe(PROBE.replace("import llgui, llgui.core", "import PySide6.QtCore\nimport llgui, llgui.core"))
    assert "PySide6.QtCore" in result["qt"]


def test_cli_run_imports_no_qt(tmp_path):
    """Running a CLI command end to end (here: a bad input) loads no Qt either."""
    code = textwrap.dedent(
        f"""
        import json, sys
        from llgui.__main__ import main
        code = main(["score", {str(tmp_path / 'missing.toml')!r}])
        qt = sorted(m for m in sys.modules if m.split(".")[0] in {{"PySide6", "shiboken6", "pyqtgraph"}})
        print(json.dumps({{"imported": [], "qt": qt, "code": code}}))
        """
    )
    result = _probe(code)
    assert result["code"] == 2
    assert result["qt"] == []
