"""Campaign progress on stderr: a tqdm bar on a terminal, plain lines when piped.

Never writes to stdout (`llgui campaign --format json | jq` must stay valid JSON).
"""
from __future__ import annotations

import os
import sys
import time
from typing import TextIO


class CellProgress:
    """`progress(done, total)` for `run_campaign`: cells done / total, rate, time left."""

    def __init__(self, stream: TextIO | None = None, every: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        # $LLGUI_PROGRESS_EVERY: seconds between plain lines (the window reads them, often)
        if every is None:
            try:
                every = float(os.environ.get("LLGUI_PROGRESS_EVERY", "5"))
            except ValueError:
                every = 5.0
        self.every = every
        self.bar = None
        self.started = time.monotonic()
        self.first_done: int | None = None
        self.last_line = self.started
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if self.first_done is None:
            self.first_done = done
        if self.terminal:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=done, unit="cell", file=self.stream,
                                desc="cells", dynamic_ncols=True)
            else:
                self.bar.update(done - self.bar.n)
            return
        now = time.monotonic()
        if done < total and now - self.last_line < self.every:
            return
        self.last_line = now
        elapsed = now - self.started
        fresh = done - self.first_done
        rate = fresh / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else float("nan")
        eta = f", {left:.0f} s left" if left == left and done < total else ""
        speed = f", {rate:.2f} cells/s{eta}" if fresh > 0 else ""
        print(f"llgui campaign: {done}/{total} cells ({100 * done / max(total, 1):.0f} %)"
              f"{speed}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
