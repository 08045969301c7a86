"""The cost model shows only what prices the open document's steps (a detection document
showed MT's words and diarization's seconds), and one document has no bootstrap interval
over documents (it read "too few units (1) [34.60, 34.60]")."""
from __future__ import annotations

from tests.gui.conftest import settle


def test_the_cost_fields_follow_the_task(demo_window, qtbot):
    window = demo_window
    editor = window.workbench.cost_editor
    wanted = {"mt": ["reference_weight", "post_edit_weight"],
              "diarization": ["window", "listen_weight"], "detection": []}
    seen = set()
    for index, bundle in enumerate(window.state.bundles):
        if bundle.task not in wanted or not bundle.documents:
            continue
        window.state.select(index, bundle.documents[0].id)
        settle(qtbot, window)
        assert editor.shown_fields() == wanted[bundle.task], bundle.task
        seen.add(bundle.task)
    assert seen == set(wanted)


def test_one_document_has_no_interval_over_documents():
    from llgui.core.significance.resample import Estimate
    from llgui.gui.workbench.texts import interval_cell as _interval_cell

    one = Estimate(34.6, low=34.6, high=34.6, n_units=1, too_few=True)
    assert "no interval" in _interval_cell(one) and "[" not in _interval_cell(one)
    four = Estimate(30.6, low=26.45, high=34.39, n_units=4, too_few=True)
    assert "too few units (4) [26.45, 34.39]" in _interval_cell(four)
