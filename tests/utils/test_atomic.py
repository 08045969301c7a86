"""Atomic writes: no stale temporary files after kills, the umask respected (issue 9, item 8)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from llgui.utils.atomic import clean_stale, write_atomic
from tests.conftest import REPO

posix = pytest.mark.skipif(os.name != "posix", reason="umask and kill -9 are POSIX")


def _temps(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@posix
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_the_umask_decides_the_mode(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "out.json", "{}\n")
    finally:
        os.umask(old)
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == mode


@posix
def test_a_killed_writer_leaves_nothing_behind_after_the_next_write(tmp_path):
    target = tmp_path / "session.json"
    writer = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from llgui.utils.atomic import write_atomic
        data = b"x" * (8 << 20)
        print("ready", flush=True)
        while True:
            write_atomic({str(target)!r}, data)
    """)
    killed = 0
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE)
        proc.stdout.readline()
        time.sleep(0.15)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()
        killed += 1
    # a temporary file of a live process is never touched: make one for ourselves
    own = tmp_path / f".session.json.{os.getpid()}.abcdef.tmp"
    own.write_bytes(b"in progress")
    # a killed writer's leftover, made for certain (the kills above may land after a rename)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    (tmp_path / f".session.json.{dead}.0123456789ab.tmp").write_bytes(b"half")
    write_atomic(target, "{}\n")
    assert _temps(tmp_path) == [own.name]
    assert target.read_text() == "{}\n"
    assert clean_stale(target) == 0


def test_clean_stale_ignores_other_files(tmp_path):
    for name in (".other.json.1.ab.tmp", "session.json.tmp", ".session.json.x.ab.tmp"):
        (tmp_path / name).write_text("keep")
    assert clean_stale(tmp_path / "session.json") == 0
    assert len(_temps(tmp_path)) == 3
