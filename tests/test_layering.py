"""The core, the loaders and the CLI run without Qt: importing them loads no Qt module."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

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


# -- The contracts of DESIGN.md section 4, checked by import-linter (pyproject.toml) ----------

CONTRACTS = {"layers", "core-layers", "qt-only-in-gui", "dask-only-in-campaign", "no-circles"}


def _lint_imports(root, env_path) -> subprocess.CompletedProcess:
    import os

    lint = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(env_path))
    return subprocess.run([str(lint), "--no-cache", "--no-logo"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_import_contracts_hold():
    """Every contract of pyproject.toml is listed and kept: Qt only in gui, Dask only in
    campaign, the layers, the core's layers with independent task families, no circles."""
    out = _lint_imports(REPO, REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = out.stdout.count("KEPT")
    assert kept == len(CONTRACTS), out.stdout
    assert "BROKEN" not in out.stdout


def test_the_contracts_catch_a_violation(tmp_path):
    """The same check on a copy of the package with three violations planted fails, naming each:
    Qt in core, one task family importing another, and a circle."""
    import shutil

    shutil.copytree(REPO / "llgui", tmp_path / "llgui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    core = tmp_path / "llgui" / "core"
    with open(core / "numbers.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _planted():\n    import PySide6  # noqa: F401\n")
    with open(core / "mt" / "textdiff.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _planted():\n    from llgui.core.diarization import der  # noqa: F401\n")
    with open(core / "errors.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _planted():\n    from llgui.core import jobs  # noqa: F401\n")
    with open(core / "jobs.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _planted():\n    from llgui.core import errors  # noqa: F401\n")
    out = _lint_imports(tmp_path, tmp_path)
    assert out.returncode != 0
    report = out.stdout
    assert "Qt (PySide6, shiboken6, pyqtgraph) only in llgui.gui BROKEN" in report
    assert "llgui.core.mt.textdiff -> llgui.core.diarization.der" in report
    assert "No cycles are allowed in llgui.core" in report
