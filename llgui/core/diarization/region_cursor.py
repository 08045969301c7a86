"""The error regions of a walkthrough's hypotheses h_0, h_1, ..., step after step.

A step's view colours where its adapted hypothesis is correct, missed, false alarm or
confused (`der.error_regions`). Swept whole, that is ~40 ms of a 10-hour show, each step, on
the worker that makes the next step ahead while the user reads. A step changes the
hypothesis around its windows only: `RegionCursor` keeps an `IncrementalDER` standing at the
last hypothesis asked for, whose regions a step's advance sweeps again only around what
changed (`IncrementalDER.error_region_arrays`) when the optimal mapping stays the same. The
regions it gives are those of a whole sweep (`tests/core/test_region_cursor.py` holds them
equal at every step).
"""
from __future__ import annotations

import threading
from typing import Callable, Mapping, Sequence

from llgui.core.diarization.der import region_list
from llgui.core.types import Turn


class RegionCursor:
    """`regions(hypothesis, mapping)`: the error regions of `hypothesis` under `mapping`,
    from a scorer made by `make(hypothesis)` once and then moved from hypothesis to
    hypothesis; None when it cannot give them (the scorer's optimal mapping is another, or
    another thread is moving it: the caller sweeps the whole show then, as before)."""

    def __init__(self, make: Callable[[Sequence[Turn]], object]):
        self._make = make
        self._scorer = None
        self._lock = threading.Lock()

    def regions(self, hypothesis: Sequence[Turn], mapping: Mapping[str, str]) -> list | None:
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if self._scorer is None:
                self._scorer = self._make(hypothesis)
            else:
                self._scorer.advance(hypothesis)
            if dict(self._scorer.current().mapping) != dict(mapping):
                return None
            return region_list(self._scorer.error_region_arrays())
        finally:
            self._lock.release()
