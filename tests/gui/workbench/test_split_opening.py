"""Issue 36, gate 9: the first step into a long show's split view (the largest block of the
event loop while stepping: 60-80 ms on a 10-hour show).

- each timeline (the overview, every panel) is laid out before it is drawn: its bars are culled
  once, at the width it then shows, not at the size a hidden panel had and again once the
  layout has placed it (nor the overview at its width before and after the split);
- a verdict title too long for the plot is said shorter, whole in the tooltip: it widened the
  plot's column and pushed the view box past the widget's right edge;
- the step that opens the split view sets the overview's range (the whole meeting) and culls
  its bars on a later turn of the event loop, and draws its panels on the turn after, and says
  the step `shown` only then; a step that comes before they are drawn passes them over.
"""
from __future__ import annotations

import pytest

from llgui.core.walkthrough import walk
from tests.gui.workbench.conftest import shown_timeline


@pytest.fixture(scope="module")
def show_walk():
    """A synthetic one-hour show (about 1,000 turns a side) and the first step whose
    listened windows open the split view, after steps that do not."""
    from benchmarks.synthetic import diar_bundle
    from llgui.gui.workbench.diar_split import split_spans

    bundle = diar_bundle(1, 6)
    document = bundle.documents[0]
    result = walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)
    for step, view in enumerate(result.steps, start=1):
        if view.windows and split_spans(view.windows, document.extent):
            return result, step
    pytest.fail("no step of the synthetic show opens the split view")


def _settled(qtbot, view) -> None:
    qtbot.wait(60)   # the layouts and resizes the step asked for, and what they ask again
    views = [view] + (view.split.panels if view.split is not None else [])
    qtbot.waitUntil(lambda: not any(getattr(v, "_rebar", False) for v in views), timeout=5000)


def test_the_first_split_step_culls_each_timeline_once_at_its_own_width(qtbot, show_walk,
                                                                      monkeypatch):
    from llgui.gui.workbench.diar_view import DiarView

    result, step = show_walk
    view = shown_timeline(qtbot, 1100, 650)
    view.show_step(result, step - 1, result.errors_at(step - 1))
    _settled(qtbot, view)
    assert view.split is None or view.split.isHidden()
    culled: dict = {}
    cull_bars = DiarView._cull_bars

    def counted(self, lo, hi):
        culled.setdefault(id(self), []).append(self.plot.getPlotItem().getViewBox().width())
        return cull_bars(self, lo, hi)

    monkeypatch.setattr(DiarView, "_cull_bars", counted)
    view.show_step(result, step, result.errors_at(step))
    _settled(qtbot, view)
    shown = [view] + [p for p in view.split.panels if p.isVisible()]
    assert view.split.isVisible() and len(shown) >= 2
    for timeline in shown:
        width = timeline.plot.getPlotItem().getViewBox().width()
        name = "overview" if timeline is view else "panel"
        assert culled.get(id(timeline)) == [width], (
            f"{name} culled at widths {culled.get(id(timeline))}, shows {width}")


def test_a_title_too_long_for_the_plot_is_said_shorter_and_whole_in_the_tooltip(
        qtbot, show_walk):
    result, step = show_walk
    view = shown_timeline(qtbot, 340, 520)   # (the verdict in full is ~350 px at 9 pt)
    view.show_step(result, step, result.errors_at(step))
    _settled(qtbot, view)
    verdict = view.verdict
    assert verdict is not None
    item = view.plot.getPlotItem()
    box = item.getViewBox()
    room = box.width()
    title = item.titleLabel
    assert box.geometry().right() <= item.geometry().width() + 0.5, (
        "the title pushed the view box past the plot's edge")
    assert title.itemRect().width() <= room
    texts = verdict.texts()
    assert any(f">{t}</span>" in title.text for t in texts)
    assert f">{texts[0]}</span>" not in title.text, "the whole verdict fits: widen nothing"
    assert texts[0] in view.plot.toolTip()


def test_the_overview_marks_each_panel_in_black_over_the_lanes_with_a_readable_name(
        qtbot, show_walk):
    """Outsider finding: the overview's marks of the panels' windows were a speaker's blue,
    under the lanes, their names (t1, t2) small and hidden by the bars at 1366x768. Now: in
    PANEL_MARK, which no speaker is drawn in, over the lanes, each named as its panel's
    title names the step's point, in bold 8 pt on white."""
    from PySide6.QtGui import QColor

    from llgui.core.display.palette import PANEL_MARK, base_colour
    from llgui.gui.workbench.diar_split import panel_title

    result, step = show_walk
    view = shown_timeline(qtbot, 520, 650)
    view.show_step(result, step, result.errors_at(step))
    _settled(qtbot, view)
    speakers = {QColor(base_colour(c)).name() for c in view._colours.values()}
    assert QColor(PANEL_MARK).name() not in speakers
    lanes = max(view.bars.zValue(), view.turn_labels.zValue())
    marks = [(region, marker) for region, marker in view.split._brush_pool
             if marker.isVisible()]
    assert len(marks) == len(view.split.spans) >= 1
    for k, ((region, marker), span) in enumerate(zip(marks, view.split.spans)):
        assert marker.pen.color().name() == QColor(PANEL_MARK).name()
        assert region.lines[0].pen.color().name() == QColor(PANEL_MARK).name()
        assert marker.zValue() > lanes
        title = panel_title(result.log[step - 1], span, False)
        assert marker.label.toPlainText() == (title.split(" = ")[0] if " = " in title
                                              else f"{k + 1}")
        assert marker.label.toPlainText() in ("t", "t1", "t2")   # (this show's steps)
        font = marker.label.textItem.font()
        assert font.bold() and font.pointSizeF() >= 8
        assert marker.label.fill.color().alpha() > 200   # on white, over the bars


def test_the_opening_step_draws_its_panels_on_a_later_turn_and_is_shown_then(qtbot,
                                                                             show_walk):
    result, step = show_walk
    doc = result.document.id
    view = shown_timeline(qtbot, 1100, 650)
    view.show_step(result, step - 1, result.errors_at(step - 1))
    _settled(qtbot, view)
    assert view.shown == (doc, step - 1)
    view.show_step(result, step, result.errors_at(step))
    # this turn: the split laid out, the overview drawn; the panels not yet, nor the step said
    assert view.split is not None and view.split.isVisible()
    assert view.lanes and view.shown == (doc, step - 1)
    panels = [p for p in view.split.panels if p.isVisible()]
    assert panels and not any(p.lanes for p in panels)
    # nor the overview's range (the whole meeting) and its bars at its new height: a turn of
    # their own before the panels' (together, 30-40 ms of a 10-hour show's event loop)
    assert view._overview_pending is not None
    qtbot.waitUntil(lambda: view.shown == (doc, step), timeout=5000)
    assert view._overview_pending is None
    start, end = result.document.extent
    lo, hi = view.plot.getPlotItem().getViewBox().viewRange()[0]
    assert lo <= start and hi >= end and hi - lo <= 1.05 * (end - start)
    spans = view.split.spans
    assert len(spans) == len(panels) >= 1
    for panel, (start, end) in zip(panels, spans):
        assert panel.lanes and set(panel.lanes) == set(view.lanes)
        lo, hi = panel.plot.getPlotItem().getViewBox().viewRange()[0]
        assert lo == pytest.approx(start, abs=1e-6) and hi == pytest.approx(end, abs=1e-6)
    # the next step: the split stands, its panels are drawn in the step's own turn
    if step < len(result.steps) and view.split.isVisible():
        view.show_step(result, step + 1, result.errors_at(step + 1))
        if view.split.isVisible():
            assert view.shown == (doc, step + 1)


def test_a_step_before_the_panels_are_drawn_passes_them_over(qtbot, show_walk):
    result, step = show_walk
    doc = result.document.id
    view = shown_timeline(qtbot, 1100, 650)
    view.show_step(result, step - 1, result.errors_at(step - 1))
    _settled(qtbot, view)
    before = view.plot.getPlotItem().getViewBox().viewRange()[0]
    view.show_step(result, step, result.errors_at(step))     # opens the split view ...
    view.show_step(result, step - 1, result.errors_at(step - 1))   # ... and back at once
    assert view.shown == (doc, step - 1)
    _settled(qtbot, view)
    qtbot.wait(30)
    assert view.shown == (doc, step - 1)          # the passed step's panels never came
    # nor its overview's range: the step shown keeps its own
    assert view.plot.getPlotItem().getViewBox().viewRange()[0] == pytest.approx(before)
    assert view.split.isHidden()
    assert not any(p.lanes for p in view.split.panels)
