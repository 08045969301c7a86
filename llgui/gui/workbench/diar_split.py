"""Split view of a diarization step: one zoomed timeline per listened window.

A `same` step whose two points are 900 s apart, drawn on one axis, shows two 6-s windows as
hairlines in unreadable barcodes. Here each window (`zoom_panels`: padded, near ones merged)
gets its own panel with the same lanes, side by side, under the whole meeting drawn as an
overview strip by the DiarView that owns this widget.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QHBoxLayout, QWidget

from llgui.core.display.layout import format_time, zoom_panels
from llgui.core.display.palette import PANEL_MARK
from llgui.gui.widgets.after_paint import paint_later
from llgui.gui.widgets.plot_range import set_range

PAD = 2.0         # s of context on each side of a window
MERGE_GAP = 10.0  # s: windows closer than this share a panel
MAX_PANELS = 4
SPLIT_FILL_MS = 1
"""The panels of the step that opens the split view are drawn this long (ms) after it
(`show_split`)."""


OVERVIEW_SHARE = 0.2
OVERVIEW_FROM = 600.0
"""A single panel gets the overview strip above it when it shows less than OVERVIEW_SHARE of a
recording of at least OVERVIEW_FROM seconds (a 60-s zoom of an 89-minute recording said
nothing of where it lay)."""


def split_spans(windows, extent) -> list[tuple[float, float]]:
    """The panels' time spans for `windows`, or [] when one zoom of the whole view will do:
    several far-apart windows, or one window that is a small part of the recording."""
    panels = zoom_panels(windows, pad=PAD, merge_gap=MERGE_GAP, extent=extent)
    if len(panels) > 1:
        return panels[:MAX_PANELS]
    length = float(extent[1]) - float(extent[0])
    if panels and length >= OVERVIEW_FROM and (panels[0][1] - panels[0][0]) < OVERVIEW_SHARE * length:
        return panels
    return []


def panel_title(step, span, hours: bool) -> str:
    """A panel's title: the step's times inside it named as the question names them (t1, t2
    of `same`; t of `boundary` and `name`) in the document's clock, else the span shown
    (with the span too, "t1 = 0:27:19.8 (0:27:16.3 – 0:27:23.3)" was cut at 1366 px)."""
    target = getattr(step, "target", None)
    named = []
    for name in ("t1", "t2", "t"):
        t = getattr(target, name, None)
        if t is not None and span[0] <= t <= span[1]:
            named.append(f"{name} = {format_time(t, 1, hours)}")
    shown = f"{format_time(span[0], 1, hours)} – {format_time(span[1], 1, hours)}"
    return ", ".join(named) if named else shown   # the span: on the panel's own axis


class SplitPanels(QWidget):
    def __init__(self, make_view, parent: QWidget | None = None):
        """`make_view()` builds one panel (a DiarView that never splits itself)."""
        super().__init__(parent)
        self._make_view = make_view
        self.panels: list = []
        self.spans: list[tuple[float, float]] = []   # what is shown, for tests
        self._log = None   # the step shown (its target names the panels)
        self._brush_pool: list = []   # (region, marker) per panel on the overview, reused
        self.brushes: list = []       # the regions shown, for tests
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        from llgui.gui.workbench.diar_photo import PanelPhotos

        self.photos = PanelPhotos(self, draw_panel, lay_out_now)   # the next step's panels
        # drawn ahead

    def prepare(self, n: int) -> None:
        """At least `n` panels built (hidden until shown)."""
        while len(self.panels) < n:
            panel = self._make_view()
            panel.legend.hide()   # the overview's legend serves all panels
            panel.hide()
            self.layout().addWidget(panel, 1)
            self.panels.append(panel)

    def show_spans(self, walk, step: int, error_regions, spans, owner=None) -> None:
        """`owner`: the DiarView whose speaker colours, collar and UEM setting the panels
        share (a speaker must not change colour between the overview and a panel)."""
        self.prepare(len(spans))
        for k, panel in enumerate(self.panels):
            panel.setVisible(k < len(spans))
        for k, span in enumerate(spans):
            draw_panel(self.panels[k], k, walk, step, error_regions, span, owner, owner)
        self.show_brushes(walk, step, spans, owner)
        self.photos.uncover()   # (the live panels show the step: no picture over them)

    def show_brushes(self, walk, step: int, spans, owner=None, follow: bool = True) -> None:
        """The step's spans, and a brush each on the overview `owner` (`_add_brushes`;
        `follow`: its panel's range follows it, as when it is dragged)."""
        self._log = walk.log[step - 1] if step else None
        self.spans = list(spans)
        self.brushes = []
        if owner is not None:
            self._add_brushes(owner, spans, follow)
        self._hide_brushes_from(len(spans) if owner is not None else 0)

    def hide_brushes(self) -> None:
        """The overview's brushes hidden (a step without panels, or before a step's own)."""
        self._hide_brushes_from(0)
        self.brushes = []

    def _hide_brushes_from(self, k: int) -> None:
        for region, marker in self._brush_pool[k:]:
            if region.isVisible():
                region.setVisible(False)
            if marker.isVisible():
                marker.setVisible(False)

    def _add_brushes(self, owner, spans, follow: bool = True) -> None:
        """A draggable region on the overview strip per panel: drag it (or its edges) and the
        panel follows. The items are kept from step to step and moved (`hide_brushes` at the
        owner's next step hides them)."""
        item = owner.plot.getPlotItem()
        for k, (start, end) in enumerate(spans):
            panel = self.panels[k]
            if k == len(self._brush_pool):
                mark = QColor(PANEL_MARK)
                fill = QColor(mark)
                fill.setAlpha(28)
                region = pg.LinearRegionItem((start, end), movable=True,
                                             brush=pg.mkBrush(fill),
                                             pen=pg.mkPen(mark, width=1.5))
                region.setZValue(-8)
                region.setToolTip(f"panel {k + 1} below: drag to move it")
                region.sigRegionChanged.connect(   # (the step has set the panel's range)
                    lambda r, p=panel: set_range(p.plot.getPlotItem().getViewBox(), 0,
                                                 *r.getRegion(), padding=0))
                item.addItem(region)
                # its name (t1, t2) in bold on white over the lanes: small and in a
                # speaker's blue it could not be read at 1366x768
                marker = pg.InfiniteLine((start + end) / 2, angle=90, movable=False,
                                         pen=pg.mkPen(mark, width=2),
                                         label="", labelOpts={
                                             "position": 0.85, "color": mark,
                                             "fill": pg.mkBrush(255, 255, 255, 235),
                                             "border": pg.mkPen(mark)})
                font = QFont(marker.label.textItem.font())
                font.setPointSizeF(8)
                font.setBold(True)
                marker.label.setFont(font)
                marker.setZValue(12)   # over the lanes: its name with it (a child's stacking)
                item.addItem(marker)
                self._brush_pool.append((region, marker))
            region, marker = self._brush_pool[k]
            if not follow:   # (a panel under its picture keeps its range until drawn)
                region.blockSignals(True)
            region.setRegion((start, end))   # the panel's range, as set above
            region.blockSignals(False)
            if not region.isVisible():
                region.setVisible(True)
            self.brushes.append(region)
            # a window is a few seconds of an hour: a line and its name (t1, t2) say where
            # it lies in the recording, however narrow the brush
            title = panel_title(self._log, (start, end), False) if self._log is not None \
                else ""
            # the point the question names (t1, t2, t); else the panel's number, unless it is
            # the only one (a lone "1" named nothing)
            name = title.split(" = ")[0] if " = " in title else (
                f"{k + 1}" if len(spans) > 1 else "")
            marker.setValue((start + end) / 2)
            if marker.label.format != name:   # (a new text is laid out again)
                marker.label.setFormat(name)
            if marker.label.isVisible() != bool(name):   # no empty white box
                marker.label.setVisible(bool(name))
            if not marker.isVisible():
                marker.setVisible(True)


def draw_panel(panel, k: int, walk, step: int, error_regions, span, owner=None,
               shared=None) -> None:
    """Panel `k` of a split view at `step`, showing `span`: its lanes (`shared`: the
    overview whose bars of this step it draws too; else its own), title and lane axis (the
    first panel's only). `owner`: the overview whose colours, bar arrays, collar and UEM
    setting it shares."""
    if owner is not None:
        panel._colours = owner._colours
        panel._arrays = owner._arrays   # one set of bar arrays for all the views
        panel.collar, panel.skip_overlap = owner.collar, owner.skip_overlap
    panel.show_step(walk, step, error_regions, x_range=span, shared=shared)
    item = panel.plot.getPlotItem()
    hours = walk.document.extent[1] >= 3600
    log = walk.log[step - 1] if step else None
    panel.set_title(panel_title(log, span, hours), "8pt")
    if k and item.getAxis("left").style["showValues"]:   # one lane axis is enough
        item.getAxis("left").setStyle(showValues=False)
        item.getAxis("left").setWidth(8)


def lay_out_now(rounds: int = 3) -> None:
    """The layouts asked for so far done now, the plots' inner ones too (their requests are
    posted events as well), rather than at the event loop's next turn. Into a long show's
    split view, panels and overview were culled and labelled at the sizes they had before,
    then again at the sizes the layout gave them, and painted at both."""
    from PySide6.QtCore import QCoreApplication, QEvent

    for _ in range(rounds):   # (a layout done may ask for its children's)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def show_split(timeline, walk, step, error_regions, step_view, extent) -> bool:
    """Far-apart listened windows of `step_view` (a `StepView`): one zoomed panel each
    below, the DiarView `timeline` as the overview strip of the whole meeting. Returns True
    when the split view is on. The step that opens it draws its panels on a later turn of
    the event loop (`fill_split`)."""
    timeline._split_fill = None   # (a step whose panels were still to draw is passed)
    spans = split_spans(step_view.windows, extent) if (
        timeline._can_split and step_view is not None and step_view.windows) else []
    if not spans:
        if timeline.split is not None:
            timeline.split.photos.drop()
            timeline.split.hide_brushes()
            timeline.split.hide()
            timeline.plot.setMaximumHeight(16777215)
            timeline.plot.setMinimumHeight(0)
            timeline._lane_font(timeline.plot.font())
            timeline._fit_speakers()   # (the room the panels kept, the table's again)
        return False
    timeline._build_split()
    opening = timeline.split.isHidden()
    if opening:   # the panels it will show, shown before anything is drawn at a size
        timeline.split.show()   # (asked of a shown widget at every step: ~0.2 ms each)
        timeline.split.prepare(len(spans))
        for k, panel in enumerate(timeline.split.panels):
            panel.setVisible(k < len(spans))
    # the overview strip: the whole meeting, small lane names so that six lanes fit
    timeline.plot.setMaximumHeight(max(170, timeline.height() // 3))
    short = timeline.height() < 520
    timeline.plot.setMinimumHeight(118 if short else 150)
    # a short view (1366x768): the panels' axis names its unit in the tick labels' stead
    for panel in timeline.split.panels:
        axis = panel.plot.getPlotItem().getAxis("bottom")
        if getattr(axis, "_label_shown", None) != (not short):   # each call lays the
            axis._label_shown = not short                         # axis out anew
            axis.showLabel(not short)
    font = timeline.plot.font()
    font.setPointSizeF(6.5)
    timeline._lane_font(font)
    if opening:   # (at a later step the layout stands: laying it out then cost ~2 ms)
        timeline._fit_speakers()   # the table below leaves the panels their room now, not
        lay_out_now()              # at the next step (its rows were fitted without them)
        # the panels' lanes on a later turn of the event loop (a timer: the paint of
        # the overview at its new height, a posted event, comes first): one frame with
        # the panels' frames empty. Drawn in one turn, opening the split view held the
        # event loop for 65-120 ms on a 10-hour show. `shown` says the step once the
        # panels are drawn too
        token = timeline._split_fill = object()
        QTimer.singleShot(SPLIT_FILL_MS, timeline, lambda: _fill_overview(
            timeline, token, lambda: fill_split(timeline, token, walk, step, error_regions,
                                                spans)))
        return True
    if not timeline.split.photos.cover(timeline, walk, step, error_regions, spans):
        timeline.split.show_spans(walk, step, error_regions, spans, owner=timeline)
    return True


def _fill_overview(timeline, token, then) -> None:
    """The opening step's overview: its range (the whole meeting) and its bars culled at its
    new height (`DiarView.show_step` left them pending), then `then` (the panels) on a turn
    of its own; each painted on the turn after its own (`paint_later`)."""
    if token is not timeline._split_fill:
        return
    pending, timeline._overview_pending = timeline._overview_pending, None
    if pending is not None:
        with paint_later(timeline.window()):
            pending()

    def panels() -> None:
        with paint_later(timeline.window()):
            then()
    QTimer.singleShot(SPLIT_FILL_MS, timeline, panels)


def fill_split(timeline, token, walk, step: int, error_regions, spans) -> None:
    """The panels of the step that opened the DiarView `timeline`'s split view, unless
    another step came; the timeline says the step `shown` then."""
    if token is not timeline._split_fill:
        return
    timeline._split_fill = None
    if timeline.split is None or timeline.split.isHidden():
        return
    timeline.split.show_spans(walk, step, error_regions, spans, owner=timeline)
    timeline.shown = (walk.document.id, step)


# -- made ahead: the split view while the user looks at the document's first steps ----------

def build_ahead(view, panels: int = 2) -> None:
    """`view`'s split view (a DiarView's) made while the user looks at the document, a piece
    per turn of the event loop: its widget, then each panel (all of it at once, by the
    first step into the split view, blocked the event loop 80-100 ms on a 10-hour show)."""
    work = [lambda: view._build_split(0)]
    for k in range(panels):
        work.append(lambda k=k: view.split.prepare(k + 1))
    _run_ahead(view, work)


def _run_ahead(view, work: list) -> None:
    """Run `work`'s first callable (again while it returns True), the rest later."""
    if work and not work[0]():
        work.pop(0)
    if work:
        QTimer.singleShot(0, view, lambda: _run_ahead(view, work))
