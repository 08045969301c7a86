"""A campaign scored by `llgui campaign` in a child process, for the window.

The window must not score in its own process: scoring is pure Python, and a scoring thread
(or the Dask client's imports and threads) would take the interpreter lock from the event loop
for tens to hundreds of milliseconds at a time. `campaign_in_child` runs the very command the
user would run (so its figures are `llgui campaign --format json`'s, byte for byte), reads its
plain progress lines from stderr, and builds each system's lifelong table from the report.
It follows `llgui.core.jobs`: `progress(fraction)`, `should_stop()` ends the child (its
finished cells stay cached) and raises `Cancelled`.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass

from llgui.core.jobs import Cancelled
from llgui.utils.pipes import close_pipes

_PROGRESS = re.compile(r"^llgui campaign: (\d+)/(\d+) cells")


@dataclass(frozen=True, eq=False)
class CampaignResult:
    """What the window shows of a campaign: the report (the same as `llgui campaign --format
    json`) and each system's lifelong table, (system name, LifelongScores) in campaign order."""

    report: dict
    tables: tuple


def campaign_in_child(path: str, progress=None, should_stop=None,
                      workers: int | None = None, scheduler: str | None = None
                      ) -> CampaignResult:
    from llgui.core.reports.campaign import table_from_report

    command = [sys.executable, "-m", "llgui", "campaign", str(path), "--format", "json"]
    if workers is not None:
        command += ["--workers", str(workers)]
    elif scheduler:
        command += ["--scheduler", scheduler]
    env = {**os.environ, "LLGUI_PROGRESS_EVERY": "0.2"}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=env, start_new_session=os.name != "nt")
    out: list[bytes] = []
    tail: list[str] = []

    def read_stdout() -> None:
        out.append(child.stdout.read())

    def read_stderr() -> None:  # one line at a time, as the child flushes them
        for raw in child.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            tail[:] = (tail + [line])[-20:]
            found = _PROGRESS.match(line)
            if found and progress is not None:
                done, total = int(found.group(1)), int(found.group(2))
                progress(done / total if total else 1.0)

    wait_for_child(child, (read_stdout, read_stderr), should_stop)
    if child.returncode not in (0, 2) or not out or not out[0].strip():
        raise RuntimeError(f"llgui campaign failed (exit {child.returncode}): "
                           + " | ".join(tail[-5:]))
    report = json.loads(out[0].decode("utf-8"))
    tables = tuple((system["name"], table_from_report(report, k))
                   for k, system in enumerate(report["systems"]))
    return CampaignResult(report, tables)


def wait_for_child(child: subprocess.Popen, readers, should_stop=None) -> None:
    """Run `readers` (functions draining the child's pipes) on threads and wait for the child
    to exit, polling so that `should_stop()` ends it (and its process group) within 50 ms
    even while it prints nothing; raises `Cancelled` then."""
    threads = [threading.Thread(target=read, daemon=True) for read in readers]
    for thread in threads:
        thread.start()
    try:
        while child.poll() is None:
            if should_stop is not None and should_stop():
                _end(child)
                raise Cancelled()
            try:
                child.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
        for thread in threads:
            thread.join()
    finally:
        close_pipes(child, threads)
    if should_stop is not None and should_stop():
        raise Cancelled()


def _end(child: subprocess.Popen) -> None:
    """End the child and its worker processes (its own process group), at once."""
    import signal

    def send(sig) -> None:
        try:
            if os.name == "nt":
                child.kill()
            else:
                os.killpg(child.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    send(signal.SIGTERM)
    try:
        child.wait(timeout=1)
    except subprocess.TimeoutExpired:
        send(getattr(signal, "SIGKILL", signal.SIGTERM))
        child.wait()


class ChildRefused(ValueError):
    """The child refused its input (exit 2: a file it could not use, a campaign whose outputs
    could not be scored); the message is what it said, its own lines joined by " | "."""


def json_of_child(command: list[str], name: str, should_stop=None) -> dict:
    """The JSON an `llgui NAME ... --format json` child prints, read while `should_stop` is
    polled (a newer request ends the child within 50 ms); `ChildRefused` with what it said
    when it refused its input (exit 2), RuntimeError with the tail of its stderr when it
    failed otherwise or printed nothing."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=os.name != "nt")
    out: list[bytes] = []
    err: list[bytes] = []
    wait_for_child(child, (lambda: out.append(child.stdout.read()),
                           lambda: err.append(child.stderr.read())), should_stop)
    if child.returncode != 0 or not out or not out[0].strip():
        lines = [line.strip() for line in (err[0] if err else b"").decode(
            "utf-8", "replace").splitlines() if line.strip()]
        if child.returncode == 2 and lines:   # its input, not llgui: said in its own words
            raise ChildRefused(" | ".join(lines[-6:]))
        raise RuntimeError(f"llgui {name} failed (exit {child.returncode}): "
                           + " | ".join(lines[-3:]))
    return json.loads(out[0].decode("utf-8"))
