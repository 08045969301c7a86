"""docs/notebook.ipynb runs top to bottom in a real Jupyter kernel (nbclient + ipykernel), and
its numbers are the command line's (issue 24)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import DEMO, REPO

NOTEBOOK = REPO / "docs" / "notebook.ipynb"

# Run after the notebook's own cells, in the same kernel: the reports behind its frames.
PROBE = """
import json
from llgui.io.export import to_json
frames = {"score": scores, "replay": steps, "compare": comparison, "lifelong": lifelong,
          "det": detection, "plain": plain}
print(json.dumps({k: json.loads(to_json(f.attrs["report"])) for k, f in frames.items()}))
"""

# What the notebook computes, as a user would ask the command line.
COMMANDS = {
    "score": ["score", DEMO / "mt" / "bundle.toml"],
    "replay": ["replay", DEMO / "mt" / "bundle.toml", "--doc", "news-2023-01-09"],
    "compare": ["compare", DEMO / "campaign" / "campaign.toml", "--baseline", "static"],
    "lifelong": ["lifelong", DEMO / "diarization" / "bundle.toml", "--policy", "B"],
    "det": ["det", DEMO / "detection" / "scores" / "sysA.txt",
            DEMO / "detection" / "scores" / "sysB.txt",
            DEMO / "detection" / "scores" / "sysB-adapted.txt",
            "--key", DEMO / "detection" / "scores" / "trials.key"],
    "plain": ["score", "--ref", DEMO / "mt" / "ref" / "news-2023-01-09.drm",
              "--hyp", DEMO / "mt" / "hyp" / "news-2023-01-09.drm", "-lc"],
}


def test_the_notebook_is_stored_without_outputs():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


@pytest.mark.slow
def test_the_notebook_runs_and_its_numbers_are_the_clis(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    # the kernel runs outside the repository and imports this checkout's llgui
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    client = nbclient.NotebookClient(nb, timeout=600, startup_timeout=300,
                                     kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()   # CellExecutionError on any failing cell
    for cell in nb.cells[:-1]:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"]
            assert cell.outputs, cell.source   # every cell shows something
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    reports = json.loads(text)
    for name, args in COMMANDS.items():
        argv = [*map(str, args), "--format", "json"]
        if name in REAL_PROCESS:
            out = subprocess.run([sys.executable, "-m", "llgui", *argv], cwd=REPO,
                                 capture_output=True, text=True, timeout=600)
            code, stdout, stderr = out.returncode, out.stdout, out.stderr
        else:
            code, stdout, stderr = _in_process(argv)
        assert code == 0, stderr
        cli = json.loads(stdout)
        assert reports[name] == cli, name


# The command line's reports are asked through its entry point in this process (a process
# costs a second of imports, and plays no part in the numbers compared), but for one command
# asked as a real process, as a user would.
REAL_PROCESS = {"lifelong"}


def _in_process(argv):
    import contextlib
    import io

    from llgui.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()
