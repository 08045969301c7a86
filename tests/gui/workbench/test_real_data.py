"""Issue 13, what a domain expert saw on real data: speaker colours off the error colours, a
split view for far-apart windows, bar labels that never overlap, and the corrections table
scrolled to the selected step. Small synthetic bundles, real widgets. (Abutting turns on one
row, the DET hull: the Qt-free geometry's tests, tests/core/display/.)"""
from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
import pytest

from llgui.core.display.palette import ERROR_COLOURS, IMPAIRED, MIN_DISTANCE, colour_distance
from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.gui.conftest import settle, shown_window
from tests.gui.workbench.conftest import step_shown


def rttm_line(uri: str, start: float, duration: float, speaker: str) -> str:
    return f"SPEAKER {uri} 1 {start} {duration} <NA> <NA> {speaker} <NA> <NA>"


def diar_bundle(tmp: Path, far: bool = True) -> Path:
    """A 1000-s show, two speakers, a `same` step whose points are 900 s apart."""
    ref, hyp = [], []
    for k in range(50):
        start = 20.0 * k
        ref.append(rttm_line("show", start, 19.5, f"R{k % 2}"))
        hyp.append(rttm_line("show", start, 19.5, f"h{(k // 3) % 2}"))
    (tmp / "ref.rttm").write_text("\n".join(ref) + "\n")
    (tmp / "hyp.rttm").write_text("\n".join(hyp) + "\n")
    t2 = 950.0 if far else 60.0
    steps = [{"doc": "show", "step": 1, "initiative": "active", "kind": "same",
              "target": {"t1": 50.0, "t2": t2}, "answer": False}]
    (tmp / "log.jsonl").write_text("\n".join(json.dumps(s) for s in steps) + "\n")
    (tmp / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\n\n[settings]\ncollar = 0.5\n\n'
        '[[documents]]\nid = "show"\ntime = 1\nreferences = ["ref.rttm"]\n'
        'hypothesis = "hyp.rttm"\n\n[interactions]\nlog = "log.jsonl"\n')
    return tmp / "bundle.toml"


def diar_walk(tmp: Path, far: bool = True):
    bundle = load_bundle(diar_bundle(tmp, far))
    document = bundle.documents[0]
    return walk(document, bundle.steps_of(document.id), "der", bundle.settings, bundle.cost)


def drawn_colours(view) -> set[str]:
    """The colours of the bars the view draws (the layers its bar item paints)."""
    return {layer.brush.color().name() for layer in view.bars.layers}


def test_speaker_colours_in_the_drawn_view_keep_off_the_error_colours(qtbot, tmp_path):
    from llgui.gui.workbench.diar_view import DiarView

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    # many speakers over a bundle: every colour the view may give a speaker
    view.set_speakers([f"spk{i:02d}" for i in range(16)] + ["R0", "R1"])
    view.show_step(result, 1, result.errors_at(1))
    reserved = set(ERROR_COLOURS.values()) | {IMPAIRED}
    from llgui.core.display.palette import base_colour

    assert len(set(view._colours.values())) >= 12      # 18 speakers: 18 styles
    speakers = {base_colour(c) for c in view._colours.values()}   # their colours
    assert len(speakers) >= 6
    for colour, error in itertools.product(speakers, reserved):
        assert colour_distance(colour, error) >= MIN_DISTANCE, (colour, error)
    drawn = drawn_colours(view)
    assert drawn & speakers   # the check is about colours that are on screen
    for colour in drawn - reserved - {"#b0b0b0"}:
        assert all(colour_distance(colour, e) >= MIN_DISTANCE for e in reserved), colour


def test_far_apart_windows_get_split_zoomed_panels(qtbot, tmp_path):
    from llgui.gui.workbench.diar_view import DiarView

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    step_shown(qtbot, view, result, 1, result.errors_at(1))
    assert view.split is not None and view.split.isVisible()
    spans = view.split.spans
    assert len(spans) == 2
    windows = result.steps[0].windows
    for (start, end), (a, b) in zip(spans, sorted(windows)):
        assert start <= a and b <= end and end - start < 30   # readable, not 900 s wide
        panel = view.split.panels[spans.index((start, end))]
        lo, hi = panel.plot.getPlotItem().getViewBox().viewRange()[0]
        assert lo == pytest.approx(start, abs=1e-6) and hi == pytest.approx(end, abs=1e-6)
    # the overview strip shows the whole show
    lo, hi = view.plot.getPlotItem().getViewBox().viewRange()[0]
    assert lo <= 1.0 and hi >= 990.0
    # near windows: one zoomed panel, and still the overview of the whole show above it
    # (issue 23, item 12: a single-window step of a long recording said nowhere where it was)
    (tmp_path / "near").mkdir()
    near = diar_walk(tmp_path / "near", far=False)
    step_shown(qtbot, view, near, 1, near.errors_at(1))
    assert view.split.isVisible() and len(view.split.spans) == 1
    (start, end), = view.split.spans
    assert start <= 50.0 - 1.5 and end >= 60.0 + 1.5 and end - start < 30
    lo, hi = view.plot.getPlotItem().getViewBox().viewRange()[0]
    assert lo <= 1.0 and hi >= 990.0
    # the brush on the overview marks where the panel lies
    assert [b.getRegion() for b in view.split.brushes] == [(start, end)]


class _Replay:
    metric = "bleu"


@pytest.mark.parametrize("values", [
    (30.94, 30.90, 30.76, 30.80, 30.92, 30.85),    # all within 0.2 points
    (30.94, 31.20, 29.10, 30.76, 27.50, 28.00),    # "30.94adapt 30.76"
])
def test_bar_labels_never_overlap_for_close_values(qtbot, values):
    from llgui.gui.workbench.score_panel import ScorePanel

    panel = ScorePanel()
    qtbot.addWidget(panel)
    panel.resize(420, 300)   # the bar chart at 1366x768 is about this narrow
    panel.show()
    qtbot.waitExposed(panel)
    base, cor, imp, adapt, pen, mem = values
    shown = {"s_base": base, "s_cor": cor, "s_imp": imp, "s_adapt": adapt, "s_pen": pen,
             "s_pen_memorise": mem}
    panel._draw_bars(_Replay(), shown)
    qtbot.wait(10)
    layout = panel.bars.layout_now()
    # the values are under their own bars (issue 23 item 16); the penalty marks above them
    # overlap neither each other nor a bar, and lie inside the chart
    rects = [rect for _text, rect, _colour in layout.marks]
    assert len(rects) == 2
    for a, b in itertools.combinations(rects, 2):
        assert not a.intersects(b), (a, b)
    bars = [rect for name, rect in layout.bars.items() if name != "gap"]
    assert len(bars) == 6
    for label in rects:
        assert panel.bars.rect().contains(label.toAlignedRect()), label
        for bar in bars:
            assert not label.intersects(bar), (label, bar)
    # 1-3 point differences are differences: the axis does not start at 0
    low, high = panel.y_range
    assert low > 0 and high - low < 20


def mt_bundle(tmp: Path, steps: int = 40) -> Path:
    lines = [f"sentence number {k} says something" for k in range(1, steps + 1)]
    (tmp / "ref.txt").write_text("\n".join(lines) + "\n")
    (tmp / "hyp.txt").write_text("\n".join(s.replace("says", "tells") for s in lines) + "\n")
    log = [{"doc": "d", "step": k, "initiative": "interactive", "kind": "reference",
            "target": {"sentence": k}} for k in range(1, steps + 1)]
    (tmp / "log.jsonl").write_text("\n".join(json.dumps(s) for s in log) + "\n")
    (tmp / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n\n[[documents]]\nid = "d"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\n\n[interactions]\n'
        'log = "log.jsonl"\n')
    return tmp / "bundle.toml"


def test_the_corrections_table_scrolls_to_the_selected_step(qtbot, tmp_path):
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(mt_bundle(tmp_path))], select_doc="d", step=40)
        settle(qtbot, window)
        table = window.workbench.table
        viewport = table.viewport().rect()

        def visible(row: int) -> bool:
            rect = table.visualRect(table.model().index(row, 0))
            return rect.isValid() and viewport.contains(rect)

        assert table.model().rowCount() == 41
        assert not (visible(0) and visible(40))   # the table is too short for all rows
        qtbot.waitUntil(lambda: visible(40), timeout=5000)   # opened at step 40 of 40
        for step in (3, 40, 21):
            window.state.set_step(step)
            qtbot.waitUntil(lambda s=step: visible(s), timeout=5000)
    finally:
        window.jobs.shutdown(2000)


def test_heatmap_cells_say_their_values_on_hover(qtbot):
    from llgui.gui.across_time.heatmap import ScoreHeatmap

    heatmap = ScoreHeatmap()
    qtbot.addWidget(heatmap)
    heatmap.resize(400, 300)
    heatmap.show()
    qtbot.waitExposed(heatmap)
    values = np.array([[30.94, np.nan], [31.5, 29.25]])
    heatmap.set_matrix(values, ["M0", "M1"], ["t0", "t1"], "BLEU (%)", True)
    heatmap._on_scene_moved(heatmap.cell_scene_position(1, 1))
    assert heatmap.plot.toolTip().startswith("s(M1, t1) = 29.25")
    heatmap._on_scene_moved(heatmap.cell_scene_position(0, 1))
    assert "missing" in heatmap.plot.toolTip()


def test_the_per_speaker_breakdown_adds_up_to_the_der_components(qtbot, tmp_path):
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    from llgui.gui.workbench.diar_view import DiarView

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    view.collar = 0.5
    view.show_step(result, 1, result.errors_at(1))
    rows = view.speakers.rows
    assert view.speakers.rowCount() == len(rows) >= 2
    # the rows share out pyannote's own components of h_n
    doc = result.document

    def annotation(turns):
        a = Annotation(uri="show")
        for k, t in enumerate(turns):
            a[Segment(t.start, t.end), k] = t.speaker
        return a

    c = DiarizationErrorRate(collar=0.5)(annotation(doc.reference),
                                         annotation(result.steps[0].adapted), detailed=True)
    assert sum(r.miss for r in rows) == pytest.approx(c["missed detection"], abs=1e-6)
    assert sum(r.confusion for r in rows) == pytest.approx(c["confusion"], abs=1e-6)
    assert sum(r.false_alarm for r in rows) == pytest.approx(c["false alarm"], abs=1e-6)


def test_mt_rows_say_what_the_system_did_and_the_sentence_score_change(tmp_path):
    from sacrebleu.metrics import CHRF

    from llgui.gui.workbench.mt_view import HTML_ROLE, SegmentsModel

    refs = ["the cat sat on the mat", "a dog ran in the park", "birds sing at dawn"]
    hyps = ["the cat sits on mat", "a dog runs in a park", "birds sings at dawn"]
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n")
    log = [{"doc": "d", "step": 1, "initiative": "active", "kind": "reference",
            "target": {"sentence": 1}, "adapted": {"lines": {"1": refs[0],
                                                             "2": "a dog ran in a park"}}},
           {"doc": "d", "step": 2, "initiative": "active", "kind": "reference",
            "target": {"sentence": 3}}]
    (tmp_path / "log.jsonl").write_text("\n".join(json.dumps(s) for s in log) + "\n")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\n\n[[documents]]\nid = "d"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\n\n[interactions]\n'
        'log = "log.jsonl"\n')
    bundle = load_bundle(tmp_path / "bundle.toml")
    document = bundle.documents[0]
    result = walk(document, bundle.steps_of("d"), "bleu", bundle.settings, bundle.cost)
    model = SegmentsModel()

    def cell(step: int, segment: int) -> str:
        model.show(result, step, False)
        return model.data(model.index(segment, 0), HTML_ROLE)

    assert "applied" in cell(1, 0)
    before = CHRF().sentence_score(hyps[1], [refs[1]]).score
    after = CHRF().sentence_score("a dog ran in a park", [refs[1]]).score
    assert f"chrF {before:.1f} → {after:.1f}" in cell(1, 1)
    assert "ignored" in cell(2, 2)   # the system did not take the reference it was given


def test_split_panels_keep_the_speaker_colours_of_the_overview(qtbot, tmp_path):
    from llgui.gui.workbench.diar_view import DiarView

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    view.set_speakers(["A", "B", "R1", "R0"])   # an order the panels would not guess
    step_shown(qtbot, view, result, 1, result.errors_at(1))
    for panel in view.split.panels:
        assert panel._colours == view._colours
        assert drawn_colours(panel) <= drawn_colours(view) | {"#b0b0b0"}


def test_a_long_post_edit_is_cut_in_the_step_line(qtbot, tmp_path):
    from llgui.gui.main_window import MainWindow
    from llgui.gui.workbench.tab import STEP_TEXT

    long = " ".join(["a very long post-edited paragraph of a WMT document"] * 8)
    (tmp_path / "ref.txt").write_text("one two three\nfour five six\n")
    (tmp_path / "hyp.txt").write_text("one two\nfour six\n")
    (tmp_path / "src.txt").write_text("eins zwei drei\nvier fünf sechs\n")
    (tmp_path / "log.jsonl").write_text(json.dumps(
        {"doc": "d", "step": 1, "initiative": "interactive", "kind": "post_edit",
         "target": {"sentence": 1}, "answer": long}) + "\n")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n\n[[documents]]\nid = "d"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\nsource = "src.txt"\n\n'
        '[interactions]\nlog = "log.jsonl"\n')
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.show()
    try:
        assert window.open_bundles([str(tmp_path / "bundle.toml")], select_doc="d", step=1)
        settle(qtbot, window)
        label = window.workbench.step_label
        assert long not in label.text() and "…" in label.text()
        assert long in label.toolTip()
        model = window.workbench.mt_view.model
        # ToolTipRole of the source column (issue 23 item 7: a column of its own)
        assert model.data(model.index(0, model.SOURCE), 3) == "eins zwei drei"
        assert STEP_TEXT < len(long)
    finally:
        window.jobs.shutdown(2000)


def test_the_mt_source_toggle_and_the_row_expander(qtbot, tmp_path):
    from llgui.gui.workbench.mt_view import HTML_ROLE, MTView

    (tmp_path / "ref.txt").write_text("one two three\n" + " ".join(["long"] * 200) + "\n")
    (tmp_path / "hyp.txt").write_text("one two\n" + " ".join(["lung"] * 200) + "\n")
    (tmp_path / "src.txt").write_text("eins zwei drei\nlang\n")
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\n\n[[documents]]\nid = "d"\ntime = 1\n'
        'references = ["ref.txt"]\nhypothesis = "hyp.txt"\nsource = "src.txt"\n')
    bundle = load_bundle(tmp_path / "bundle.toml")
    result = walk(bundle.documents[0], (), "bleu", bundle.settings, bundle.cost)
    view = MTView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.show_step(result, 0)
    assert view.source_box.isVisible()
    model = view.model
    table = view.table
    assert table.isColumnHidden(model.SOURCE)
    reference_before = model.data(model.index(0, 1), HTML_ROLE)
    view.source_box.setChecked(True)
    qtbot.wait(50)
    # issue 23 item 7: the source has its own column, before the reference, which keeps its
    # text and its room (the two-line cap showed only the source before)
    assert not table.isColumnHidden(model.SOURCE)
    assert "eins zwei drei" in model.data(model.index(0, model.SOURCE), HTML_ROLE)
    assert model.data(model.index(0, 1), HTML_ROLE) == reference_before
    assert "eins" not in reference_before
    assert model.headerData(model.SOURCE, Qt.Orientation.Horizontal) == "source"
    source = table.visualRect(model.index(0, model.SOURCE))
    reference = table.visualRect(model.index(0, 1))
    assert source.right() < reference.left()          # side by side, source first
    assert reference.width() >= 0.8 * source.width() > 100
    view.source_box.setChecked(False)
    assert table.isColumnHidden(model.SOURCE)
    closed = view.table.rowHeight(1)
    view._toggle_row(model.index(1, 1))
    assert view.table.rowHeight(1) > 2 * closed
    view._toggle_row(model.index(1, 1))
    assert view.table.rowHeight(1) == closed


def test_det_edge_arrows_for_points_outside_the_view(qtbot):
    """(The hull and separated systems: tests/core/display/test_det_plot.py.)"""
    import pyqtgraph as pg

    from llgui.gui.detection.hints import EdgeHints

    # a point outside the view gets an arrow at the edge, one inside none
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    item = plot.getPlotItem()
    item.setXRange(-3, 0, padding=0)
    item.setYRange(-3, 0, padding=0)
    hints = EdgeHints(item)
    hints.set_points([(-1.0, -1.0, pg.mkColor("b"), "in view"),
                      (1.5, -1.0, pg.mkColor("b"), "actDCF")])
    assert hints.outside() == ["actDCF"]
    assert len(hints.arrows) == 1 and "actDCF" in hints.arrows[0].toPlainText()
    assert "→" in hints.arrows[0].toPlainText()


def test_across_time_without_a_lifelong_table_says_what_is_missing(qtbot, tmp_path):
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(diar_bundle(tmp_path))])
        settle(qtbot, window)
        window.show_tab("time")
        tab = window.time_tab
        qtbot.waitUntil(lambda: getattr(tab, "table_missing", None) is True, timeout=10000)
        assert tab.heatmap_stack.currentWidget() is tab.no_table
        assert "[lifelong]" in tab.no_table.text() and not tab.top_split.isVisible()
        assert tab.metric_box.count() >= 1   # a diarization bundle's metrics, not empty
    finally:
        window.jobs.shutdown(2000)


def test_the_overview_strip_brushes_its_panels(qtbot, tmp_path):
    from llgui.gui.workbench.diar_view import DiarView

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    step_shown(qtbot, view, result, 1, result.errors_at(1))
    region, panel = view.split.brushes[1], view.split.panels[1]
    region.setRegion((900.0, 920.0))
    lo, hi = panel.plot.getPlotItem().getViewBox().viewRange()[0]
    assert lo == pytest.approx(900.0, abs=1e-6) and hi == pytest.approx(920.0, abs=1e-6)
    step_shown(qtbot, view, result, 1, result.errors_at(1))   # a new step: one region per panel again
    regions = [i for i in view.plot.getPlotItem().items if i in view.split.brushes]
    assert len(regions) == 2
