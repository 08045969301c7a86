"""A bundle of 1,000 documents opens on a worker: the event loop stays live, Cancel stops it.

A 10 ms precise QTimer on the main thread records its ticks while the window loads the
bundle and scores it; the largest gap between ticks is the worst stall (DESIGN.md 5, gate 9:
no action blocks the event loop for more than 100 ms). Between two ticks, the main thread's
own CPU time is what the event loop did; the gap as `tests.gui.stall.MainThreadClock`
measures it adds every wait on something of ours (the GIL held by a worker, a lock) and
leaves out only the time the OS kept the thread runnable but off a core (other processes on
this shared 2-core machine, the other test worker). The CPU time is asserted (it holds on a
loaded machine); the wall-clock gap is gate 9's, on a quiet one, and only reported here. The bundle is
generated in a temp dir.
"""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt, QTimer

from benchmarks.synthetic import write_mt_bundle
from tests.gui.stall import LOADED_BUSY_LIMIT, MainThreadClock

N_DOCUMENTS = 1000


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    return write_mt_bundle(tmp_path_factory.mktemp("many"), N_DOCUMENTS)


@pytest.fixture
def window(qtbot):
    from llgui.gui.main_window import MainWindow

    w = MainWindow(use_session=False)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.jobs.shutdown(2000)


class Ticks:
    """Main-thread ticks every 10 ms: the largest gap between two (wall clock less the OS's
    run-queue wait), and the most main-thread CPU time spent between two."""

    def __init__(self):
        self.clock = MainThreadClock(time.perf_counter())
        self.gaps: list[float] = []
        self.times = [(time.perf_counter(), time.thread_time())]
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(self.clock.gap(now))
        self.times.append((now, time.thread_time()))

    def worst(self) -> tuple[float, float]:
        self.timer.stop()
        self._tick()
        pairs = list(zip(self.times, self.times[1:]))
        return max(self.gaps), max(b[1] - a[1] for a, b in pairs)


def test_a_thousand_documents_load_and_score_without_stalling(qtbot, window, many):
    ticks = Ticks()
    started = window.open_bundles([many])
    assert started
    assert window.cancel_load_button.isVisible(), "a big bundle loads on a worker"
    qtbot.waitUntil(lambda: bool(window.state.bundles), timeout=60000)
    assert window.documents_model.rowCount() == N_DOCUMENTS
    assert not window.cancel_load_button.isVisible()
    # the documents' scores arrive from the collection job
    s_pen = window.documents_model.COLUMNS.index("S_pen")
    last = window.documents_model.index(N_DOCUMENTS - 1, s_pen)
    qtbot.waitUntil(lambda: last.data() != "…" and not window.jobs.busy, timeout=120000)
    wall, cpu = ticks.worst()
    # The event loop's own work is bounded whatever the load; its wall-clock stalls grow with
    # the machine's load and are gate 9's (a 1,000-document bundle on a quiet machine).
    assert cpu <= LOADED_BUSY_LIMIT, (f"the event loop worked {cpu * 1e3:.0f} ms without a break "
                                  f"(longest wall-clock gap {wall * 1e3:.0f} ms)")
    # the first document is selected and stepped through like any other
    assert window.state.selection.doc == "d000000"


def test_cancel_stops_the_load(qtbot, window, many, monkeypatch):
    import llgui.io.bundle as bundle_module

    built = []
    original = bundle_module._Doc.build

    def counting(self, *args):
        built.append(1)
        return original(self, *args)

    monkeypatch.setattr(bundle_module._Doc, "build", counting)
    window.open_bundles([many])
    qtbot.waitUntil(lambda: len(built) >= 20, timeout=30000)
    qtbot.mouseClick(window.cancel_load_button, Qt.MouseButton.LeftButton)
    assert not window.cancel_load_button.isVisible()
    qtbot.waitUntil(lambda: window.jobs.pool.activeThreadCount() == 0, timeout=10000)
    assert len(built) < N_DOCUMENTS, "the loader went on after Cancel"
    qtbot.wait(50)   # a late result of the cancelled job would arrive now
    assert window.state.bundles == []
    assert window.documents_model.rowCount() == 0
