"""Issue 23, items 9, 16 and 19, measured on real widgets at the laptop sizes: titles,
captions and headers fit their widgets (text width against widget width), the score bars
keep their values under their own bars and the step's penalty readable, the DET plot is
square, and the empty states say what is true. Real data: WMT23 en-zh, bob.measure and
pyeer scores."""
from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetrics

from tests.gui.conftest import settle
from tests.gui.workbench.test_mt_reading import _zh_bundle

SIZES = [(1366, 768), (1500, 950)]


def _window(qtbot, size, paths, **kw):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_bundles([str(p) for p in paths], **kw)
    settle(qtbot, window)
    return window


@pytest.fixture(scope="module", params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def _zh_window(request, qapp, tmp_path_factory, reference_data):
    """The en-zh window at one size, built once for the module's three tests of it (each
    built its own: ~0.5 s of CPU a window)."""
    from llgui.gui.main_window import MainWindow
    from tests.gui.across_time.test_policy_item import wait_for

    path, *_ = _zh_bundle(tmp_path_factory.mktemp("zh"), reference_data)
    window = MainWindow(use_session=False)
    window.resize(*request.param)
    window.show()
    wait_for(lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    assert window.open_bundles([str(path)], select_doc="zh", step=3)
    wait_for(lambda: not window.jobs.busy and window.workbench.ready()
             and window.state.step == 3)
    yield window
    window.jobs.shutdown(2000)
    window.close()


@pytest.fixture
def zh(_zh_window, qtbot):
    """The module's en-zh window at step 3, its workbench shown (one test shows the
    detection tab): the tests only read it."""
    window = _zh_window
    window.show_tab("workbench")
    settle(qtbot, window)
    assert window.state.step == 3
    qtbot.wait(200)
    return window


def _rendered_title_width(plot) -> tuple[float, float]:
    """(the title as drawn, the width of its column: the view's)."""
    item = plot.getPlotItem()
    # the view's column from its left edge to the widget's right edge (the view itself grows
    # with a title too wide for it)
    left = item.getViewBox().sceneBoundingRect().left()
    return item.titleLabel.item.boundingRect().width(), plot.width() - left


def test_titles_captions_and_headers_fit_at_laptop_sizes(qtbot, zh):
    window = zh
    scores = window.workbench.scores
    # the learning curve's title: as drawn, within its column, on at most two lines
    drawn, room = _rendered_title_width(scores.curve)
    assert drawn <= room + 1, (drawn, room)
    assert 1 <= len(scores.curve_title.lines) <= 3
    assert "MSR" in " ".join(scores.curve_title.lines)   # nothing dropped
    # the score header and the MT caption: their text's height at their width fits them
    for label in (scores.numbers, window.workbench.mt_view.summary):
        assert label.heightForWidth(label.width()) <= label.height(), label.text()[:60]
    # the corrections table's header: every visible section holds its name
    table = window.workbench.table
    header = table.horizontalHeader()
    metrics = QFontMetrics(header.font())
    for k in range(header.count()):
        if not header.isSectionHidden(k):
            name = table.model().headerData(k, 1)
            assert metrics.horizontalAdvance(name) + 6 <= header.sectionSize(k), name


def test_score_bars_values_under_their_bars_and_the_step_penalty_drawn(qtbot, zh):
    window = zh
    panel = window.workbench.scores
    v = panel.shown
    geometry = panel.bar_geometry
    layout = panel.bars.layout_now()
    # each bar's value is its tick text, under it; no two tick texts meet
    slot = layout.plot.width() / 5.2   # pixels between two bars (x from -0.6 to 4.6)
    metrics = QFontMetrics(panel.bars.tick_font)
    for x, text in geometry.ticks:
        for line in text.split("\n"):
            assert metrics.horizontalAdvance(line) + 2 <= slot, (line, slot)
    # under their own bars
    for (x_px, _text), name in zip(layout.x_ticks, ("base", "cor", "imp", "adapt")):
        assert layout.bars[name].center().x() == pytest.approx(x_px, abs=1)
    # the values, rounded to the decimals the slot holds (two at these sizes when alone)
    for (x, text), key in zip(geometry.ticks, ("s_base", "s_cor", "s_imp", "s_pen")):
        shown = text.split("\n")[1]
        digits = len(shown.split(".")[1]) if "." in shown else 0
        assert float(shown) == pytest.approx(v[key], abs=0.5 * 10 ** -digits + 1e-9)
    assert len(geometry.ticks[1][1].split("\n")[1].split(".")[1]) == 2
    # the step's penalty: the imp bar outlined from S_imp up to S_cor, its value above it
    gap = layout.bars["gap"]
    low, high = geometry.view
    px_y = layout.plot.height() / (high - low)
    assert gap.height() == pytest.approx(abs(v["s_cor"] - v["s_imp"]) * px_y, abs=3)
    assert gap.center().x() == pytest.approx(layout.bars["imp"].center().x(), abs=1)
    assert layout.marks[0][0] == f"{v['s_imp'] - v['s_cor']:+.2f}" or \
        layout.marks[1][0] == f"{v['s_imp'] - v['s_cor']:+.2f}"
    # marks never on a bar
    bars = [rect for name, rect in layout.bars.items() if name != "gap"]
    for _text, rect, _colour in layout.marks:
        for bar in bars:
            assert not rect.intersects(bar)
    # a cut axis says so
    low = geometry.y_range[0]
    if low > 0:
        assert f" · from {low:g}" in panel.bars.axis_label()
        assert layout.breaks


def _det_bundle(tmp_path, reference_data):
    b, p = reference_data / "bob-measure", reference_data / "pyeer" / "non_hist"
    tar = [b / "derived_nonsep-positives.txt", p / "exp1_true.txt", p / "exp2_true.txt"]
    non = [b / "derived_nonsep-negatives.txt", p / "exp1_false.txt", p / "exp2_false.txt"]
    q = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"   # noqa: E731
    path = tmp_path / "det.toml"
    path.write_text(f'[bundle]\ntask = "detection"\nname = "bob and pyeer"\n\n[detection]\n'
                    f'targets = {q(tar)}\nnontargets = {q(non)}\n'
                    f'names = ["bob-nonsep", "pyeer-exp1", "pyeer-exp2"]\n')
    return path


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_det_plot_is_square_its_title_fits_and_the_workbench_says_why_empty(
        qtbot, tmp_path, reference_data, size):
    window = _window(qtbot, size, [_det_bundle(tmp_path, reference_data)], tab="detection")
    try:
        tab = window.detection_tab
        qtbot.waitUntil(lambda: bool(tab.results), timeout=120000)
        qtbot.wait(200)
        drawn, room = _rendered_title_width(tab.plot)
        assert drawn <= room + 1, (drawn, room)
        assert "threshold" in " ".join(tab.title.lines)
        # one probit unit as long across as up: the EER diagonal at 45 degrees
        vb = tab.plot.getPlotItem().getViewBox()
        # the legend (a line per system) whole inside the plot
        assert vb.sceneBoundingRect().contains(tab.legend.sceneBoundingRect())
        a, b = vb.mapViewToScene(QPointF(-2.0, -2.0)), vb.mapViewToScene(QPointF(-1.0, -1.0))
        angle = math.degrees(math.atan2(a.y() - b.y(), b.x() - a.x()))
        assert angle == pytest.approx(45.0, abs=1.0)
        # the x axis' labels never overlap
        axis = tab.x_axis
        lo, hi = axis.range
        values = axis.tickValues(lo, hi, axis.width())[0][1]
        per_unit = axis.width() / (hi - lo)
        widths = [axis.fontMetrics().horizontalAdvance(t)
                  for t in axis.tickStrings(values, 1, 1)]
        for (v1, w1), (v2, w2) in zip(zip(values, widths), zip(values[1:], widths[1:])):
            assert (v2 - v1) * per_unit >= (w1 + w2) / 2, (v1, v2)
        # a detection-only bundle: the workbench says where its scores are, not "Open a bundle"
        text = window.workbench.empty.text()
        assert "Open a bundle" not in text and "Detection tab" in text
        # and nothing empty around the words: no table, no plots, no cost model
        assert window.workbench.scores.isHidden() and window.workbench.table.parent().isHidden()
    finally:
        window.jobs.shutdown(2000)


def test_an_operating_point_at_p_fa_zero_gets_an_arrow(qtbot):
    import pyqtgraph as pg

    from llgui.gui.detection.hints import EdgeHints

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(400, 400)
    plot.show()
    item = plot.getPlotItem()
    item.setXRange(-3, 0, padding=0)
    item.setYRange(-3, 0, padding=0)
    hints = EdgeHints(item)
    hints.set_points([(-math.inf, -1.0, pg.mkColor("b"), "sys minDCF"),
                      (-math.inf, -math.inf, pg.mkColor("r"), "separated EER")])
    assert hints.outside() == ["sys minDCF (P_fa = 0)"]
    (arrow,) = hints.arrows
    assert arrow.textItem.toPlainText().startswith("←")
    x, y = arrow.pos().x(), arrow.pos().y()
    assert x == pytest.approx(-3.0) and y == pytest.approx(-1.0)   # at the left edge, its P_miss


def test_the_systems_tab_without_a_campaign_says_so_instead_of_an_empty_plot(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    window.show_tab("systems")
    view = window.systems_view
    assert view.pages.currentWidget() is view.empty
    assert view.empty.isVisible() and not view.plot.isVisible()
    assert "No campaign open" in view.empty.text()
    assert window.workbench.empty.text().startswith("Open a bundle")


def test_the_detection_tab_of_mt_bundles_says_so_instead_of_empty_plots(qtbot, zh):
    window = zh
    window.show_tab("detection")
    tab = window.detection_tab
    qtbot.waitUntil(lambda: getattr(tab, "pages", None) is not None
                    and tab.empty.isVisible(), timeout=10000)
    assert tab.pages.currentWidget() is tab.empty
    assert not tab.plot.isVisible()
    assert "No detection scores open: the open bundles are MT" in tab.empty.text()


def _settled(qtbot, vb, timeout_s: float = 5.0) -> None:
    """Wait until the view box's width holds across three turns of 30 ms (a layout still
    pending on a loaded machine moved it after a fixed wait)."""
    import time

    stop, widths = time.monotonic() + timeout_s, []
    while time.monotonic() < stop:
        widths.append(vb.width())
        if len(widths) >= 3 and max(widths[-3:]) - min(widths[-3:]) < 0.5:
            return
        qtbot.wait(30)
    raise AssertionError(f"the heatmap's width did not settle: {widths[-5:]}")


def test_the_heatmap_writes_values_in_cells_that_hold_them(qtbot):
    import numpy as np

    from llgui.gui.across_time.heatmap import ScoreHeatmap

    heat = ScoreHeatmap()
    qtbot.addWidget(heat)
    heat.resize(500, 400)
    heat.show()
    qtbot.waitExposed(heat)
    values = np.array([[41.54, 46.19], [23.71, np.nan]])
    heat.set_matrix(values, ["M0", "M1"], ["t0", "t1"], "BLEU", True)
    vb = heat.plot.getPlotItem().getViewBox()
    _settled(qtbot, vb)
    heat._fit_cell_labels()
    # two decimals, as the tables write them (one made 50.05 and 49.95 alike)
    assert sorted(heat.cell_values.texts()) == ["23.71", "41.54", "46.19"]   # NaN stays blank
    assert heat.cell_values.isVisible()
    assert heat.cell_values.text_size()[0] <= vb.width() / 2   # two columns
    # drawn: around each written cell's centre, pixels of the text's colour on the cell's
    picture = heat.plot.grab().toImage()
    for row, col, text, colour in heat.cell_values.labels:
        centre = heat.plot.mapFromScene(heat.cell_scene_position(row, col))
        pixels = {picture.pixelColor(centre.x() + dx, centre.y() + dy).name()
                  for dx in range(-12, 13) for dy in range(-5, 6)}
        assert colour.name() in pixels or any(
            _near(name, colour.name()) for name in pixels), (text, colour.name())
    # more columns in the same room: two decimals while they fit, then one, then colours
    # and hover only (the columns where each happens, from the texts' own widths)
    two, one = heat.cell_values.text_size(2)[0], heat.cell_values.text_size(1)[0]
    assert two > one
    room = vb.width()
    for columns, want in ((int(room // (two + 2)), 2), (int(room // (one + 2)), 1),
                          (int(room // (one + 2)) + 2, 0)):
        if want == 1 and columns == int(room // (two + 2)):
            continue   # (no column count between the two widths at this font)
        wide = np.full((2, columns), 55.55)
        heat.set_matrix(wide, ["M0", "M1"], [f"t{k}" for k in range(columns)], "BLEU", True)
        _settled(qtbot, vb)
        heat._fit_cell_labels()
        assert abs(vb.width() - room) < 1
        state = heat.cell_values.decimals if heat.cell_values.isVisible() else 0
        assert state == want, (columns, room, two, one)
        if want:
            assert set(heat.cell_values.texts()) == {f"{55.55:.{want}f}"}


def _near(name: str, target: str, tolerance: int = 40) -> bool:
    """Two #rrggbb colours within `tolerance` on every channel (antialiased text)."""
    a = [int(name[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(target[i:i + 2], 16) for i in (1, 3, 5)]
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def _four_documents(tmp_path, reference_data):
    """WMT23 en-zh as four documents, each fully post-edited at its one step (S_adapt 100, as
    in a simulated run): scores at the top of the plot, on the right, where the legend is."""
    import json

    txt = reference_data / "wmt23-general" / "txt"
    refs = (txt / "references" / "generaltest2023.en-zh.ref.refA.zh").read_text(
        encoding="utf-8").split("\n")
    docs, log = [], []
    for k, (a, b) in enumerate(((1, 37), (38, 90), (91, 160), (161, 240)), 1):
        docs.append(f'[[documents]]\nid = "d{k}"\ntime = "2023-0{k + 5}-01"\nlines = "{a}-{b}"\n'
                    f'references = ["{txt}/references/generaltest2023.en-zh.ref.refA.zh"]\n'
                    f'hypothesis = "{txt}/system-outputs/generaltest2023.en-zh.hyp.ONLINE-B.zh"\n')
        log.append({"doc": f"d{k}", "step": 1, "initiative": "active", "kind": "reference",
                    "target": {"sentence": 1},
                    "adapted": {"lines": {str(i + 1): refs[a - 1 + i] for i in range(b - a + 1)}}})
    (tmp_path / "log.jsonl").write_text("\n".join(json.dumps(e, ensure_ascii=False)
                                                  for e in log) + "\n", encoding="utf-8")
    path = tmp_path / "four.toml"
    path.write_text('[bundle]\ntask = "mt"\nname = "four"\nmetrics = ["bleu"]\n\n[settings]\n'
                    'trg_lang = "zh"\n\n[interactions]\nlog = "log.jsonl"\n\n'
                    + "\n".join(docs), encoding="utf-8")
    return path


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_per_document_legend_covers_no_point(qtbot, tmp_path, reference_data, size):
    """Across time at laptop sizes: the legend of the per-document scores sits above them
    (four rows covered the last points at 1366x768)."""
    import pyqtgraph as pg

    window = _window(qtbot, size, [_four_documents(tmp_path, reference_data)], tab="time")
    try:
        tab = window.time_tab
        qtbot.waitUntil(lambda: getattr(tab, "series_plot", None) is not None
                        and tab.series_plot.getPlotItem().legend is not None
                        and len(tab.series_plot.getPlotItem().legend.items) >= 3,
                        timeout=60000)
        # as short as with a lifelong table above it at 1366x768
        tab.series_plot.setFixedHeight(190)
        qtbot.wait(300)
        item = tab.series_plot.getPlotItem()
        legend = item.legend.sceneBoundingRect()
        vb = item.getViewBox()
        points = 0
        for curve in item.listDataItems():
            if not isinstance(curve, pg.PlotDataItem):
                continue
            xs, ys = curve.getData()
            for x, y in zip(xs if xs is not None else [], ys if ys is not None else []):
                if math.isfinite(x) and math.isfinite(y):
                    points += 1
                    assert not legend.contains(vb.mapViewToScene(QPointF(x, y))), (x, y)
        assert points >= 12
        # and it takes no room from the scores' axis: the range is theirs with a margin
        # (the legend inside asked for 45 % headroom: a BLEU axis up to 150)
        ys = [y for curve in item.listDataItems() if isinstance(curve, pg.PlotDataItem)
              for y in (curve.getData()[1] if curve.getData()[1] is not None else [])
              if math.isfinite(y)]
        low, high = vb.viewRange()[1]
        assert low <= min(ys) and max(ys) <= high
        assert high - low <= 1.25 * (max(ys) - min(ys)) + 1.0
        assert legend.top() >= vb.sceneBoundingRect().bottom() - 0.5
    finally:
        window.jobs.shutdown(2000)


def test_the_diarization_lanes_say_h0_at_step_0(qtbot):
    """Issue 23 item 19: at step 0 nothing was seen or corrected: no "seen hₙ₋₁" lane."""
    from llgui.core.walkthrough import walk
    from llgui.gui.workbench.diar_view import LANES, DiarView
    from llgui.io.bundle import load_bundle
    from tests.conftest import REPO

    bundle = load_bundle(REPO / "resources" / "demo" / "diarization" / "bundle.toml")
    doc = bundle.documents[0]
    result = walk(doc, bundle.steps_of(doc.id), "der", bundle.settings, bundle.cost)
    view = DiarView()
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    axis = view.plot.getPlotItem().getAxis("left")
    view.show_step(result, 0)
    assert axis.names[1] == "h₀ (system)" and "ₙ" not in " ".join(axis.names)
    view.show_step(result, 1)
    assert tuple(axis.names) == LANES and "seen hₙ₋₁" in axis.names


def test_points_beyond_the_same_edges_get_hints_that_do_not_overlap(qtbot):
    """Five systems' actDCF above a DET view and two minDCF beyond its top-left corner (the
    demo at P_target = 0.01): one short hint per edge, counting the points (its tooltip names them),
    the two hints' boxes apart and inside the view."""
    import pyqtgraph as pg

    from llgui.gui.detection.hints import EdgeHints

    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.resize(420, 400)
    plot.show()
    item = plot.getPlotItem()
    item.setXRange(-3, 0, padding=0)
    item.setYRange(-3, 0, padding=0)
    hints = EdgeHints(item)
    colours = [pg.mkColor(c) for c in "brgmc"]
    hints.set_points([(-2.9 + 0.1 * k, 0.5, colours[k], f"s{k} actDCF") for k in range(5)]
                     + [(-3.5, 0.6, colours[0], "s0 minDCF"), (-3.4, 0.7, colours[1],
                                                                   "s1 minDCF")])
    assert len(hints.outside()) == 7
    texts = sorted(a.textItem.toPlainText() for a in hints.arrows)
    assert texts == ["↑ 5 points", "↖ 2 points"]
    view = item.getViewBox()
    boxes = [a.sceneBoundingRect() for a in hints.arrows]
    assert not boxes[0].intersects(boxes[1])
    shown = view.sceneBoundingRect()
    assert all(shown.left() - 0.5 <= b.left() and b.right() <= shown.right() + 0.5
               for b in boxes), (boxes, shown)
    assert "s4 actDCF" in next(a for a in hints.arrows if "5 points" in
                               a.textItem.toPlainText()).toolTip()


def test_a_short_probit_axis_drops_ticks_that_would_touch_keeping_the_decades(qtbot):
    """At 1366 x 768 the DET plot's 0.1 and 0.2 % labels touched: on a short axis the ticks
    that would overlap give way, 2s before 5s before decades."""
    import pyqtgraph as pg
    from scipy.special import ndtr

    from llgui.core.detection.det import probit
    from llgui.gui.widgets.probit_axis import ProbitAxisItem

    axis = ProbitAxisItem("bottom")
    plot = pg.PlotWidget(axisItems={"bottom": axis})
    qtbot.addWidget(plot)
    lo, hi = float(probit(0.0005)), float(probit(0.5))
    metrics = axis.fontMetrics()
    for size in (900, 420, 250):
        values = axis.tickValues(lo, hi, size)[0][1]
        labels = axis.tickStrings(values, 1.0, 1.0)
        per_unit = size / (hi - lo)
        widths = [metrics.horizontalAdvance(t) for t in labels]
        for k in range(len(values) - 1):   # neighbours at least their half widths apart
            assert (values[k + 1] - values[k]) * per_unit >= (widths[k] + widths[k + 1]) / 2
        assert {"0.1", "1", "10"} <= set(labels), (size, labels)
        if size == 900:
            assert {"0.2", "0.5", "2", "5", "20", "40"} <= set(labels)
    assert "0.2" not in labels and len(labels) < 9
    assert [round(float(ndtr(v)), 6) for v in values] == sorted(
        round(float(ndtr(v)), 6) for v in values)
