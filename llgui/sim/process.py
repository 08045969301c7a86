"""The system under evaluation as a subprocess: one line out, one line in, with a timeout.

`SystemProcess` starts the command in its own process group (`start_new_session`), so ending
it ends every process it started; its stderr goes to a file; one reader thread reads stdout
into a bounded queue, a line at most `MAX_LINE_BYTES` long (a system flooding stdout cannot
exhaust memory: the reader stops at the limit and reports it). `receive(timeout)` waits for
one line at most `timeout` seconds, checking `should_stop` every 50 ms.

The system's stderr is copied into its file by a second thread, at most `MAX_STDERR_BYTES`
(16 MiB; issue 38.6: a system printing without end filled the disk): beyond it the rest is
read and dropped (the system never blocks on a full pipe), and the file ends with a line
saying how many bytes were dropped. The last 4 KiB are kept in memory for failure messages.
"""
from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

from llgui.core.jobs import Cancelled
from llgui.sim import protocol
from llgui.sim.protocol import ProtocolFault
from llgui.utils.pipes import close_pipes

_POLL = 0.05  # seconds between should_stop checks while waiting for the system
MAX_STDERR_BYTES = 16 << 20
"""The most of a system's stderr kept in system.stderr (16 MiB); the rest is counted."""
_TAIL = 4096


class _Eof:
    pass


class _Overlong:
    pass


class SystemProcess:
    """A running system: `send(line)`, `receive(timeout) -> bytes`, `close()`, `kill()`."""

    def __init__(self, command: str | Sequence[str], stderr_path: str | Path,
                 cwd: str | Path | None = None, max_line: int | None = None,
                 env: dict | None = None):
        self.command = command if isinstance(command, str) else shlex.join(command)
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("the system command is empty")
        self.max_line = max_line if max_line is not None else protocol.MAX_LINE_BYTES
        self.stderr_path = Path(stderr_path)
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        self._stderr = open(self.stderr_path, "wb")
        self._stderr_kept, self._stderr_dropped, self._stderr_tail = 0, 0, b""
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=cwd, start_new_session=True, env=env)
        except OSError as exc:
            self._stderr.close()
            raise ProtocolFault(f"cannot start {self.command!r}: {exc.strerror or exc}") from None
        self.pid = self.proc.pid
        self._known: dict[int, float] = {}   # descendants seen: pid -> creation time
        self._tracked_at = -1.0
        self._queue: queue.Queue = queue.Queue(maxsize=16)
        self._ended = threading.Event()
        self._reader = threading.Thread(target=self._read, name=f"system-{self.pid}",
                                        daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._copy_stderr, daemon=True,
                                               name=f"system-{self.pid}-stderr")
        self._stderr_reader.start()

    # -- the reader thread ----------------------------------------------------------------------

    def _put(self, item) -> bool:
        while not self._ended.is_set():
            try:
                self._queue.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def _read(self) -> None:
        stream = self.proc.stdout
        try:
            while not self._ended.is_set():
                line = stream.readline(self.max_line + 1)
                if not line:
                    break
                if len(line) > self.max_line and not line.endswith(b"\n"):
                    self._put(_Overlong())
                    return
                if not self._put(line):
                    return
        except (OSError, ValueError):
            pass
        self._put(_Eof())

    def _copy_stderr(self) -> None:
        """Copy the system's stderr into its file, at most MAX_STDERR_BYTES (module text)."""
        fd = self.proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            self._stderr_tail = (self._stderr_tail + chunk)[-_TAIL:]
            room = max(0, MAX_STDERR_BYTES - self._stderr_kept)
            kept = chunk[:room]
            if kept:
                try:
                    self._stderr.write(kept)
                    self._stderr.flush()
                except (OSError, ValueError):   # a full disk, or the file closed at the end
                    kept = b""
            self._stderr_kept += len(kept)
            self._stderr_dropped += len(chunk) - len(kept)

    def _close_stderr(self) -> None:
        self._stderr_reader.join(timeout=1.0)
        try:
            if self._stderr_dropped and not self._stderr.closed:
                self._stderr.write(f"\n[llgui: system.stderr is capped at {MAX_STDERR_BYTES} "
                                   f"bytes; {self._stderr_dropped} more were dropped]\n"
                                   .encode("utf-8"))
        except (OSError, ValueError):
            pass
        try:
            self._stderr.close()
        except OSError:
            pass

    # -- talking --------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line to the system's stdin; a system that closed it raises ProtocolFault."""
        try:
            self.proc.stdin.write(line.encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ProtocolFault(self._exit_reason("stopped reading its input")) from None

    def receive(self, timeout: float, should_stop: Callable[[], bool] | None = None) -> bytes:
        """The system's next line, within `timeout` seconds; ProtocolFault on a timeout, an
        exit, an overlong line (number, doc and step are the caller's to add)."""
        deadline = time.monotonic() + timeout
        while True:
            if should_stop is not None and should_stop():
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolFault(f"no reply within --timeout {timeout:g} s")
            self._track()
            try:
                item = self._queue.get(timeout=min(_POLL, left))
            except queue.Empty:
                # a child of the system may hold stdout open after the system died: its exit
                # is the end too (after a last look for what it wrote before dying)
                if self.proc.poll() is None:
                    continue
                try:
                    item = self._queue.get(timeout=0.2)
                except queue.Empty:
                    raise ProtocolFault(self._exit_reason("closed its output")) from None
            if isinstance(item, _Eof):
                self._queue.put_nowait(item)  # every later receive sees the end too
                raise ProtocolFault(self._exit_reason("closed its output"))
            if isinstance(item, _Overlong):
                raise ProtocolFault(f"a message longer than {self.max_line} bytes "
                                    "(stdout flooded?)")
            return item

    def pending(self) -> bool:
        """Whether a line of the system is waiting, unread (without waiting for one)."""
        with self._queue.mutex:
            return bool(self._queue.queue) and isinstance(self._queue.queue[0], bytes)

    def _exit_reason(self, what: str) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return f"the system {what}"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"the system was killed by {name}"
        return f"the system exited with code {code}"

    # -- ending ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def close(self, timeout: float) -> int | None:
        """Close stdin and wait at most `timeout` for the system to exit, then end its process
        group. Returns the exit code (None if it had to be killed)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        return code

    def _track(self, force: bool = False) -> None:
        """Remember the system's descendants (with psutil, when installed), at most every
        0.25 s: a child started in a new session (`setsid`) leaves the process group, and
        once the system exits it is nobody's child; `kill` ends the ones seen."""
        now = time.monotonic()
        if not force and now - self._tracked_at < 0.25:
            return
        self._tracked_at = now
        try:
            import psutil

            for child in psutil.Process(self.pid).children(recursive=True):
                self._known.setdefault(child.pid, child.create_time())
        except Exception:   # no psutil, the system is gone, or a race with an exit
            return

    def _kill_known(self) -> None:
        """SIGKILL every descendant seen that still runs (the same process: its creation
        time is checked, so a reused pid is never hit)."""
        if not self._known:
            return
        try:
            import psutil
        except ImportError:
            return
        for pid, created in self._known.items():
            try:
                process = psutil.Process(pid)
                if process.create_time() == created:
                    process.kill()
            except Exception:
                continue

    def kill(self) -> None:
        """End the whole process group (the system and anything it started, also in a new
        session when it was seen running), now."""
        self._track(force=True)
        self._ended.set()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                self.proc.wait(timeout=0.3)
            except subprocess.TimeoutExpired:
                continue
            # the leader is gone; children in the group may linger: SIGKILL them too
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            break
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        self._kill_known()
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        # stdout is not closed here: the reader thread may sit in readline, and closing a
        # buffered stream under it blocks; the group is dead, so it sees EOF and ends
        self._reader.join(timeout=1.0)
        self._close_stderr()
        if not self._reader.is_alive() and not self._stderr_reader.is_alive():
            close_pipes(self.proc)   # (both readers are done with them)

    def stderr_tail(self, lines: int = 5, limit: int = 2000) -> str:
        """The last lines the system wrote to stderr (for the failure message)."""
        self._stderr_reader.join(timeout=0.2)   # what it wrote just before it ended
        text = self._stderr_tail[-limit:].decode("utf-8", errors="replace")
        return "\n".join(text.strip().splitlines()[-lines:])
