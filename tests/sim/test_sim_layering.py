"""The simulation and the reference systems run without Qt (and without Dask)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.conftest import REPO

PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    import llgui.sim, llgui.systems
    imported = []
    for package in (llgui.sim, llgui.systems):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
            imported.append(info.name)
    banned = sorted(m for m in sys.modules if m.split(".")[0] in
                    {"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "dask", "distributed"})
    print(json.dumps({"imported": imported, "banned": banned}))
    """
)


def test_sim_and_systems_import_no_qt():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"llgui.sim.driver", "llgui.systems.mt_memory"} <= set(result["imported"])
    assert result["banned"] == []


def test_a_system_that_only_speaks_the_protocol_starts_without_numpy():
    """The reference systems that need no arrays (static, mt_memory, mt_complete) import the
    protocol without numpy: a simulation starts a system process per run, and numpy's import
    was half of its start-up (0.17 -> 0.08 s of CPU)."""
    probe = ("import sys; import llgui.systems.static, llgui.systems.mt_memory, "
             "llgui.systems.mt_complete; print(sorted(m for m in sys.modules "
             "if m.split('.')[0] in {'numpy', 'scipy'}))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
