"""Shared helpers for the gates: timing, and the one-line result format."""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class GateResult:
    figure: str            # e.g. "1.8 ms median"
    ratio: float           # how many times faster than the library (or library/ours)
    library: str           # e.g. "sacrebleu 2.6.0"
    passed: bool
    details: list[str] = field(default_factory=list)

    def line(self, number: int, name: str) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        return f"gate {number} {name}: {self.figure} ({self.ratio:.1f}x vs {self.library}) {verdict}"


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    """Median wall time in seconds over `repeat` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


FULL_ENV = "LLGUI_BENCH_FULL"


def full() -> bool:
    """True when the long library comparisons run whole (`python -m benchmarks --full`).

    By default a gate whose reference library would take minutes times the library on a
    stated part of the input (a sample of segments, one system of three) and says so in its
    details; llgui's side always runs whole, and equality is checked on what the library ran.
    """
    return os.environ.get(FULL_ENV) == "1"
