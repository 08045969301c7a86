"""Progress of the command line's scoring on stderr: a bar on a terminal, nothing when piped.

The bar counts segment statistics actually computed (`llgui.core.mt.stats_cache.observe`; rows
read from the cache cost nothing and are not counted) and appears only once scoring has taken
more than a second, so quick runs print nothing at all. stdout is never touched: it carries
the report.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Iterator

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
