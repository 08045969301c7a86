"""The one progress of the command line, on stderr; stdout carries the report and is never touched
(`llgui campaign --format json | jq` stays valid JSON).

- `scoring_progress`: a command's scoring, as a bar on a terminal, nothing when piped.
- `fraction_progress`: any long job that reports its fraction done (`compare`), and
  `simulation_progress`, `llgui simulate`'s run: a bar on a terminal, nothing when piped.
- `CellProgress`: a campaign's cells, as a bar on a terminal, plain lines when piped (the window
  reads them from its child process).

Both bars are tqdm's.

The scoring bar counts segment statistics actually computed (`llgui.core.mt.stats_cache.observe`;
rows read from the cache cost nothing and are not counted) and appears only once scoring has
taken more than a second, so quick runs print nothing at all.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

DELAY_S = 1.0


@contextmanager
def scoring_progress(label: str = "scoring", stream=None) -> Iterator[None]:
    """Show a bar on `stream` (default stderr) while the block computes statistics, if it
    is a terminal."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        yield
        return
    from tqdm import tqdm

    from llgui.core.mt import stats_cache

    delay = DELAY_S
    began = time.monotonic()
    bar = tqdm(total=0, desc=label, unit="seg", delay=delay, file=stream, leave=False,
               dynamic_ncols=True)

    def on_rows(computed: int, expected: int) -> None:
        if expected:
            bar.total += expected
            if time.monotonic() - began >= delay:  # show the new total (never before delay)
                bar.refresh()
        if computed:
            bar.update(computed)

    try:
        with stats_cache.observe(on_rows):
            yield
    finally:
        bar.close()

class CellProgress:
    """`progress(done, total)` for `run_campaign`: cells done / total, rate, time left.

    The first cell computed pays costs no later cell pays (imports, the compiled TER engine,
    its batch's reference statistics: `llgui.campaign.executor.per_cell_estimate`), so the
    rate and the time left are measured from the moment it finished, as the per-cell estimate
    leaves it out: until a second cell is done no rate is shown (a 7-second campaign's first
    line had said `0.18 cells/s, 260 s left`)."""

    def __init__(self, stream: TextIO | None = None, every: float | None = None,
                 unit: str = "cells"):
        self.stream = stream if stream is not None else sys.stderr
        self.unit = unit   # what is counted ("cells and online runs": both are)
        # $LLGUI_PROGRESS_EVERY: seconds between plain lines (the window reads them, often)
        if every is None:
            from llgui.core.numbers import env_number

            every = env_number("LLGUI_PROGRESS_EVERY")
        self.every = every
        self.bar = None
        self.started = time.monotonic()
        self.first_done: int | None = None
        self.warm: tuple[int, float] | None = None   # (done, when) as the first cell ended
        self.last_line = self.started
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.unscored = 0   # cells done without a result (`failed`), said beside the count

    def failed(self, n: int) -> None:
        """`n` cells so far ended without a result (counted as done by the run): said on
        the progress line, so that `72/72 (100 %)` does not read as 72 scored (outsider
        helper-49)."""
        self.unscored = n
        if self.bar is not None:
            self.bar.set_postfix_str(f"{n} not scored", refresh=False)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        self.done, self.total = done, total
        if self.first_done is None:
            self.first_done = done
        elif self.warm is None and done > self.first_done:
            self.warm = (done, now)
            self._restart_bar(done, total)   # the bar's rate starts here too
        if self.terminal:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=done, unit="cell", file=self.stream,
                                desc="cells", dynamic_ncols=True)
            else:
                if self.bar.postfix:   # a note of `note` goes; the unscored count stays
                    self.bar.set_postfix_str(f"{self.unscored} not scored" if self.unscored
                                             else "", refresh=False)
                self.bar.update(done - self.bar.n)
            return
        if done < total and now - self.last_line < self.every:
            return
        self.last_line = now
        print(f"llgui campaign: {done}/{total} {self.unit} ({100 * done / max(total, 1):.0f} %)"
              + (f", {self.unscored} not scored" if self.unscored else "")
              + f"{self.speed(done, total, now)}", file=self.stream, flush=True)

    def rebase(self) -> None:
        """The cells from here on run elsewhere (the default timed the first ones in this
        process, then started workers): the rate starts again after the next one done, as at
        the start, so that the workers' start-up is not counted as their cells' time (the
        first estimate of a run read 2-3 times the time it then took; outsider helper-58)."""
        if self.first_done is not None:
            self.first_done, self.warm = self.done, None
            self._restart_bar(self.done, self.total)

    def _restart_bar(self, done: int, total: int) -> None:
        """The terminal bar's count and rate started again at `done` of `total`."""
        if self.bar is not None:
            self.bar.reset(total)
            self.bar.initial = self.bar.n = self.bar.last_print_n = done

    def kept(self, cached: bool) -> str:
        """What a stopped run leaves: `30 of 72 cells done, kept in the cache (a rerun
        scores only the 42 left)`; empty before the first count or with none done."""
        if self.first_done is None or not self.done:
            return ""
        done, total = self.done, self.total
        where = ("kept in the cache (a rerun scores only the "
                 f"{total - done} left)" if cached else "not kept (no cache)")
        return f"{done} of {total} {self.unit} done, {where}"

    def speed(self, done: int, total: int, now: float) -> str:
        """`, 2.10 cells/s, 21 s left` over the cells after the first one computed; empty
        before a second one is done."""
        if self.warm is None or done <= self.warm[0]:
            return ""
        elapsed = now - self.warm[1]
        rate = (done - self.warm[0]) / elapsed if elapsed > 0 else 0.0
        if rate <= 0:
            return ""
        left = (total - done) / rate
        eta = ("" if done >= total else f", {left:.0f} s left" if left >= 0.5 else
               ", under a second left")
        return f", {rate:.2f} cells/s{eta}"

    def note(self, text: str) -> None:
        """Why nothing has finished lately (a cell running long, a stalled worker): on the
        bar's line on a terminal, else a plain line at most every `every` seconds."""
        if self.terminal:
            if self.bar is not None:
                self.bar.set_postfix_str(text)
            return
        now = time.monotonic()
        if now - self.last_line < self.every:
            return
        self.last_line = now
        print(f"llgui campaign: {text}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def fraction_progress(label: str = "", quiet: bool = False, stream=None):
    """(progress callback, close) drawing a tqdm bar of a long job that reports the fraction
    done (`llgui.core.jobs`: `compare`, `simulate`) on a terminal's stderr, with the time
    left; (None, no-op) when piped or `quiet`."""
    stream = sys.stderr if stream is None else stream
    if quiet or not getattr(stream, "isatty", lambda: False)():
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=1000, file=stream, unit="‰", leave=False, desc=label or None,
               bar_format="{l_bar}{bar}| {elapsed}<{remaining}")

    def progress(fraction: float) -> None:
        value = int(1000 * min(max(fraction, 0.0), 1.0))
        if value != bar.n:
            bar.n = value
            bar.refresh()

    progress.bar = bar  # type: ignore[attr-defined]
    return progress, bar.close


def simulation_progress(quiet: bool = False):
    """`llgui simulate`: (progress callback, close) drawing a tqdm bar of the run (with the
    document and step in its description) on a terminal's stderr; nothing otherwise."""
    progress, close = fraction_progress(quiet=quiet)
    if progress is None:
        return None, close
    bar = progress.bar  # type: ignore[attr-defined]
    state = {"steps": 0}

    def on_step(record) -> None:
        state["steps"] += 1
        bar.set_description(f"{record.step.doc} step {record.step.step}", refresh=False)

    progress.on_step = on_step  # type: ignore[attr-defined]
    return progress, bar.close
