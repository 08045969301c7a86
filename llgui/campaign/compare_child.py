"""`llgui compare` of a campaign in a child process, for the Systems view.

The paired test resamples every metric in Python; in the window's process it would hold the
interpreter for tens of milliseconds at a time, away from the event loop. Run as the very
command a user would type, its figures are `llgui compare CAMPAIGN --format json`'s, byte
for byte. Follows `llgui.core.jobs`: `should_stop()` ends the child and raises `Cancelled`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

from llgui.core.significance.resample import Plan
from llgui.campaign.child import wait_for_child


def compare_in_child(path: str, baseline: str | None, plan: Plan, progress=None,
                     should_stop=None, cells: bool = False) -> dict:
    """The JSON report of `llgui compare PATH --baseline BASELINE` with `plan`'s test,
    resamples, seed and unit (`llgui.core.reports.compare.Comparison.report`); `baseline`
    None: `--all-pairs` (Holm's correction); `cells`: the campaign's scored outputs."""
    which = ["--all-pairs"] if baseline is None else ["--baseline", baseline]
    command = [sys.executable, "-m", "llgui", "compare", str(path), *which,
               "--test", plan.test, "--samples", str(plan.samples), "--seed", str(plan.seed),
               "--unit", plan.unit, "--format", "json", *(["--cells"] if cells else [])]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=os.name != "nt")
    out: list[bytes] = []
    err: list[bytes] = []
    # a newer request ends this child within 50 ms
    wait_for_child(child, (lambda: out.append(child.stdout.read()),
                           lambda: err.append(child.stderr.read())), should_stop)
    if child.returncode != 0 or not out or not out[0].strip():
        tail = (err[0] if err else b"").decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RuntimeError(f"llgui compare failed (exit {child.returncode}): "
                           + " | ".join(tail))
    if progress is not None:
        progress(1.0)
    return json.loads(out[0].decode("utf-8"))
