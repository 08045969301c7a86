"""Background jobs: a thread pool where the newest request per key wins.

A job is a plain function of the core (`fn(*args, progress=..., should_stop=...)`, see
`llgui.core.jobs`). `JobRunner.submit(key, fn, ...)` runs it on a pool thread; submitting again
under the same key asks the older job to stop and drops its result if it still arrives. Results,
errors, progress and cancellations reach the main thread through queued signals to the
runner's own slots, which forward only what belongs to the newest job of its key. Workers never
touch widgets. `shutdown()` asks every job to stop and waits a bounded time, so closing the
window never hangs on a job.
"""
from __future__ import annotations

import itertools
import sys
import threading
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from llgui.core.jobs import Cancelled


SWITCH_INTERVAL = 0.0002
"""Seconds a thread may hold the GIL while another waits (Python's default is 0.005). The
event loop gives the GIL up at each call into Qt and waits up to this long to have it back
while a job's Python runs: at 0.001 a paint of 7 ms of CPU took 41 ms beside a job (issue 36,
gate 9's 100,000-sentence document: largest event-loop gap 49-64 ms; 37-39 ms at 0.0002). A
job loses throughput only while the event loop is working, not while it waits for input."""


YIELD_SLICE = 0.05
"""Seconds a background job waits at a time for the window to be quiet (a cancel is seen
within this)."""

YIELD_LIMIT = 1.0
"""Seconds a background job waits at most per checkpoint: a user who never stops clicking
slows background work down, never stops it."""
LOOP_SHARE = 0.08
"""The share of a core the event loop's thread may use while a job looks: more (over at
least LOOP_LOOK) means a turn of the event loop is running (a paint, a step, a document's
slice), and the job waits until it is over. Its Python shares the GIL with the event loop,
which gives the GIL up at every call into Qt and waited 0.2-10 ms each time to have it back:
a turn of 22 ms of CPU took 129 ms beside a job (issue 36, gate 9's 100,000-sentence document,
the question values' TER track on a worker). Such a turn, starved, still uses 15-20 % of a
core; an idle loop woken by its timers 1-3 %..."""
LOOP_LOOK = 0.001
"""...measured over this many seconds at least (checkpoints closer together add up)..."""
LOOP_PARK = 0.001
"""...the job then sleeps (the GIL free) this long at a time..."""
LOOP_IDLE = 0.2
"""...until the loop's thread used less than this share of a core in one such sleep..."""
LOOP_WAIT = 0.2
"""...or this many seconds have passed (a job the user waits for is never stopped for
long by a loop that works on)."""

BEAT_MS = 5
"""Where the loop thread's CPU clock cannot be read (`time.pthread_getcpuclockid`: not on
macOS or Windows), the event loop beats this often while jobs run (a timer)..."""
BEAT_LATE = 0.010
"""...and a beat this late (seconds) means a turn of the event loop is running long; jobs
wait at their checkpoints until it beats again (a turn is seen 5-10 ms late)."""


class _LoopWatch:
    """Whether the event loop's thread is at work, as a job sees it at its checkpoints: from
    that thread's CPU clock where it can be read (each look a system call, no GIL handed to
    the loop), else from the beat of a timer in the loop (`BEAT_MS`)."""

    def __init__(self):
        try:
            self.clock = time.pthread_getcpuclockid(threading.main_thread().ident)
            time.clock_gettime(self.clock)
        except (AttributeError, OSError):
            self.clock = None
        self.beat = time.monotonic()   # the beat's time (used without the clock)

    def wait(self, look: tuple | None, stop: threading.Event) -> tuple | None:
        """Wait while the loop works (at most LOOP_WAIT). `look`: the job's last look (wall
        time, the loop thread's CPU clock), None at first; returns the next one."""
        if self.clock is None:
            deadline = time.monotonic() + LOOP_WAIT
            while (time.monotonic() - self.beat > BEAT_LATE and not stop.is_set()
                   and time.monotonic() < deadline):
                time.sleep(0.002)
            return None
        now, cpu = time.monotonic(), time.clock_gettime(self.clock)
        if look is None:
            return now, cpu
        if now - look[0] < LOOP_LOOK:
            return look   # too soon to tell: looked at again at the next checkpoint
        if cpu - look[1] <= LOOP_SHARE * (now - look[0]):
            return now, cpu
        deadline = now + LOOP_WAIT
        while not stop.is_set() and now < deadline:
            time.sleep(LOOP_PARK)   # out of its way: sleeping frees the GIL
            before, wall = cpu, now
            now, cpu = time.monotonic(), time.clock_gettime(self.clock)
            if cpu - before < LOOP_IDLE * (now - wall):
                break
        return now, cpu


class _JobSignals(QObject):
    # Emitted from the pool thread; received (queued) by JobRunner in the main thread.
    finished = Signal(str, int, object)
    failed = Signal(str, int, str, str)
    progressed = Signal(str, int, float)
    cancelled = Signal(str, int)


class _Job(QRunnable):
    PROGRESS_INTERVAL = 0.05  # seconds between progress signals, so a tight loop cannot flood

    def __init__(self, key: str, job_id: int, fn: Callable, args: tuple, kwargs: dict,
                 signals: _JobSignals, stop: threading.Event,
                 quiet: threading.Event | None = None, watch: _LoopWatch | None = None):
        super().__init__()
        self.watch = watch
        self._look = None   # the job's last look at the event loop (`_LoopWatch.wait`)
        self.setAutoDelete(True)
        self.key, self.job_id = key, job_id
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals, self.stop = signals, stop
        self.quiet = quiet   # a background job's: set while the window is not drawing
        self._last_progress = 0.0

    def _yield(self) -> None:
        """A job's checkpoint: while a turn of the event loop runs, wait (without the
        interpreter) until it is over, so that the job's Python does not stretch the event
        loop's (every job: one the user waits for loses at most LOOP_WAIT a checkpoint); a
        background job also waits while the window draws a step or a document."""
        if self.watch is not None:
            self._look = self.watch.wait(self._look, self.stop)
        if self.quiet is None or self.quiet.is_set():
            return
        deadline = time.monotonic() + YIELD_LIMIT
        while (not self.quiet.wait(YIELD_SLICE) and not self.stop.is_set()
               and time.monotonic() < deadline):
            pass

    def _should_stop(self) -> bool:
        self._yield()
        return self.stop.is_set()

    def _progress(self, fraction: float) -> None:
        self._yield()
        now = time.monotonic()
        if fraction >= 1.0 or now - self._last_progress >= self.PROGRESS_INTERVAL:
            self._last_progress = now
            self.signals.progressed.emit(self.key, self.job_id, float(fraction))

    def run(self) -> None:  # noqa: D401 - Qt's name
        try:
            if self.stop.is_set():
                raise Cancelled()
            should_stop = self._should_stop
            result = self.fn(*self.args, progress=self._progress, should_stop=should_stop,
                             **self.kwargs)
            if self.stop.is_set():
                raise Cancelled()
        except Cancelled:
            self.signals.cancelled.emit(self.key, self.job_id)
        except Exception as error:  # the job's error goes to the window, never kills the pool
            message = f"{type(error).__name__}: {error}"
            self.signals.failed.emit(self.key, self.job_id, message, traceback.format_exc())
        else:
            self.signals.finished.emit(self.key, self.job_id, result)


REFUSED = "ChildRefused"
"""The name of `llgui.campaign.child.ChildRefused` (a child process refused its input: the
input's problem, not llgui's), as a job's failure starts ("Type: message"); not imported
here, off the start-up path."""


def refusal(message: str) -> str | None:
    """What a child that refused its input said (`REFUSED`), from a job's failure message;
    None for any other failure (llgui's own)."""
    prefix = REFUSED + ": "
    return message[len(prefix):] if message.startswith(prefix) else None


class JobRunner(QObject):
    """Runs core jobs on a thread pool; per key, only the newest job's outcome is delivered."""

    result_ready = Signal(str, object)      # key, result
    failed = Signal(str, str)               # key, "Type: message"
    progressed = Signal(str, float)         # key, fraction in [0, 1]
    cancelled = Signal(str)                 # key
    busy_changed = Signal(bool)             # any job running

    def __init__(self, parent: QObject | None = None, max_threads: int | None = None):
        super().__init__(parent)
        # Jobs are Python and share the GIL with the event loop, whose every slot, paint and
        # model call needs it back: with the default 5 ms switch interval a painted frame
        # waited up to a second behind two busy workers (`SWITCH_INTERVAL`).
        if sys.getswitchinterval() > SWITCH_INTERVAL:
            sys.setswitchinterval(SWITCH_INTERVAL)
        self.pool = QThreadPool(self)
        if max_threads:
            self.pool.setMaxThreadCount(max_threads)
        self._ids = itertools.count(1)
        self._newest: dict[str, int] = {}
        self._stops: dict[int, threading.Event] = {}
        self._signals = _JobSignals(self)
        self._signals.finished.connect(self._on_job_finished)
        self._signals.failed.connect(self._on_job_failed)
        self._signals.progressed.connect(self._on_job_progressed)
        self._signals.cancelled.connect(self._on_job_cancelled)
        self.last_traceback = ""
        self._held: list[tuple] | None = None
        # background jobs pause at their checkpoints while this is clear (`hush`)
        self._quiet = threading.Event()
        self._quiet.set()
        self._hush_timer = QTimer(self)
        self._hush_timer.setSingleShot(True)
        self._hush_timer.timeout.connect(self._quiet.set)
        # where jobs see the event loop at work (`_LoopWatch`; its beat, while jobs run,
        # only where the loop thread's CPU clock cannot be read)
        self._watch = _LoopWatch()
        self._beat_timer = QTimer(self)
        self._beat_timer.setInterval(BEAT_MS)
        self._beat_timer.timeout.connect(self._on_beat)
        self.busy_changed.connect(self._on_busy_changed)

    def _on_beat(self) -> None:
        self._watch.beat = time.monotonic()

    def _on_busy_changed(self, busy: bool) -> None:
        self._watch.beat = time.monotonic()
        if busy and self._watch.clock is None:
            self._beat_timer.start()
        else:
            self._beat_timer.stop()

    # -- holding ----------------------------------------------------------------------------

    def hold(self) -> None:
        """Queue new jobs instead of starting them (until `release`): the window holds its
        first jobs until it has painted, so importing the scoring libraries on a worker does
        not compete with the first paint for the interpreter."""
        if self._held is None:
            self._held = []

    @property
    def holding(self) -> bool:
        """True while new jobs are queued rather than started (`hold`)."""
        return self._held is not None

    def release(self) -> None:
        held, self._held = self._held, None
        for key, job_id, fn, args, kwargs, quiet in held or ():
            if self._newest.get(key) == job_id:
                self.pool.start(_Job(key, job_id, fn, args, kwargs, self._signals,
                                     self._stops[job_id], quiet,
                                     self._watch))
            else:  # superseded while held: it never ran
                self._stops.pop(job_id, None)
        if held and not self._stops:
            self.busy_changed.emit(False)

    # -- requests ---------------------------------------------------------------------------

    def hush(self, ms: int) -> None:
        """The window is about to draw (a step, a document): background jobs wait at their
        next checkpoint for `ms` milliseconds (from the last call)."""
        self._quiet.clear()
        self._hush_timer.start(ms)

    def submit(self, key: str, fn: Callable[..., Any], *args, urgent: bool = False,
               background: bool = False, **kwargs) -> int:
        """Run `fn` for `key`; an older job of the same key is asked to stop. Returns the id.
        An `urgent` job starts even while the runner holds (opening a bundle: the first paint
        waits on it). A `background` job (what the user is not looking at yet: the other
        documents' scores, intervals, the next step) pauses while the window is hushed."""
        self._supersede(key)
        job_id = next(self._ids)
        stop = threading.Event()
        was_busy = self.busy
        self._newest[key] = job_id
        self._stops[job_id] = stop
        quiet = self._quiet if background else None
        if self._held is not None and not urgent:
            self._held.append((key, job_id, fn, args, kwargs, quiet))
        else:
            self.pool.start(_Job(key, job_id, fn, args, kwargs, self._signals, stop, quiet,
                                 self._watch))
        if not was_busy:
            self.busy_changed.emit(True)
        return job_id

    def cancel(self, key: str) -> bool:
        """Ask the newest job of `key` to stop; its outcome will not be delivered and
        `cancelled(key)` is emitted at once. False if no job of `key` was running."""
        if not self._supersede(key):
            return False
        self.cancelled.emit(key)
        return True

    def cancel_all(self) -> None:
        """Cancel every running job (each emits `cancelled`)."""
        for key in list(self._newest):
            self.cancel(key)

    def _supersede(self, key: str) -> bool:
        job_id = self._newest.pop(key, None)
        if job_id is None:
            return False
        if job_id in self._stops:
            self._stops[job_id].set()
        return True

    def is_running(self, key: str) -> bool:
        return key in self._newest

    @property
    def busy(self) -> bool:
        return bool(self._stops)

    @property
    def quiet(self) -> threading.Event:
        """Set while the window is not drawing a step or a document (cleared by `hush`):
        background work of the window's own threads waits while it is clear too."""
        return self._quiet

    def shutdown(self, timeout_ms: int = 1500) -> bool:
        """Ask every job to stop and wait at most `timeout_ms`; True if all ended in time."""
        for stop in self._stops.values():
            stop.set()
        self._quiet.set()
        self._newest.clear()
        if self._held is not None:  # queued jobs never start
            self._held = []
            self._stops.clear()
        return self.pool.waitForDone(timeout_ms)

    # -- outcomes (main thread) -------------------------------------------------------------

    def _retire(self, key: str, job_id: int) -> bool:
        """Forget a finished job; True if it was the newest of its key (deliver its outcome)."""
        self._stops.pop(job_id, None)
        newest = self._newest.get(key) == job_id
        if newest:
            del self._newest[key]
        if not self._stops:
            self.busy_changed.emit(False)
        return newest

    @Slot(str, int, object)
    def _on_job_finished(self, key: str, job_id: int, result: object) -> None:
        if self._retire(key, job_id):
            self.result_ready.emit(key, result)

    @Slot(str, int, str, str)
    def _on_job_failed(self, key: str, job_id: int, message: str, trace: str) -> None:
        if self._retire(key, job_id):
            self.last_traceback = trace
            self.failed.emit(key, message)

    @Slot(str, int, float)
    def _on_job_progressed(self, key: str, job_id: int, fraction: float) -> None:
        if self._newest.get(key) == job_id:
            self.progressed.emit(key, fraction)

    @Slot(str, int)
    def _on_job_cancelled(self, key: str, job_id: int) -> None:
        newest = self._newest.get(key) == job_id
        self._retire(key, job_id)
        if newest:
            self.cancelled.emit(key)
