"""What the machine charges for memory a step touches after a reader's pause (gates 9, 14).

A step is timed at a reader's pace, after a pause. On a virtual machine whose host tracks
its guests' page accesses, the first touch of a page after such a pause costs microseconds
(`llgui.utils.huge_pages`): the same window step then takes 2-3 times as long as on the
machine the limits were set on. The gates print this probe beside their figures, so that a
slow step can be told from a slow host: 16,384 pages of 4 KiB touched (one byte each, in a
shuffled order) once at once and once after a pause, and the same on 2-MiB pages.
"""
from __future__ import annotations

import mmap
import os
import time

import numpy as np

PAGES = 16_384
PAUSE_S = 0.3


def _touch_ms(huge: bool, pause: float) -> float:
    size = PAGES * 4096
    region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        if huge and hasattr(mmap, "MADV_HUGEPAGE"):
            region.madvise(mmap.MADV_HUGEPAGE)
        data = np.frombuffer(region, dtype=np.uint8)
        order = np.random.default_rng(0).permutation(PAGES) * 4096
        data[order] = 1   # every page present
        best = float("inf")
        for _ in range(3):
            data[order].sum()
            time.sleep(pause)
            start = time.perf_counter()
            data[order].sum()
            best = min(best, time.perf_counter() - start)
        del data
        return 1e3 * best
    finally:
        region.close()


def page_probe() -> str:
    """One line: the probe's times, at once and after a pause, on small and huge pages."""
    at_once, paused = _touch_ms(False, 0.0), _touch_ms(False, PAUSE_S)
    from llgui.utils.huge_pages import wanted

    huge = _touch_ms(True, PAUSE_S)
    heap = ("moved onto huge pages once loaded (llgui.utils.huge_pages)" if wanted(os.environ)
            else "on the system's pages (huge pages off or not available)")
    return (f"this machine: {PAGES:,} memory pages touched {PAUSE_S:g} s after the last "
            f"time {paused:.1f} ms (at once {at_once:.1f} ms; on 2-MiB pages {huge:.1f} ms): "
            f"a step after a reader's pause pays for each page it touches; the window's "
            f"heap is {heap}")


ROWS, COLUMNS = 41, 11   # a steps table of 40 steps and step 0, as gate 14's documents have


def _bare_table_steps(pace: float, keys: int) -> list[float]:
    """In this (fresh) process: a bare QTableWidget of the steps table's shape in a window of
    gate 14's size, stepped with the Down key at `pace`, each key timed (main-thread CPU) until
    the table has repainted."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import (
        QAbstractItemView, QApplication, QMainWindow, QTableWidget, QTableWidgetItem,
    )

    app = QApplication.instance() or QApplication([])
    window = QMainWindow()
    table = QTableWidget(ROWS, COLUMNS)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    for row in range(ROWS):
        for column in range(COLUMNS):
            table.setItem(row, column, QTableWidgetItem(f"{row}.{column} 12.34"))
    window.setCentralWidget(table)
    window.resize(1500, 950)
    window.show()
    table.setFocus()
    table.setCurrentCell(0, 0)
    app.processEvents()
    from llgui.utils.huge_pages import collapse

    collapse()   # as the window does once loaded (`llgui.gui.window.huge_pages`)
    times = []
    for _ in range(keys):
        end = time.perf_counter() + pace
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)
        start = time.thread_time()
        QTest.keyClick(table, Qt.Key.Key_Down)
        app.processEvents()
        times.append(time.thread_time() - start)
    return times


def bare_table_step(pace: float, keys: int = 20) -> float:
    """The median Down key of a bare Qt table at `pace` (ms of main-thread CPU), in a fresh
    process, its memory moved onto huge pages as the window's is: what Qt alone costs a step
    here."""
    import json
    import statistics
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-m", "benchmarks.machine", str(pace), str(keys)],
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"bare table step failed:\n{done.stderr[-2000:]}")
    return 1e3 * statistics.median(json.loads(done.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(_bare_table_steps(float(sys.argv[1]), int(sys.argv[2]))))
