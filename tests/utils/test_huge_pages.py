"""The window's memory moved onto huge pages once loaded, on a thread of its own
(`llgui.utils.huge_pages`, `llgui.gui.window.huge_pages`, issue 36)."""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llgui.utils import huge_pages as hp

MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")
RELEASE = re.match(r"(\d+)\.(\d+)", platform.release())
CAPABLE = (sys.platform == "linux" and MODE.is_file() and "[never]" not in MODE.read_text()
           and RELEASE is not None and tuple(map(int, RELEASE.groups())) >= (6, 1))
MIB = 1 << 20

MAPS = """\
55d0c8a00000-55d0c8a21000 r--p 00000000 08:01 131 /usr/bin/python3.11
55d0c9200000-55d0cf400000 rw-p 00000000 00:00 0 [heap]
7f0a10000000-7f0a10a00000 rw-p 00000000 00:00 0
7f0a20100000-7f0a20300000 rw-p 00000000 00:00 0
7f0a20100000-7f0a20200000 rw-p 00000000 00:00 0
7f0a30000000-7f0a30800000 rw-s 00000000 00:05 7 /dev/shm/x
7f0a40000000-7f0a40800000 rw-p 00000000 08:01 9 /usr/lib/libQt6Gui.so.6
7f0a50000000-7f0a50800000 r-xp 00000000 00:00 0
7ffd00000000-7ffd00800000 rw-p 00000000 00:00 0 [stack]
garbage line
"""


def test_the_ranges_moved_are_the_aligned_parts_of_private_anonymous_memory():
    # [heap]: 0x...9200000-0x...f400000, aligned already; the anonymous 10 MiB, aligned;
    # 0x7f0a20100000-0x7f0a20300000 holds no whole aligned 2 MiB (its inside is 1 MiB each
    # side of 0x7f0a20200000): nothing; shared memory, files, code and the stack: nothing
    assert hp.anonymous_ranges(MAPS) == [(0x55D0C9200000, 0x55D0CF400000),
                                         (0x7F0A10000000, 0x7F0A10A00000)]


def test_when_memory_is_moved():
    on = sys.platform == "linux" and MODE.is_file() and "[never]" not in MODE.read_text()
    assert hp.wanted({}) is on
    for off in ("0", "off", " No ", "FALSE"):
        assert hp.wanted({hp.SWITCH: off}) is False
    assert hp.wanted({hp.SWITCH: "1"}) is on


@pytest.mark.skipif(not CAPABLE, reason="needs Linux >= 6.1 with transparent huge pages")
def test_a_process_memory_lands_on_huge_pages_and_the_switch_keeps_it_off(tmp_path):
    """In a fresh process: 64 MiB of Python objects and a 64 MiB buffer, then `collapse`:
    the kernel's own count of the process's anonymous huge pages (smaps_rollup) grows by at
    least half of it; with LLGUI_HUGE_PAGES=0 nothing is moved."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent("""
        import json
        from llgui.utils import huge_pages as hp
        objects = [str(i) * 8 for i in range(800_000)]     # pymalloc's arenas and the heap
        block = bytearray(64 << 20)
        block[::4096] = b"x" * len(block[::4096])
        before = hp.huge_bytes()
        taken = hp.collapse()
        print(json.dumps({"before": before, "taken": taken, "after": hp.huge_bytes()}))
    """))
    env = {k: v for k, v in os.environ.items() if k != hp.SWITCH}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])

    def run(**extra) -> dict:
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env={**env, **extra}, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    moved = run()
    assert moved["taken"] >= 64 * MIB
    assert moved["after"] - moved["before"] >= 64 * MIB
    off = run(LLGUI_HUGE_PAGES="0")
    assert off["taken"] == 0 and off["after"] == off["before"]


@pytest.mark.skipif(not CAPABLE, reason="needs Linux >= 6.1 with transparent huge pages")
def test_the_window_moves_its_memory_once_loaded_and_not_in_a_step(qtbot, monkeypatch):
    """The demo opened: QUIET_MS after the loads, with no job running, one collapse on a
    thread of its own, not the GUI thread; closing the window stops it."""
    import threading

    monkeypatch.setenv(hp.SWITCH, "1")
    from llgui.gui.main_window import MainWindow
    from llgui.gui.window import huge_pages as window_pages
    from tests.conftest import REPO

    threads = []
    real = window_pages.collapse
    monkeypatch.setattr(window_pages, "collapse", lambda stop, **kw: (
        threads.append(threading.current_thread()), real(stop, **kw))[1])
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    try:
        assert window.huge_pages.enabled
        window.open_bundles([REPO / "resources" / "demo" / "mt" / "bundle.toml"])
        qtbot.waitUntil(lambda: window.huge_pages.runs >= 1, timeout=60000)
        assert threads and threads[0] is not threading.main_thread()
        assert window.huge_pages.taken >= 2 * MIB and hp.huge_bytes() >= 2 * MIB
    finally:
        window.close()
    assert window.huge_pages._stop.is_set()


def test_the_windows_of_the_tests_leave_memory_alone(qtbot):
    """conftest turns it off for the suite (each window's collapse is CPU the suite needs)."""
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    try:
        assert window.huge_pages.enabled is False
        window.huge_pages.poke()
        assert not window.huge_pages._timer.isActive()
    finally:
        window.close()


def test_simulate_moves_each_document_on_a_thread_of_its_own(tmp_path, monkeypatch):
    """`llgui simulate`'s session asks for the collapse once a document is set up (its steps
    come after the system's replies); at most one thread at a time, none when turned off."""
    import threading

    from llgui.io.bundle import load_bundle
    from llgui.sim import driver
    from llgui.sim.oracles import make_oracle
    from tests.conftest import REPO

    started = []
    monkeypatch.setattr(driver, "collapse_in_background",
                        lambda: started.append(threading.current_thread()))
    bundle = load_bundle(REPO / "resources" / "demo" / "diarization" / "bundle.toml")
    session = driver.Session(bundle, [sys.executable, "-m", "llgui.systems.diar_clusters"],
                             make_oracle("worst-first"), tmp_path / "out", budget=5.0,
                             timeout=120.0)
    try:
        session.start()
        session.begin_document(0)
        assert len(started) == 1
    finally:
        session.close()

    release = threading.Event()
    monkeypatch.setattr(hp, "collapse", lambda *_: release.wait(10))
    monkeypatch.setenv(hp.SWITCH, "1")
    if hp.wanted(os.environ):
        first = hp.collapse_in_background()
        assert first is not None and hp.collapse_in_background() is None   # one at a time
        release.set()
        first.join(10)
    monkeypatch.setenv(hp.SWITCH, "0")
    assert hp.collapse_in_background() is None


def test_the_window_move_waits_between_huge_pages_while_the_window_draws(qtbot, monkeypatch):
    """The move's checkpoint (before each huge page) waits while the window's jobs are hushed
    for a step, and while the event loop's beat is late (a long turn: a step, a paint); it
    goes on once the window is quiet, and says stop once the window closes."""
    import threading
    import time

    from PySide6.QtCore import QObject

    from llgui.gui.window import huge_pages as window_pages

    monkeypatch.setenv(hp.SWITCH, "1")
    owner = QObject()
    owner.jobs = type("Jobs", (), {"quiet": threading.Event()})()
    move = window_pages.HeapCollapse(owner)
    done: list = []

    def checkpoint_in_a_thread():
        done.clear()
        thread = threading.Thread(target=lambda: done.append(move._checkpoint()))
        thread.start()
        return thread

    move._beat[0] = time.monotonic() + 60        # the beat on time throughout
    thread = checkpoint_in_a_thread()            # hushed: waits
    time.sleep(0.15)
    assert not done
    owner.jobs.quiet.set()
    thread.join(2)
    assert done == [False]
    move._beat[0] = time.monotonic() - 1         # a long turn of the event loop: waits
    thread = checkpoint_in_a_thread()
    time.sleep(0.15)
    assert not done
    move._beat[0] = time.monotonic() + 60
    thread.join(2)
    assert done == [False]
    owner.jobs.quiet.clear()
    thread = checkpoint_in_a_thread()
    move.stop()                                  # the window closes: no wait, stop
    thread.join(2)
    assert done == [True]


def test_the_window_move_takes_one_huge_page_per_turn_of_the_event_loop(monkeypatch):
    """After a page, the move waits for a beat of the event loop that came after it, however
    fresh the last beat: a page's copy holds the event loop's thread, and with it its beat
    (gate 9: 4-5 pages of 5-6 ms went on back to back while the thread waited, a gap of
    22-27 ms with 2 ms of CPU)."""
    import threading
    import time

    from PySide6.QtCore import QObject

    from llgui.gui.window import huge_pages as window_pages

    monkeypatch.setenv(hp.SWITCH, "1")
    owner = QObject()
    owner.jobs = type("Jobs", (), {"quiet": threading.Event()})()
    owner.jobs.quiet.set()
    move = window_pages.HeapCollapse(owner)
    done: list = []
    move._beat[0] = time.monotonic() - 0.005     # 5 ms old: on time, but before the page
    thread = threading.Thread(target=lambda: done.append(move._checkpoint()))
    thread.start()
    time.sleep(0.15)
    assert not done                              # waits for a beat after the last page
    move._beat[0] = time.monotonic() + 0.001
    thread.join(2)
    assert done == [False]
