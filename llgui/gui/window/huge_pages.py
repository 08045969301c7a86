"""The window's memory moved onto huge pages once its loads are over (`llgui.utils.huge_pages`,
issue 36): on a thread of its own, while the user reads, never in a step."""
from __future__ import annotations

import os
import threading
import time

from PySide6.QtCore import QObject, QTimer

from llgui.utils.huge_pages import HUGE, collapse, wanted

QUIET_MS = 700
"""The window has had no load (bundles, a document, a background job) for this long: what it
loaded is moved. A user's first key after opening comes later than this."""
BEAT_MS = 10
"""While memory is moved, the event loop beats this often (a timer)..."""
BEAT_LATE = 0.02
"""...and a beat this late (seconds) means a turn of the event loop is running (a step, a
paint): the move waits between huge pages until it beats again. The kernel's copy of a
page holds the page faults of every thread of the process: moved at full pace beside a
10-hour show's first step into its split view, it held the step's turn of the event loop
for 100-200 ms of wall-clock time (60-80 ms of it CPU).

The move also waits after each page for a beat that came after it: a page's copy that
holds the event loop's thread holds its beat too, so a beat a few milliseconds old said
"on time" while the thread waited, and 4-5 pages of 5-6 ms went on back to back (gate 9's
10^5-sentence window: gaps of 22-27 ms wall with 2 ms of CPU; on a machine whose pages
took 8.6 ms in the median, 55-65 ms). One page per turn of the event loop at most: a turn
waits for one page's copy, not for several."""
WAIT_LIMIT = 1.0
"""Seconds the move waits at most between two huge pages (a window that never rests slows
it down, never stops it)."""


class HeapCollapse(QObject):
    """`poke()` at each load; QUIET_MS after the last one, with no job running, the process's
    anonymous memory is collapsed onto huge pages on a thread (about 0.3 s of one core for
    100 MB the first time; what is on huge pages already is passed over)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.runs = 0        # collapses finished (for tests)
        self.taken = 0       # bytes the kernel took in the last one
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(QUIET_MS)
        self._timer.timeout.connect(self._start)
        self.enabled = wanted(os.environ)
        self._beat = [time.monotonic()]
        self._beat_timer = QTimer(self)
        self._beat_timer.setInterval(BEAT_MS)
        self._beat_timer.timeout.connect(self._on_beat)

    def poke(self, *_args) -> None:
        if self.enabled and not self._stop.is_set():
            self._timer.start()   # (restarted: the wait is counted from the last load)

    def _start(self) -> None:
        jobs = getattr(self.window, "jobs", None)
        if jobs is not None and (jobs.busy or jobs.holding):
            self._timer.start()   # still loading: what it loads is moved with the rest
            return
        if self._thread is not None and self._thread.is_alive():
            self._timer.start()
            return
        self._thread = threading.Thread(target=self._run, name="llgui-huge-pages",
                                        daemon=True)
        self._on_beat()
        self._beat_timer.start()
        self._thread.start()

    def _on_beat(self) -> None:
        self._beat[0] = time.monotonic()
        if self._thread is not None and not self._thread.is_alive():
            self._beat_timer.stop()

    def _checkpoint(self) -> bool:
        """(the move's thread, before each huge page) Wait for a beat of the event loop after
        the last page (`BEAT_LATE`), and while the window draws: its beat is late, or its jobs
        are hushed for a step (`JobRunner.hush`). True to stop."""
        jobs = getattr(self.window, "jobs", None)
        quiet = getattr(jobs, "quiet", None)
        moved = time.monotonic()    # the last page's copy ended (if there was one)
        deadline = moved + WAIT_LIMIT
        while not self._stop.is_set() and time.monotonic() < deadline:
            beat = self._beat[0]
            if beat > moved and time.monotonic() - beat <= BEAT_LATE and (
                    quiet is None or quiet.is_set()):
                break
            time.sleep(0.005)
        return self._stop.is_set()

    def _run(self) -> None:
        # a huge page at a time: a step that begins while the kernel copies waits for one
        # page (a few ms), not for the 8 MiB `collapse` asks at a time elsewhere
        self.taken = collapse(self._checkpoint, chunk=HUGE)
        self.runs += 1

    def stop(self, wait_s: float = 1.0) -> None:
        """No collapse after this; one under way ends within its chunk (`CHUNK`)."""
        self._stop.set()
        self._timer.stop()
        if self._thread is not None:
            self._thread.join(wait_s)
