"""`keep_freed_memory`: a window's job that frees large arrays finds the same pages at its
next run (no page faults), where glibc gave them back to the system and the next run touched
fresh ones (issue 36: a DET of 10^6 trials took 67 or 220 ms by turns)."""
from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from llgui.utils.heap import keep_freed_memory

_PROBE = r"""
import resource, sys, threading
import numpy as np
if sys.argv[1] == "keep":
    from llgui.utils.heap import keep_freed_memory
    assert keep_freed_memory({})
faults = []

def job():
    for _ in range(4):   # a job run four times on a worker thread, as the window's DET
        before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
        arrays = [np.ones(1 << 20) for _ in range(6)]   # six 8-MB arrays, touched
        del arrays
        faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)

thread = threading.Thread(target=job)
thread.start()
thread.join()
print(faults[-1])
"""


def _last_run_faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="glibc's malloc only")
def test_a_repeated_job_touches_no_new_page_once_memory_is_kept():
    given_back = _last_run_faults("default")
    kept = _last_run_faults("keep")
    assert given_back >= 500, f"glibc kept the arrays already ({given_back} faults)"
    assert kept <= given_back // 20, (kept, given_back)


@pytest.mark.parametrize("value", ["0", "off", "No", " FALSE "])
def test_the_switch_turns_it_off(value):
    assert keep_freed_memory({"LLGUI_KEEP_FREED": value}) is False
