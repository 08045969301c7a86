"""`llgui campaign`'s progress lines leave the first cell out of the rate and the time left,
as the per-cell estimate does (docs/campaigns.md): the first cell pays one-time costs (imports,
its batch's references). A clock stands in for time so the arithmetic is checked exactly;
nothing here is timed."""
from __future__ import annotations

import io

import llgui.cli.progress as progress_module
from llgui.cli.progress import CellProgress


def test_rate_and_time_left_start_after_the_first_cell(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    bar = CellProgress(out, every=0.0)
    bar(0, 48)
    now[0] = 105.5                # the first cell: 5.5 s of imports and reference statistics
    bar(1, 48)
    now[0] = 106.0
    bar(11, 48)                   # ten more cells in 0.5 s: 20 cells/s, 37 left -> 1.85 s
    lines = out.getvalue().splitlines()
    assert lines[0] == "llgui campaign: 0/48 cells (0 %)"
    # before: "1/48 cells (2 %), 0.18 cells/s, 259 s left" for a run of a few seconds
    assert lines[1] == "llgui campaign: 1/48 cells (2 %)"
    rate = (11 - 1) / (106.0 - 105.5)
    assert lines[2] == (f"llgui campaign: 11/48 cells (23 %), {rate:.2f} cells/s, "
                        f"{(48 - 11) / rate:.0f} s left")
