"""A wheel carries what a user needs without the repository: the demo, the fonts, the licence;
installed in an environment of its own, in a folder outside the clone, `llgui --demo-dir`
points inside the installed package and `llgui score` on the packaged demo gives the numbers
sacrebleu gives on the same files."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--disable-pip-version-check", "-w", str(out), str(REPO)],
                   check=True, timeout=600, cwd=out)
    return next(out.glob("llgui-*.whl"))


def test_the_wheel_carries_the_demo_fonts_and_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    demo = [n for n in names if n.startswith("llgui/resources/demo/")]
    assert "llgui/resources/demo/mt/bundle.toml" in names
    assert "llgui/resources/fonts/LLGUI-CJK-Fallback.otf" in names
    assert any(n.endswith("/licenses/LICENSE") or n.endswith("/LICENSE") for n in names)
    tracked = subprocess.run(["git", "ls-files", "resources/demo"], cwd=REPO,
                             capture_output=True, text=True).stdout.split()
    if tracked:   # a clone: every demo file under version control is in the wheel
        assert {'llgui/' + t for t in tracked} <= set(demo)
    assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]


def test_installed_wheel_scores_its_own_demo_outside_the_repository(wheel, tmp_path):
    env_dir = tmp_path / "env"
    # An environment of its own, without pip (ensurepip costs 3 s of CPU): this environment's
    # pip installs the wheel into it (`pip --python`), as the environment's own pip would.
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    # --no-compile: the llgui processes below compile (and cache) the modules they import,
    # not all of them (the window's among them) ahead (~0.7 s of CPU)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-compile", "--disable-pip-version-check", str(wheel)],
                   check=True, timeout=600)
    # The dependencies come from this environment (installing them again would download
    # hundreds of MB); llgui itself only from the wheel.
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLGUI_")}
    # NUMBA_DISABLE_JIT: the installed package's TER (which `score` needs for the demo's
    # question value) runs as the Python it is written in, not first compiled by numba into the
    # fresh install (~6 s of CPU a run, for a figure this test does not read). BLEU, compared
    # below, is not numba's; the compiled TER engine equals sacrebleu in
    # tests/core/mt/test_ter_fast.py and on the demo's steps in tests/core/test_verify.py.
    env.update(LLGUI_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH="", NUMBA_DISABLE_JIT="1")

    def llgui(*args):
        return subprocess.run([str(python), "-m", "llgui", *args], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)

    where = Path(llgui("--demo-dir").stdout.strip())
    assert where.is_relative_to(Path(site)) and not where.is_relative_to(REPO)
    # the window on the installed demo, rendered offscreen (issue 37, acceptance 3)
    shot = llgui("--demo", "--size", "1366x768", "--screenshot", str(work / "demo.png"))
    assert shot.returncode == 0, shot.stderr
    import struct

    assert struct.unpack(">II", (work / "demo.png").read_bytes()[16:24]) == (1366, 768)
    done = llgui("score", str(where / "mt" / "bundle.toml"), "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    import tomllib

    import sacrebleu

    folder = where / "mt"
    spec = tomllib.loads((folder / "bundle.toml").read_text(encoding="utf-8"))
    hyps, refs = [], []
    for document in spec["documents"]:
        hyps += (folder / document["hypothesis"]).read_text(encoding="utf-8").splitlines()
        refs += (folder / document["references"][0]).read_text(encoding="utf-8").splitlines()
    expected = sacrebleu.corpus_bleu(hyps, [refs]).score
    assert report["metrics"]["bleu"]["score"] == pytest.approx(expected, abs=1e-9)
    # the notebook's first cell, run there as a user would, scores with the API what the
    # command line scored (docs/notebook.ipynb; issue 24, acceptance 2)
    import nbformat

    notebook = nbformat.read(REPO / "docs" / "notebook.ipynb", as_version=4)
    first = next(c.source for c in notebook.cells if c.cell_type == "code")
    cell = subprocess.run([str(python), "-c", first + "\nprint(repr(mt))\n"
                           "print(llgui.score(mt).attrs['pooled']['bleu'])"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert cell.returncode == 0, cell.stderr
    shown, bleu = cell.stdout.strip().splitlines()[-2:]
    assert shown.startswith("Bundle(task='mt'")
    assert float(bleu) == report["metrics"]["bleu"]["score"]


def test_every_package_folder_is_listed_in_pyproject():
    """pyproject.toml lists its packages (the top-level resources/ is mapped to llgui.resources,
    and a package-dir mapping cannot be combined with discovery): a package folder missing from
    the list would be missing from the wheel while every test in a clone still passes."""
    import tomllib
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {".".join(p.parent.relative_to(REPO).parts)
               for p in (REPO / "llgui").rglob("__init__.py")}
    assert folders | {"llgui.resources"} == listed, (
        f"add to pyproject.toml's packages: {sorted(folders - listed)}; "
        f"listed but gone: {sorted(listed - folders - {'llgui.resources'})}")
    assert (REPO / "resources" / "__init__.py").is_file()
