"""gui2: adjacent bars of one speaker that read as one bar are labelled as one run
(`llgui.core.display.lanes.label_runs`)."""
from __future__ import annotations

import numpy as np

from llgui.core.display.lanes import label_runs


def test_runs_join_same_key_bars_closer_than_a_pixel():
    #            A: 0-7, 7.5-13 (gap 0.5 < 1)   B: 13-20   A: 20-25 (a new run after B)
    x0 = [0.0, 7.5, 13.0, 20.0, 30.0]
    width = [7.0, 5.5, 7.0, 5.0, 2.0]          # A again at 30 (gap 5 > 1): a new run
    keys = ["A", "A", "B", "A", "A"]
    start, end, first = label_runs(x0, width, keys, gap=1.0)
    assert start.tolist() == [0.0, 13.0, 20.0, 30.0]
    assert end.tolist() == [13.0, 20.0, 25.0, 32.0]
    assert first.tolist() == [0, 2, 3, 4]


def test_unsorted_bars_and_no_bars():
    start, end, first = label_runs([5.0, 0.0], [1.0, 5.2], ["A", "A"], gap=0.5)
    assert start.tolist() == [0.0] and end.tolist() == [6.0] and first.tolist() == [1]
    start, end, first = label_runs(np.zeros(0), np.zeros(0), [], gap=1.0)
    assert start.size == end.size == first.size == 0
