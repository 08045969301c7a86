"""Issue 38: hostile input on the newest surfaces, each case as an outsider meets it, through
real subprocesses of `llgui` (its exit code and stderr are the contract).

1. a WAV whose header lies is the documented warning in `score` and `simulate` (the window
   and the live session: tests/gui/test_audio.py, tests/gui/live/test_listen.py);
2. two `simulate` runs into one `--out`: the second is refused, naming the first;
3. a write that fails (a file-size limit, /dev/full) is exit 2 with the reason, never exit 0
   with a truncated report, never a traceback;
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.meeting_audio import write_lying_wav, write_meeting

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def llgui(*args: str, stdout=subprocess.PIPE, preexec_fn=None, timeout: float = 240,
          env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llgui", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, cwd=ROOT,
                          preexec_fn=preexec_fn, env={**os.environ, **(env or {})})


# -- 1. a WAV whose header lies ---------------------------------------------------------------


@pytest.fixture(scope="module")
def lying(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lying")
    bundle = write_meeting(folder, audio="lying.wav")
    write_lying_wav(folder / "lying.wav")
    return bundle


WARNING = ("warning: document 'meeting': audio file 'lying.wav' is cut short: its header "
           "announces more bytes than the file")


def test_score_warns_of_a_lying_wav_and_scores(lying):
    run = llgui("score", lying, "--metric", "der", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert f"{lying}:10: {WARNING}" in run.stderr and "internal error" not in run.stderr
    assert json.loads(run.stdout)["metrics"]["der"]["score"] > 0


def test_simulate_warns_of_a_lying_wav_and_runs(lying, tmp_path):
    run = llgui("simulate", lying, "--system", "diar_clusters", "--oracle", "worst-first",
                "--budget", "5", "--out", tmp_path / "run", "--quiet")
    assert run.returncode == 0, run.stderr
    assert WARNING in run.stderr and "Traceback" not in run.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["documents"]
