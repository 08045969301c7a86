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


def test_the_rate_starts_again_when_workers_take_over(monkeypatch):
    """The default times the first cells here, then starts workers: their start-up (2.5 s
    here) is not their cells' time. The rate starts again after the first cell they finish
    (outsider helper-58: the first time left read 2-3 times the run's)."""
    from llgui.cli.campaigns import _announce

    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    bar = CellProgress(out, every=0.0)
    bar(0, 100)
    now[0] = 101.0
    bar(1, 100)
    now[0] = 101.5
    bar(11, 100)                  # timed here: 20 cells/s
    monkeypatch.setattr("sys.stderr", io.StringIO())
    _announce("running a local Dask cluster of 2 worker processes (40 ms a cell here, ...)",
              bar)
    now[0] = 104.0                # 2.5 s of start-up, then a group of 16 cells
    bar(27, 100)
    now[0] = 104.4
    bar(43, 100)                  # 16 cells in 0.4 s: 40 cells/s, 57 left -> 1.4 s
    lines = out.getvalue().splitlines()
    assert lines[3] == "llgui campaign: 27/100 cells (27 %)"   # no rate over the start-up
    assert lines[4] == "llgui campaign: 43/100 cells (43 %), 40.00 cells/s, 1 s left"
    # a default that keeps the cells here goes on with its rate
    _announce("running in this process (40 ms a cell here, ...)", bar)
    now[0] = 104.9
    bar(63, 100)
    assert out.getvalue().splitlines()[5] == \
        "llgui campaign: 63/100 cells (63 %), 40.00 cells/s, 1 s left"


def test_under_a_second_left_and_nothing_kept_said_plainly(monkeypatch):
    """Outsider helper-59: `0 s left` with 17 cells to go; `0 of 360 cells done, kept in the
    cache (a rerun scores only the 360 left)` after a Ctrl-C before any cell."""
    now = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    bar = CellProgress(out, every=0.0)
    bar(0, 360)
    assert bar.kept(cached=True) == ""
    now[0] = 101.0
    bar(1, 360)
    now[0] = 111.0
    bar(351, 360)                 # 35 cells/s, 9 left: a quarter of a second
    assert out.getvalue().splitlines()[-1] == \
        "llgui campaign: 351/360 cells (98 %), 35.00 cells/s, under a second left"
    assert bar.kept(cached=True) == ("351 of 360 cells done, kept in the cache (a rerun "
                                     "scores only the 9 left)")
