"""Score panel: the step's scores as in figure 4 of the LREC paper, and the learning curve.

Left: bars for S_base, S_cor, S_imp and the penalised score, drawn as S_adapt (solid) with the
accumulated penalty Σ(S_imp − S_cor) hatched on top (error rates) or cut from the top (BLEU,
chrF). Right: S_adapt and S_pen against cumulative cost (figure 2), the current step marked,
with the curve's normalised area and the Minimal Supervision Rate.
"""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from llgui.core.display.layout import place_labels
from llgui.core.display.score_bars import penalty_bars, step_curve_x
from llgui.core.walkthrough import Walkthrough
from llgui.core.metrics import display_name, is_percent

BASE = QColor("#7f8c8d")
COR = QColor("#2e86c1")
IMP = QColor("#c0392b")
ADAPT = QColor("#27ae60")
PEN = QColor("#8e44ad")


class ScorePanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.bars = pg.PlotWidget()
        self.curve = pg.PlotWidget()
        for w in (self.bars, self.curve):
            w.setBackground("w")
            w.getPlotItem().setMenuEnabled(False)
        self.bars.getPlotItem().setMouseEnabled(x=False, y=False)
        self.bars.getPlotItem().hideButtons()
        self.numbers = QLabel("")
        self.numbers.setTextFormat(Qt.TextFormat.RichText)
        self.numbers.setWordWrap(True)
        # two lines, fixed: a new text never relayouts (and repaints) the whole window
        self.numbers.setFixedHeight(2 * self.numbers.fontMetrics().lineSpacing() + 6)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.addWidget(self.bars)
        plots.addWidget(self.curve)
        plots.setStretchFactor(0, 2)
        plots.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.numbers)
        layout.addWidget(plots, 1)
        self.shown: dict[str, float | None] = {}   # the numbers on screen, for tests

    def show_step(self, walk: Walkthrough, step: int) -> None:
        r = walk.replay
        unit = display_name(r.metric)
        view = r.at(step)          # the numbers come from core; this panel only draws them
        values = view.as_dict()
        self.shown = values
        better = "↑" if r.higher_is_better else "↓"   # the tooltip says it in words

        def f(v):
            return "–" if v is None else f"{v:.2f}"

        penalty = view.penalty
        memo = ""
        if view.net_generalisation is not None:
            # net generalisation: what the run gained over only applying the corrections
            memo = (f" · S<sub>pen</sub> memorise-only {f(values['s_pen_memorise'])} "
                    f"(net gen. <b>{view.net_generalisation:+.2f}</b>)")
        self.numbers.setText(
            f"<b>{unit}</b> {better} step {step}/{len(r.steps)}: "
            f"S<sub>base</sub> <b>{f(values['s_base'])}</b> · S<sub>cor</sub> "
            f"<b>{f(values['s_cor'])}</b> · S<sub>imp</sub> <b>{f(values['s_imp'])}</b> · "
            f"S<sub>adapt</sub> <b>{f(values['s_adapt'])}</b> · S<sub>pen</sub> "
            f"<b>{f(values['s_pen'])}</b> (Σ pen. {penalty:+.2f}){memo} · cost "
            f"{values['cost']:.1f}, Σ {values['cum_cost']:.1f}")
        self.numbers.setToolTip(("higher" if r.higher_is_better else "lower")
                                + f" is better · {r.signature}")
        # a narrow window wraps the numbers to a third line: the label grows to show it
        # (never shrinks: a height that follows the text would relayout at every step)
        needed = self.numbers.heightForWidth(self.numbers.width())
        if needed > self.numbers.height():
            self.numbers.setFixedHeight(needed)
        self._draw_bars(r, values)
        self._draw_curve(walk, step)

    def _draw_bars(self, r, v) -> None:
        item = self.bars.getPlotItem()
        parts = getattr(self, "_bar_items", None)
        if parts is None or parts["metric"] != r.metric:
            # built once per metric; a step only moves them (rebuilding costs ~15 ms a step)
            item.clear()
            item.disableAutoRange()   # the ranges below, not what the labels' bounds suggest
            # short names: at 1366x768 "S_base S_cor ..." ran together under five bars
            names = ["base", "cor", "imp", "pen", "pen mem."]
            item.getAxis("bottom").setTicks([[(i, n) for i, n in enumerate(names)]])
            item.setLabel("left", display_name(r.metric),
                          units="%" if is_percent(r.metric) else None)   # DCFs: plain
            item.getAxis("left").enableAutoSIPrefix(False)
            parts = {"metric": r.metric, "solid": [], "labels": []}
            for x, colour in enumerate((BASE, COR, IMP, ADAPT)):
                bar = pg.BarGraphItem(x=[x], height=[0.0], width=0.6, brush=colour,
                                      pen=pg.mkPen(colour.darker(130)))
                item.addItem(bar)
                parts["solid"].append(bar)
            parts["hatch"] = pg.BarGraphItem(x=[3], y0=[0.0], height=[0.0], width=0.6,
                                             brush=QBrush(PEN, Qt.BrushStyle.BDiagPattern),
                                             pen=pg.mkPen(PEN, width=1.5))
            item.addItem(parts["hatch"])
            # the memorise-only reference: S_pen had the system only applied the corrections
            parts["memorise"] = pg.BarGraphItem(
                x=[4], height=[0.0], width=0.6, brush=QColor(PEN.red(), PEN.green(), PEN.blue(), 60),
                pen=pg.mkPen(PEN, width=1.5, style=Qt.PenStyle.DashLine))
            item.addItem(parts["memorise"])
            for _ in range(6):   # base, cor, imp, adapt/pen top, pen/adapt inside, memorise
                label = pg.TextItem("", color=(30, 30, 30), fill=(255, 255, 255, 200),
                                    anchor=(0.5, 0.5))
                label.setZValue(10)
                item.addItem(label)
                parts["labels"].append(label)
            item.getViewBox().sigResized.connect(self._place_bar_labels)
            self._bar_items = parts
        # Figure 4: the penalised score is S_adapt (solid) with the accumulated penalty
        # hatched: stacked on top for error rates, cut from the top for BLEU/chrF.
        geometry = penalty_bars(v)
        for bar, value in zip(parts["solid"], geometry.solid):
            bar.setVisible(value is not None)
            if value is not None:
                bar.setOpts(height=[value])
        parts["hatch"].setVisible(geometry.hatch is not None)
        if geometry.hatch is not None:
            y0, height = geometry.hatch
            parts["hatch"].setOpts(y0=[y0], height=[height])
        parts["memorise"].setVisible(geometry.memorise is not None)
        if geometry.memorise is not None:
            parts["memorise"].setOpts(height=[geometry.memorise])
        # wanted: above the bar's top; the inside label just under the hatching, off it
        self._bar_texts = []
        for label, (x, value, text) in zip(parts["labels"], geometry.labels):
            shown = value is not None and text != ""
            label.setVisible(shown)
            if shown:
                label.setText(text if text is not None else f"{value:.2f}")
                self._bar_texts.append((label, x, float(value), text is not None))
        self.y_range = geometry.y_range
        item.setYRange(*geometry.view, padding=0)   # room for the top labels
        item.setXRange(-0.6, 4.6, padding=0)
        self._place_bar_labels()
        self.bars.setToolTip("S_base, S_cor and S_imp of the step; S_pen drawn as S_adapt (solid) "
                             "with the accumulated penalty Σ(S_imp − S_cor) hatched: added on "
                             "top for error rates, cut from the top for BLEU/chrF. pen mem. "
                             "(dashed): the memorise-only S_pen, had the system only applied "
                             "the corrections (S_adapt,n = S_cor,n); the difference to S_pen is "
                             "its net generalisation")

    def _place_bar_labels(self, *_) -> None:
        """Place the value labels so that none overlaps another (place_labels, in pixels):
        labels whose x-extents meet are kept apart vertically, as near their bars as fits."""
        texts = getattr(self, "_bar_texts", None)
        if not texts:
            return
        vb = self.bars.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        width, height = max(vb.width(), 1.0), max(vb.height(), 1.0)
        px_x = width / (x1 - x0)
        px_y = height / (y1 - y0)
        boxes = []
        for label, x, value, inside in texts:
            rect = label.boundingRect()   # in pixels: a TextItem ignores the view's scale
            w, h = rect.width(), rect.height()
            cx = (x - x0) * px_x
            top = (y1 - value) * px_y   # pixel row of the value, down from the top
            wanted = top + h / 2 + 2 if inside else top - h / 2 - 2
            boxes.append([label, cx, w, h, wanted])
        # groups of labels whose x-extents meet, left to right
        boxes.sort(key=lambda b: b[1])
        groups, current, right = [], [], -math.inf
        for box in boxes:
            if current and box[1] - box[2] / 2 >= right + 2:
                groups.append(current)
                current, right = [], -math.inf
            current.append(box)
            right = max(right, box[1] + box[2] / 2)
        groups.append(current)
        self.label_rects = []
        for group in groups:
            centres = place_labels([b[4] for b in group], [b[3] for b in group], gap=1.0,
                                   lo=0.0, hi=height)
            for (label, cx, w, h, _), cy in zip(group, centres):
                label.setPos(x0 + cx / px_x, y1 - cy / px_y)
                self.label_rects.append((cx - w / 2, cy - h / 2, w, h))

    @staticmethod
    def _label(item, x: float, y: float, text: str, inside: bool = False) -> None:
        label = pg.TextItem(text, color=(30, 30, 30), fill=(255, 255, 255, 190) if inside else None,
                            anchor=(0.5, -0.1) if inside else (0.5, 1.1))
        label.setPos(x, y)
        item.addItem(label)

    def _draw_curve(self, walk: Walkthrough, step: int) -> None:
        r = walk.replay
        item = self.curve.getPlotItem()
        costs, adapt = r.curve()
        marker = getattr(self, "_marker", None)
        if marker is not None and getattr(self, "_curve_of", None) is walk:
            # same document: only the step's marker moves (the curves are 1,000s of points)
            marker.setData([costs[step]], [adapt[step]])
            self._curve_title(r, step)
            return
        item.clear()
        _, pen_scores = r.pen_curve()
        # step functions: each score holds from its cost until the next step
        xs = step_curve_x(costs)
        item.plot(xs, adapt, stepMode="center", pen=pg.mkPen(ADAPT, width=2))
        item.plot(xs, pen_scores, stepMode="center",
                  pen=pg.mkPen(PEN, width=2, style=Qt.PenStyle.DashLine))
        item.addItem(pg.InfiniteLine(r.s_base, angle=0,
                                     pen=pg.mkPen(BASE, style=Qt.PenStyle.DotLine)))
        self._marker = item.plot([costs[step]], [adapt[step]], pen=None, symbol="o",
                                 symbolSize=11, symbolBrush=ADAPT, symbolPen=pg.mkPen("k"))
        self._curve_of = walk
        labels = ("cumulative cost (" + _cost_unit(walk) + ")", display_name(r.metric))
        if getattr(self, "_curve_labels", None) != labels:
            # only when they change: a new label relayouts the plot (axes, title), ~10 ms
            self._curve_labels = labels
            item.setLabel("bottom", labels[0])
            item.setLabel("left", labels[1], units="%" if is_percent(r.metric) else None)
            item.getAxis("left").enableAutoSIPrefix(False)
            item.getAxis("bottom").enableAutoSIPrefix(False)
        self._curve_title(r, step)

    def _curve_title(self, r, step: int) -> None:
        """The legend and the curve's figures; the same for every step of a document (the
        step is in the numbers above): set only when it changes, since a new title relayouts
        the plot (~10 ms a step)."""
        msr = "–" if r.msr is None else f"{r.msr:.2f} %"
        area = "none (no cost)" if math.isnan(r.curve_area) else f"{r.curve_area:.2f}"
        title = (f"<span style='color:{ADAPT.name()}'>━ S_adapt</span> "
                 f"<span style='color:{PEN.name()}'>╍ S_pen</span> ● this step"
                 f" · area {area} · MSR {msr}")
        if getattr(self, "_title", None) != title:
            self._title = title
            self.curve.getPlotItem().setTitle(title, size="8pt")


def _cost_unit(walk: Walkthrough) -> str:
    """The replay's cost unit (MT: words, or characters for scripts without spaces)."""
    return walk.replay.cost_unit or {"mt": "words", "detection": "labels",
                                     "classification": "labels"}.get(walk.document.task,
                                                                     "seconds listened")
