"""`llgui campaign` counts what it scored the same way in its progress and its summary
(issue 35: "18/18 cells" was followed by "16 cells: 0 from the cache, 16 computed": the two
online runs were counted in one and not the other)."""
from __future__ import annotations

import re

from llgui.gui.demo import demo_campaign
from tests.conftest import llgui_in_process


def test_the_summary_counts_the_online_runs_the_progress_counted(tmp_path):
    # `llgui campaign`'s entry point in this process: what it prints is checked, not its
    # interpreter (a second one cost ~0.7 s of CPU of imports)
    done = llgui_in_process(["campaign", str(demo_campaign()), "--workers", "0"],
                            LLGUI_CACHE_DIR=str(tmp_path), LLGUI_PROGRESS_EVERY="0")
    assert done.returncode == 0, done.stderr
    progress = re.findall(r"llgui campaign: (\d+)/(\d+) cells and online runs \(",
                          done.stderr)
    summary = re.search(r"llgui campaign: (\d+) cells and (\d+) online runs: 0 cells from "
                        r"the cache, (\d+) computed", done.stderr)
    assert summary, done.stderr[-2000:]
    cells, online, computed = map(int, summary.groups())
    assert progress[-1] == (str(cells + online),) * 2      # the last progress line: all done
    assert online == 2 and computed == cells
    # the cached rerun counts the online runs read from the cache too (helper-48: it said
    # 16/16 after the first run's 18/18)
    again = llgui_in_process(["campaign", str(demo_campaign()), "--workers", "0"],
                             LLGUI_CACHE_DIR=str(tmp_path), LLGUI_PROGRESS_EVERY="0")
    assert again.returncode == 0, again.stderr
    progress = re.findall(r"llgui campaign: (\d+)/(\d+) cells and online runs",
                          again.stderr)
    assert progress and progress[-1] == (str(cells + online),) * 2, again.stderr[-2000:]
    assert f"{cells} cells from the cache, 0 computed" in again.stderr
