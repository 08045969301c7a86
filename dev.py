#!/usr/bin/env python3
"""Set-up and the everyday commands, with nothing but Python 3.11 or newer and pip on the machine.

    python3 dev.py demo      # the GUI on the bundled demo
    python3 dev.py test      # the whole test suite (what CI runs through .ci/run)
    python3 dev.py test --quick  # the edit-test loop: core, readers, command line (half a
                                 # minute quiet; a busy machine longer)
    python3 dev.py bench     # the performance gates (benchmarks/, docs/developing.md)
    python3 dev.py llgui ... # any llgui command inside the project's environment
    python3 dev.py setup     # only the set-up below (every other command does it first)

The first call creates `.venv/` beside this file and installs llgui with its test extras into
it; later calls reuse it, and reinstall only when pyproject.toml has changed. Extra arguments
go to the command (`python3 dev.py test -k der -x`). Only the standard library is used here.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".llgui-installed"


def _wanted_stamp() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return f"{sys.version_info[:2]} {digest}"


def ensure_environment() -> None:
    """Create the virtual environment and install llgui into it when needed."""
    if sys.version_info < (3, 11):
        sys.exit(f"llgui needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        print(f"dev.py: creating {VENV.relative_to(ROOT)}/ ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _wanted_stamp():
        return
    print("dev.py: installing llgui and its dependencies (first run takes a few minutes) ...",
          flush=True)
    # -qq: errors only (the build backend's advisory notes about editable installs are noise)
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check", "install", "-qq"]
    subprocess.run(pip + ["--upgrade", "pip"], check=True)
    subprocess.run(pip + ["-e", f"{ROOT}[test]"], check=True, cwd=ROOT)
    # llgui's bytecode and its compiled engines made now, as part of the set-up (each
    # later run finds them on disk: a clean clone's first test run compiled them beside
    # its first tests, ~20 s of CPU)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYQTGRAPH_QT_LIB="PySide6")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compiling = _compile(env)
    # the test modules as pytest rewrites their asserts, cached beside them (each test
    # worker of a clone's first run rewrote all of them: ~4 s of CPU a worker)
    subprocess.run([str(PYTHON), "-m", "pytest", "--collect-only", "-q", "-p",
                    "no:cacheprovider"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    _finish(compiling)
    STAMP.write_text(_wanted_stamp())


KERNELS = (
    "from llgui.core.mt import ter_fast; ter_fast.translation_edit_rate('a b c d'.split(), "
    "'c d a b x'.split())",
    "from llgui.core.significance import _penalised_kernel, _det_kernel; "
    "_penalised_kernel.warm(); _det_kernel.warm()",
    "import numpy as np; from llgui.core.diarization.word_engine import PairDistance, Stream; "
    "s = Stream([1, 2], [0.0, 1.0], [1.0, 2.0], [0, 1]); PairDistance(s, s, True).replaced(0, 1, s)",
)
"""Calls that compile (or load) each of llgui's numba engines, for `test` and `bench`."""


def _compile(env: dict) -> list:
    """llgui's modules compiled to bytecode (now), and a process per numba engine compiling
    it (or loading its cache) started: the engines (TER, the word-level distance, the
    resampling kernels) take 1-6 s each to compile on a clone's first run, and every process
    that needs one before its on-disk cache exists compiles it too. Compiled once, at set-up
    (and checked before a test or benchmark run, which must not measure beside it)."""
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", "-j", "0", "llgui"], cwd=ROOT,
                   env=env, stdout=subprocess.DEVNULL)
    return [subprocess.Popen([str(PYTHON), "-c", code], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for code in KERNELS]


def _finish(processes, timeout: float = 300.0) -> None:
    """Wait for the compiling processes, ending any still running after `timeout` seconds (a
    compile never takes a minute: the run must not hang on one)."""
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(argv: list[str]) -> int:
    if argv and argv[0] in {"-h", "--help", "help"}:
        print(__doc__.strip())   # asked for: not an error
        return 0
    if not argv or argv[0] not in {"demo", "test", "bench", "llgui", "setup"}:
        print(__doc__.strip(), file=sys.stderr if argv else sys.stdout)
        if argv:
            print(f"\ndev.py: unknown command {argv[0]!r}", file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_environment()
    env = dict(os.environ, PYQTGRAPH_QT_LIB="PySide6")
    if command == "setup":
        print(f"dev.py: {VENV.relative_to(ROOT)}/ is ready (llgui installed from {ROOT})")
        return 0
    if command == "demo":
        args = [str(PYTHON), "-m", "llgui", "--demo", *rest]
    elif command == "llgui":
        args = [str(PYTHON), "-m", "llgui", *rest]
    elif command == "bench":
        args = [str(PYTHON), "-m", "benchmarks", *rest]
    else:
        # Tests never need a display: Qt renders offscreen. They run on every core
        # (pytest-xdist) unless the arguments choose otherwise (`-n 0` runs them in one).
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        # loadgroup: tests of one xdist_group share a worker, so a session fixture that scores
        # a published set (WMT17 TER) runs once, not once per worker; tests/conftest.py groups
        # every other test by its module and hands the longest modules out first
        # (--no-loadscope-reorder keeps that order instead of xdist's count of tests)
        # --max-worker-restart=0: a crashed worker (a segfault, or pytest-timeout ending a
        # stuck test) ends the run with a failure; pytest-xdist 3.8 can deadlock when it
        # replaces a crashed worker under loadgroup (its issues 1323, 1327, 1378).
        parallel = ([] if any(a == "-n" or a.startswith("-n") for a in rest)
                    else ["-n", "auto", "--dist", "loadgroup", "--no-loadscope-reorder",
                          "--max-worker-restart=0"])
        args = [str(PYTHON), "-m", "pytest", *parallel, *rest]
    if command in {"test", "bench"}:
        # A test run starts some hundreds of Python processes (llgui's commands, the systems
        # under evaluation, windows offscreen), each importing llgui: with
        # PYTHONDONTWRITEBYTECODE set (some containers set it) none of them finds llgui's
        # bytecode cached and each compiles its modules again, and pytest rewrites every test
        # module in every worker at every run. Compiled once here, beside the sources.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        warming = _compile(env)   # (at set-up already: then only checked, in a second)
        if command == "bench":
            _finish(warming)
        try:
            return subprocess.run(args, cwd=ROOT, env=env).returncode
        finally:   # (a cache half written would be compiled again by the next run)
            _finish(warming)
    # The window and llgui's commands run where the user is, so relative paths they give
    # (`--screenshot demo.png`, a bundle) mean what they would mean to `llgui` itself; the
    # tests and the benchmarks run from the repository's root.
    cwd = ROOT if command in {"test", "bench"} else Path.cwd()
    return subprocess.run(args, cwd=cwd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
