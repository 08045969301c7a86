"""The window restarts with its heap on huge pages and gives its children the user's
environment back (`llgui.utils.huge_pages`, issue 36)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llgui.utils import huge_pages as hp

LINUX_GLIBC = sys.platform == "linux" and __import__("platform").libc_ver()[0] == "glibc"


def test_the_restart_adds_the_settings_and_keeps_the_users_other_tunables():
    user = {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2", "HOME": "/h"}
    env = hp.restart_environ(user)
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"
    assert env["PYTHONMALLOC"] == "malloc" and env["HOME"] == "/h"
    assert json.loads(env[hp.MARK]) == {"GLIBC_TUNABLES": user["GLIBC_TUNABLES"],
                                        "PYTHONMALLOC": None}
    assert user == {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2", "HOME": "/h"}   # untouched


def test_the_users_own_memory_settings_are_kept():
    """An outsider's debug allocator became 'malloc' and their hugetlb=0 became 1: a setting
    the user made is theirs."""
    env = hp.restart_environ({"PYTHONMALLOC": "debug", "HOME": "/h"})
    assert env["PYTHONMALLOC"] == "debug" and env["GLIBC_TUNABLES"] == hp.TUNABLE
    env = hp.restart_environ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"})
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.hugetlb=0" and env["PYTHONMALLOC"] == "malloc"
    both = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0", "PYTHONMALLOC": "pymalloc"}
    assert hp.wanted(both) is False   # nothing left to set: no restart


@pytest.mark.parametrize("user", [
    {"HOME": "/h"},
    {"HOME": "/h", "PYTHONMALLOC": "pymalloc_debug", "GLIBC_TUNABLES": "glibc.mem.tagging=1"},
    {"HOME": "/h", "GLIBC_TUNABLES": ""},
])
def test_the_restarted_process_puts_the_environment_back_as_it_was(user):
    env = hp.restart_environ(user)
    assert hp.restore_environ(env) is True
    assert env == user


def test_a_mark_that_is_not_ours_changes_nothing_else():
    for raw in ("not json", "[1, 2]", '{"PYTHONMALLOC": 7}'):
        env = {hp.MARK: raw, "PYTHONMALLOC": "malloc", "GLIBC_TUNABLES": "x=1"}
        hp.restore_environ(env)
        assert env == {"PYTHONMALLOC": "malloc", "GLIBC_TUNABLES": "x=1"}
    assert hp.restore_environ({"HOME": "/h"}) is False   # not restarted


def test_when_the_restart_is_wanted():
    assert hp.wanted({}) is LINUX_GLIBC
    for off in ("0", "off", " No ", "FALSE"):
        assert hp.wanted({hp.SWITCH: off}) is False      # turned off
    assert hp.wanted({hp.SWITCH: "1"}) is LINUX_GLIBC
    assert hp.wanted({hp.MARK: "{}"}) is False           # restarted already: never a loop
    assert hp.wanted(hp.restart_environ({})) is False


@pytest.mark.skipif(not LINUX_GLIBC, reason="huge pages: Linux with glibc only")
def test_a_command_restarts_once_on_huge_pages_and_its_child_gets_the_users_environment(
        tmp_path: Path):
    """A script that does what the window's launcher does (`llgui.__main__.main`): restored
    or restarted, then a child process started. The restarted process ran with the settings,
    its malloc'd memory is on huge pages where the kernel gives them (not 'never'), and the
    child sees the user's environment."""
    script = tmp_path / "launch.py"
    script.write_text(textwrap.dedent("""
        import json, os, subprocess, sys
        from llgui.utils import huge_pages as hp
        seen = {k: os.environ.get(k) for k in ("PYTHONMALLOC", "GLIBC_TUNABLES")}
        restarted = hp.restore_environ(os.environ)
        if not restarted:
            hp.restart_on_huge_pages()
        block = bytearray(64 << 20)   # malloc'd, touched
        block[::4096] = b"x" * len(block[::4096])
        huge = sum(int(l.split()[1]) for l in open("/proc/self/smaps_rollup")
                   if l.startswith("AnonHugePages"))
        child = subprocess.run([sys.executable, "-c", "import os, json; print(json.dumps("
                                "{k: os.environ.get(k) for k in ('PYTHONMALLOC', "
                                "'GLIBC_TUNABLES', 'LLGUI_ENVIRON_BEFORE')}))"],
                               capture_output=True, text=True, check=True)
        print(json.dumps({"restarted": restarted, "seen": seen, "huge_kb": huge,
                          "pid": os.getpid(), "child": json.loads(child.stdout)}))
    """))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONMALLOC", "GLIBC_TUNABLES", hp.MARK, hp.SWITCH)}
    env["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=4"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["restarted"] is True
    assert out["seen"] == {"PYTHONMALLOC": "malloc",
                           "GLIBC_TUNABLES": "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1"}
    assert out["child"] == {"PYTHONMALLOC": None, "GLIBC_TUNABLES": "glibc.malloc.arena_max=4",
                            "LLGUI_ENVIRON_BEFORE": None}
    mode = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if mode.is_file() and "[never]" not in mode.read_text():
        assert out["huge_kb"] >= 2048   # at least one 2-MiB page under the 64 MiB

    env[hp.SWITCH] = "0"   # turned off: the same script runs as started
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["restarted"] is False and out["seen"]["PYTHONMALLOC"] is None
