"""Issue 36 (diarization): a step looks for turn labels only in the lanes it changed. The
reference lane, the same at every step, in a view whose range and size stay, keeps the labels
it had without its runs being looked for again; the lanes the step changed are; and the labels
shown after each step are those of a fresh view of that step at the same range and size."""
from __future__ import annotations

from tests.gui.workbench.conftest import shown_timeline


def _view(qtbot):
    return shown_timeline(qtbot, 1100, 500, split=False)   # no split panels: one range


def _shown(view) -> list:
    """The turn labels on screen: (text, x, y), sorted."""
    return sorted((text, round(x, 6), round(y, 6)) for text, x, y, _ink in view.turn_labels.labels)


def test_a_step_relabels_only_the_lanes_it_changed(qtbot, demo_walk, monkeypatch):
    import llgui.gui.workbench.diar_labels as diar_labels

    looked: list = []   # the bar arrays whose label runs were looked for
    real = diar_labels.runs_in

    def spy(arrays, *args, **kwargs):
        looked.append(id(arrays))
        return real(arrays, *args, **kwargs)

    monkeypatch.setattr(diar_labels, "runs_in", spy)
    start, end = demo_walk.document.extent
    span = (start, start + (end - start) / 2)   # the same range at every step
    view = _view(qtbot)
    compared = 0
    previous = None
    for step in range(1, len(demo_walk.steps) + 1):   # (step 0's longer lane names widen
        looked.clear()                                # the lane axis for good)
        view.show_step(demo_walk, step, demo_walk.errors_at(step), x_range=span)
        qtbot.wait(5)
        reference = id(view._lane_info[0][3])
        adapted = id(view._lane_info[4][3])
        if step >= 2:   # the range and size as at the step before: the reference stands
            assert reference not in looked, step
        if adapted != previous:   # a new hypothesis: its labels looked for
            assert adapted in looked, step
        previous = adapted
        fresh = _view(qtbot)
        fresh.resize(view.size())
        for _ in range(2):   # (the second once its lane axis has taken its width)
            fresh.show_step(demo_walk, step, demo_walk.errors_at(step), x_range=span)
            qtbot.wait(20)
        box, fresh_box = (v.plot.getPlotItem().getViewBox() for v in (view, fresh))
        assert (box.width(), box.height()) == (fresh_box.width(), fresh_box.height())
        assert view.labelled == fresh.labelled, step
        assert _shown(view) == _shown(fresh), step
        compared += bool(view.labelled)
        fresh.close()
    assert compared >= 2   # labels were shown and compared
