"""Every long phase of `llgui campaign` says so on stderr (reading the campaign, the cells,
writing --out), stdout keeps only the report, and Ctrl-C during any phase is a clean exit 2."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from tests.conftest import REPO, llgui_in_process


def _campaign(root, systems: int):
    (root / "ref").mkdir(parents=True)
    (root / "ref" / "b0.txt").write_text("".join(f"the cat {i} sat\n" for i in range(5)))
    toml = ['[campaign]', 'task = "mt"', 'metrics = ["bleu"]', '',
            '[[batches]]', 'id = "b0"', 'time = 0', 'references = "ref/b0.txt"', '']
    for s in range(systems):
        (root / f"s{s}" / "M0").mkdir(parents=True)
        (root / f"s{s}" / "M0" / "b0.txt").write_text(
            "".join(f"the cat {i + s % 2} sat\n" for i in range(5)))
        toml += ['[[systems]]', f'name = "s{s}"', 'models = [{id = "M0", time = 0}]',
                 f'hypotheses = "s{s}/{{model}}/{{batch}}.txt"', '']
    path = root / "campaign.toml"
    path.write_text("\n".join(toml))
    return path


def test_each_phase_is_announced_and_stdout_is_the_report(tmp_path):
    path = _campaign(tmp_path / "c", 3)
    # the command's entry point in this process: what it prints is checked, not its
    # interpreter (a second one cost ~0.5 s of CPU of imports); Ctrl-C below is a process's
    done = llgui_in_process(["campaign", str(path), "--out", str(tmp_path / "out"), "--format",
                             "json", "--workers", "0"], LLGUI_CACHE_DIR=str(tmp_path / "cache"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["systems"]
    lines = done.stderr.splitlines()
    assert lines[0] == f"llgui campaign: reading {path}"
    assert lines[1] == "llgui campaign: running in this process (--workers 0)"
    # s0 and s2 give the same output: scored once (issue 32)
    assert lines[-2] == ("llgui campaign: 3 cells: 0 from the cache, 3 computed (2 files "
                         "scored: cells of the same content are scored once)")
    assert lines[-1] == (f"llgui campaign: writing {tmp_path / 'out'} (3 lifelong tables and "
                         f"campaign.json)")


def test_ctrl_c_while_writing_is_a_clean_exit(tmp_path):
    path = _campaign(tmp_path / "c", 1000)   # 1,001 files to write: never done at once
    child = subprocess.Popen([sys.executable, "-m", "llgui", "campaign", str(path), "--out",
                              str(tmp_path / "out"), "--workers", "0"], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "LLGUI_CACHE_DIR": str(tmp_path / "cache")})
    seen = []
    for line in child.stderr:
        seen.append(line)
        if "writing" in line:
            child.send_signal(signal.SIGINT)
            break
    rest = child.stderr.read()
    assert child.wait(timeout=60) == 2, "".join(seen) + rest
    assert "llgui campaign: interrupted by SIGINT; nothing more was done" in rest
    assert "Traceback" not in rest


def test_ctrl_c_while_scoring_says_what_is_kept(tmp_path, monkeypatch):
    # Ctrl-C as the third cell's count arrives (a KeyboardInterrupt in the main thread, as
    # the signal handler raises it): the line says what the stopped run left, and a rerun
    # finds exactly that in the cache (outsider helper-58: "nothing more was done" alone)
    root = tmp_path / "c"
    path = _campaign(root, 6)
    for s in range(6):   # six different outputs: six files scored, one at a time
        (root / f"s{s}" / "M0" / "b0.txt").write_text(
            "".join(f"the cat {i + s} sat\n" for i in range(5)))
    from llgui.cli import progress

    counted = progress.CellProgress.__call__

    def interrupted(self, done, total):
        counted(self, done, total)
        if done == 2:
            raise KeyboardInterrupt()

    monkeypatch.setattr(progress.CellProgress, "__call__", interrupted)
    cache = str(tmp_path / "cache")
    stopped = llgui_in_process(["campaign", str(path), "--workers", "0"], LLGUI_CACHE_DIR=cache)
    assert stopped.returncode == 2 and not stopped.stdout
    assert stopped.stderr.splitlines()[-1] == (
        "llgui campaign: interrupted; 2 of 6 cells done, kept in the cache (a rerun scores "
        "only the 4 left); nothing more was done")
    monkeypatch.setattr(progress.CellProgress, "__call__", counted)
    rerun = llgui_in_process(["campaign", str(path), "--workers", "0"], LLGUI_CACHE_DIR=cache)
    assert rerun.returncode == 0, rerun.stderr
    assert "llgui campaign: 6 cells: 2 from the cache, 4 computed" in rerun.stderr
