"""`llgui compare` of a campaign in a child process, for the Systems view.

The paired test resamples every metric in Python; in the window's process it would hold the
interpreter for tens of milliseconds at a time, away from the event loop. Run as the very
command a user would type, its figures are `llgui compare CAMPAIGN --format json`'s, byte
for byte. Follows `llgui.core.jobs`: `should_stop()` ends the child and raises `Cancelled`.
"""
from __future__ import annotations

import sys

from llgui.core.significance.resample import Plan
from llgui.campaign.child import json_of_child


def compare_in_child(path: str, baseline: str | None, plan: Plan, progress=None,
                     should_stop=None, cells: bool = False) -> dict:
    """The JSON report of `llgui compare PATH --baseline BASELINE` with `plan`'s test,
    resamples, seed and unit (`llgui.core.reports.compare.Comparison.report`); `baseline`
    None: `--all-pairs` (Holm's correction); `cells`: the campaign's scored outputs."""
    which = ["--all-pairs"] if baseline is None else ["--baseline", baseline]
    command = [sys.executable, "-m", "llgui", "compare", str(path), *which,
               "--test", plan.test, "--samples", str(plan.samples), "--seed", str(plan.seed),
               "--unit", plan.unit, "--format", "json", *(["--cells"] if cells else [])]
    report = json_of_child(command, "compare", should_stop)   # a newer request ends it
    if progress is not None:
        progress(1.0)
    return report
