"""The window's memory moved onto huge pages once its loads are over (`llgui.utils.huge_pages`,
issue 36): on a thread of its own, while the user reads, never in a step."""
from __future__ import annotations

import os
import threading

from PySide6.QtCore import QObject, QTimer

from llgui.utils.huge_pages import collapse, wanted

QUIET_MS = 700
"""The window has had no load (bundles, a document, a background job) for this long: what it
loaded is moved. A user's first key after opening comes later than this."""


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
        self._thread.start()

    def _run(self) -> None:
        self.taken = collapse(self._stop.is_set)
        self.runs += 1

    def stop(self, wait_s: float = 1.0) -> None:
        """No collapse after this; one under way ends within its chunk (`CHUNK`)."""
        self._stop.set()
        self._timer.stop()
        if self._thread is not None:
            self._thread.join(wait_s)
