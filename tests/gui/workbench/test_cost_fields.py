"""One document has no bootstrap interval over documents (it read "too few units (1) [34.60,
34.60]"). The cost model's fields that follow the task are checked in tests/gui/workbench/
test_tab.py (test_the_cost_fields_follow_the_task), in that module's demo window."""
from __future__ import annotations


def test_one_document_has_no_interval_over_documents():
    from llgui.core.significance.resample import Estimate
    from llgui.gui.workbench.texts import interval_cell as _interval_cell

    one = Estimate(34.6, low=34.6, high=34.6, n_units=1, too_few=True)
    assert "no interval" in _interval_cell(one) and "[" not in _interval_cell(one)
    four = Estimate(30.6, low=26.45, high=34.39, n_units=4, too_few=True)
    assert "too few units (4) [26.45, 34.39]" in _interval_cell(four)
