"""The core, the loaders and the CLI run without Qt: importing them loads no Qt module."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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
    def loaded_qt():
        qt = {"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"}
        return sorted(m for m in sys.modules if m.split(".")[0] in qt)
    qt = loaded_qt()
    # the same look, after importing the GUI's Qt: it reports it (the check can fail)
    import PySide6.QtCore
    print(json.dumps({"imported": imported, "qt": qt, "qt_then": loaded_qt()}))
    """
)


def _probe(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probe() -> dict:
    """PROBE's report, from one interpreter (a second one importing the same packages, with Qt
    first, cost ~0.8 s of CPU)."""
    return _probe(PROBE)


def test_core_io_and_cli_import_no_qt(probe):
    # The probe really walked the packages (so an empty walk cannot pass).
    assert "llgui.core.types" in probe["imported"]
    assert "llgui.core.penalty" in probe["imported"]
    assert probe["qt"] == []


def test_the_probe_would_see_qt(probe):
    """The same look at the loaded modules, after the probe imported the GUI package's Qt,
    reports it (the check can fail)."""
    assert "PySide6.QtCore" in probe["qt_then"]


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
JOBS_PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    import llgui.gui.jobs as jobs
    imported = []
    for info in pkgutil.walk_packages(jobs.__path__, jobs.__name__ + "."):
        importlib.import_module(info.name)
        imported.append(info.name)
    # and run a few, whose imports happen inside them
    from llgui.gui.jobs.across_time import bands_job
    from llgui.gui.jobs.collection import collection_job
    from llgui.gui.jobs.workbench import view_job, walk_job
    from llgui.core.across_time.policy import PRESETS
    from llgui.core.significance.resample import Plan
    from llgui.io.bundle import load_bundle
    from tests.conftest import DEMO
    for task, metric in (("mt", "bleu"), ("diarization", "der")):
        bundle = load_bundle(DEMO / task / "bundle.toml")
        doc = bundle.documents[0]
        _, walk = walk_job(None, doc, bundle.steps_of(doc.id), metric, bundle.settings,
                           bundle.cost, bundle.documents)
        if task == "diarization":
            view_job(walk, 1)
        collection_job(bundle, metric, bundle.cost)
        bands_job(bundle.lifelong, metric, PRESETS["B"], Plan("bs", 20, 1, "document"))
    def loaded_qt():
        qt = {"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"}
        return sorted(m for m in sys.modules if m.split(".")[0] in qt)
    qt = loaded_qt()
    # the same look, after importing the GUI's Qt: it reports it (the check can fail)
    import pyqtgraph
    print(json.dumps({"imported": imported, "qt": qt, "qt_then": loaded_qt()}))
    """
)


@pytest.fixture(scope="module")
def jobs_probe() -> dict:
    """JOBS_PROBE's report, from one interpreter (a second one for the look with Qt loaded
    cost ~0.6 s of CPU)."""
    return _probe(JOBS_PROBE)


def test_the_guis_jobs_import_and_run_without_qt(jobs_probe):
    """llgui.gui.jobs is what the window's workers run: plain functions, no Qt, so that the
    tests (tests/gui/jobs/) and the CLI call them as they are."""
    for name in ("workbench", "collection", "campaign", "across_time", "simulate", "live"):
        assert f"llgui.gui.jobs.{name}" in jobs_probe["imported"]
    assert jobs_probe["qt"] == []


def test_the_jobs_probe_would_see_qt(jobs_probe):
    """The same look at the loaded modules, after the probe imported pyqtgraph, reports it
    (the check can fail)."""
    assert "pyqtgraph" in jobs_probe["qt_then"]
    assert "llgui.gui.jobs.workbench" in jobs_probe["imported"]   # it did walk the jobs


def _statements(tree: ast.AST):
    """Every statement of `tree`, at any depth (in functions, classes, branches, handlers, match
    cases): where an `import` can be. Expressions hold no statement, so they are not walked
    (ast.walk's every node was ~0.5 s of CPU over the package)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                stack.extend(children)


def _import_graph() -> dict[str, set[str]]:
    """llgui module -> the llgui modules it imports (every `import` and `from ... import`,
    at module level or inside functions), from the source."""

    modules = {}
    for path in (REPO / "llgui").rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    # the top-level resources/ is the package llgui.resources (pyproject's package-dir)
    modules["llgui.resources"] = (REPO / "resources" / "__init__.py", True)

    def resolve(name: str) -> str | None:
        parts = name.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        return ".".join(parts) or None

    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        edges = set()
        for node in _statements(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                    if node.level else []
                stem = ".".join(base + ([node.module] if node.module else []))
                targets = [stem] + [f"{stem}.{a.name}" for a in node.names]
            else:
                continue
            edges.update(r for r in map(resolve, targets) if r and r != name)
        graph[name] = edges
    return graph


def test_no_module_imports_one_that_imports_it_back():
    """No import circle, direct or through a chain (function-level imports count: a circle
    through a lazy import still ties the two modules together)."""
    graph = _import_graph()
    assert "llgui.gui.main_window" in graph["llgui.gui.app"]   # the walk sees lazy imports
    circles = []
    for start in sorted(graph):
        seen, stack = set(), [(start, (start,))]
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join(path + (start,)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + (nxt,)))
    assert circles == []
