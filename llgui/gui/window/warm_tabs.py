"""Tabs made ahead of their first show, while the user reads another one (issue 36).

The Across time tab builds its widgets when it is first shown (the window's start-up does
not pay for them), and draws what they show when it is shown after a change. On the demo,
the first switch to it held the event loop 180-260 ms: five pyqtgraph plots built (about
100 ms), then filled (about 60 ms), then painted, in one turn. DESIGN.md section 5 (gate 9)
lets no action hold it past 100 ms.

`TabWarmer` waits until the window has had nothing to do for `QUIET_MS` (no load, no job, no
step: the user is reading), then asks each tab that can (`warm_step()`) for one small part at
a time, one part per turn of the event loop, `GAP_MS` apart: a key pressed meanwhile waits
for one part (a plot built: 20-35 ms here), never for the whole tab. Any activity (a step, a
load, a job) stops it until the next quiet spell; a tab shown meanwhile builds what is left
itself, as before. Drawn ahead, the first switch holds the event loop 60-70 ms.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

QUIET_MS = 1500
"""The window has had no load, job or step for this long: the user is reading."""

GAP_MS = 15
"""Between two parts: the event loop's other work (a key, a paint) goes first."""


class TabWarmer(QObject):
    """`poke()` at each load, step and job; QUIET_MS after the last one, `tabs` are asked for
    `warm_step()` one call at a time until each says it has nothing left."""

    def __init__(self, window, tabs) -> None:
        super().__init__(window)
        self.window = window
        self.tabs = list(tabs)
        self.parts = 0            # parts made ahead so far (for tests)
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(QUIET_MS)
        self._quiet.timeout.connect(self._step)
        self._next = QTimer(self)
        self._next.setSingleShot(True)
        self._next.setInterval(GAP_MS)
        self._next.timeout.connect(self._step)

    def poke(self, *_args) -> None:
        self._next.stop()
        self._quiet.start()       # (restarted: counted from the last activity)

    def _busy(self) -> bool:
        jobs = getattr(self.window, "jobs", None)
        return jobs is not None and bool(getattr(jobs, "busy", False))

    def _step(self) -> None:
        if self._busy():
            self._quiet.start()
            return
        for tab in self.tabs:
            if tab.warm_step():
                self.parts += 1
                self._next.start()
                return
        # nothing left: the next activity arms the wait again
