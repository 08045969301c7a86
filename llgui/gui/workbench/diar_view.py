"""Diarization view: a timeline with one lane per version of the hypothesis at a step.

Lanes, top to bottom: reference; the hypothesis the human saw (h_{n-1}); its corrected and
impaired versions; the system's hypothesis after the step (h_n); and the errors of h_n (miss,
false alarm, confusion). Reference speakers have fixed colours (sorted labels, so a speaker
who recurs across shows keeps its colour); a hypothesis label takes the colour of the
reference speaker the optimal mapping gives it, or grey when it has none. The windows the
human listened to are shaded. Mouse: drag to pan, wheel to zoom the time axis, Shift+drag to
select a time region (`selection_changed`, played by the audio bar); `set_playhead(t)` draws
the playing position (`llgui.gui.workbench.diar_audio`).
"""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import QGraphicsScene, QLabel, QSplitter, QVBoxLayout, QWidget

from llgui.core.display.lanes import (
    BAR_FILL, collar_zones, error_parts, extend_colours, focus_range, label_colour,
    lane_bars, lane_geometry, lane_parts, mapped_rank, visible_bars,
)
from llgui.core.display.palette import (
    ERROR_COLOURS, IMPAIRED, PATTERN_GLYPHS, UNMAPPED, base_colour, speaker_colours,
    speaker_palette, speaker_style, styles_note, unmapped_colours,
)
from llgui.core.types import Turn
from llgui.core.walkthrough import Walkthrough
from llgui.gui.workbench.diar_axes import LaneAxis, SelectViewBox, TimeAxis
from llgui.gui.workbench.diar_bars import FlatBars, bars_by_colour, same_arrays, settle_texts
from llgui.gui.workbench.diar_paint import LaneBars, LaneLabels, Layer, Shaded
from llgui.gui.workbench.diar_labels import TurnLabels
from llgui.gui.widgets.plot_range import quiet_hidden_axes, set_range, set_tip

# Speaker colours keep away from the error, impaired and unmapped colours (core/display/palette.py):
# a speaker drawn in the red of "miss" read as an error.
PALETTE = speaker_palette(16)
MAX_COLLAR_ZONES = 20_000   # reference boundaries up to which collar zones are drawn
NO_BARS = (np.zeros(0),) * 4
LANES = ("reference", "seen h\u2099\u208b\u2081", "corrected", "impaired", "adapted h\u2099",
         "errors of h\u2099")
LANES_AT_BASE = ("reference", "h\u2080 (system)", "corrected", "impaired", "h\u2080",
                 "errors of h\u2080")


class DiarView(TurnLabels, QWidget):
    LANE_HEIGHT = 0.8
    selection_changed = Signal(object)
    """(start, end) seconds of the region Shift+dragged on the timeline, or None."""

    def __init__(self, parent: QWidget | None = None, split: bool = True):
        super().__init__(parent)
        self._can_split = split   # panels of a split view never split themselves
        self.split = None         # SplitPanels, built at the first far-apart step
        self._building = False    # the split view is being made ahead (`diar_split.build_ahead`)
        self.plot = pg.PlotWidget(viewBox=SelectViewBox(self.select),
                                  axisItems={"left": LaneAxis(LANES, orientation="left",
                                                                all_names=(LANES, LANES_AT_BASE),
                                                                keep_width=split),
                                             "bottom": TimeAxis(orientation="bottom")})
        self.plot.setBackground("w")
        # bars move at every step: no spatial index to keep (Qt's advice for scenes whose
        # items move all the time; ~100 items are searched as fast without it)
        self.plot.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        item = self.plot.getPlotItem()
        item.setMouseEnabled(x=True, y=False)
        quiet_hidden_axes(item)
        item.showGrid(x=True, y=False, alpha=0.2)
        bottom = item.getAxis("bottom")
        bottom.setLabel("time (m:ss)")
        bottom.enableAutoSIPrefix(False)
        item.setYRange(-len(LANES) + 0.5, 0.6, padding=0)
        item.getViewBox().setLimits(yMin=-len(LANES), yMax=1)
        # every range is set by a step (auto-range on made a panel's first range two, each
        # culling its lanes)
        item.getViewBox().disableAutoRange()
        self.legend = QLabel("")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # the per-speaker breakdown beside the timeline (panels of a split view have none)
        self.speakers = None
        if split:
            from llgui.gui.workbench.diar_speakers import SpeakerTable

            self.speakers = SpeakerTable()
            row = QSplitter(Qt.Orientation.Horizontal)
            row.addWidget(self.plot)
            row.addWidget(self.speakers)
            row.setStretchFactor(0, 3)
            row.setStretchFactor(1, 1)
            row.setCollapsible(0, False)
            layout.addWidget(row, 1)
            self._speaker_row = row
        else:
            layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)
        self._colours: dict[str, str] = {}
        self._tones: dict[str, str] = {}   # unmapped clusters of the step shown
        self._doc_id: str | None = None
        self._arrays: dict = {}
        self._drawn: list = []   # (brush, colour) of the step's layers, given bars by `_cull`
        self._brushes: dict[str, QBrush] = {}
        # every lane's bars in one item, every turn label in another (`diar_paint`): a step
        # gives them arrays, not ~80 pyqtgraph items new values each
        self.bars = LaneBars()
        item.addItem(self.bars)
        self.turn_labels = LaneLabels()
        self.turn_labels.setZValue(5)
        item.addItem(self.turn_labels, ignoreBounds=True)
        self._layers: dict = {}   # (colour, brush) -> the Layer drawn
        self._regions: list = []
        # the listened windows: shaded under the lanes, an edge line each side
        self.listened = Shaded(QBrush(QColor(255, 215, 0, 70)),
                               pg.mkPen(QColor(200, 150, 0), width=1))
        self.listened.setZValue(-10)
        item.addItem(self.listened, ignoreBounds=True)
        self._culls = 0            # times the bars were culled to the range shown
        self._merged: list = []    # the colours of the step shown
        self._rows: list = []      # (parts, y0, height) per lane of the step shown
        item.getViewBox().sigXRangeChanged.connect(self._cull)
        item.getViewBox().sigResized.connect(self._on_resized)   # labels fit the new size
        self.plot.scene().sigMouseMoved.connect(self._hover)
        self._lane_info: dict = {}   # row -> (lane name, turns, mapping, bar arrays)
        self._hours = False
        self.labelled: list = []     # (row, text) of the labels shown, for tests
        self._labels_for = None      # what the labels were placed for
        self._collar_bars = None     # the collar's zones: one bar item, culled
        self._collar_key = None
        self._collar_zones = None
        self._collar_drawn = None
        self.lanes: dict[str, tuple] = {}   # what is drawn, for tests: lane name -> turns
        self.shown: tuple = ()              # (document id, step) on screen
        self._split_fill = None             # the split view's panels to draw (`diar_split`)
        self._overview_pending = None       # the opening step's overview range (`diar_split`)
        self.playhead = pg.InfiniteLine(0.0, angle=90, pen=pg.mkPen("#d00000", width=2))
        self.playhead.setZValue(50)
        self.playhead.setVisible(False)
        item.addItem(self.playhead, ignoreBounds=True)
        self.selection = pg.LinearRegionItem((0, 0), movable=True,
                                             brush=QBrush(QColor(40, 110, 230, 60)),
                                             pen=pg.mkPen(QColor(40, 90, 200), width=2))
        self.selection.setZValue(40)
        self.selection.setVisible(False)
        self.selection.sigRegionChangeFinished.connect(
            lambda *_: self.selection_changed.emit(self.selection.getRegion()))
        item.addItem(self.selection, ignoreBounds=True)

    # -- the audio's hooks: the playhead, the selected region ---------------------------------

    def set_playhead(self, t: float | None) -> None:
        """Draw the playing position at `t` seconds (None or < 0: hide it), here and in the
        panels of a split view."""
        self._panels_live()
        for view in [self] + (self.split.panels if self.split is not None else []):
            view.playhead.setVisible(t is not None and t >= 0)
            if t is not None and t >= 0:
                view.playhead.setValue(t)

    def select(self, start: float, end: float, finished: bool = True) -> None:
        """Show the region [start, end] as selected; `selection_changed` when `finished`.
        A selection in one panel of a split view clears the others'."""
        owner = getattr(self, "_owner", None) or self
        owner._panels_live()
        for view in [owner] + (owner.split.panels if owner.split is not None else []):
            if view is not self:
                view.selection.setVisible(False)
        self.selection.blockSignals(True)
        self.selection.setRegion((start, end))
        self.selection.blockSignals(False)
        self.selection.setVisible(end > start)
        if finished:
            owner.selection_changed.emit((start, end) if end > start else None)

    def clear_selection(self) -> None:
        owner = getattr(self, "_owner", None) or self
        owner._panels_live()
        for view in [owner] + (owner.split.panels if owner.split is not None else []):
            view.selection.setVisible(False)
        owner.selection_changed.emit(None)

    def _panels_live(self) -> None:
        """The split view's live panels at the step shown, no picture over them
        (`diar_photo`): what is drawn on them now is drawn on the step's."""
        if self.split is not None:
            self.split.photos.bring_live()

    def set_speakers(self, reference_labels) -> None:
        """Fix the reference colours of one meeting (its speakers as far apart as can be)."""
        self._colours = speaker_colours(reference_labels)

    def show_step(self, walk: Walkthrough, step: int, error_regions=None,
                  x_range: tuple[float, float] | None = None,
                  shared: "DiarView | None" = None) -> None:
        """`x_range`: the time range to show (a panel of a split view), else the listened
        windows (or the whole meeting, as the overview of a split view). `shared`: the view
        whose bars of this step, already laid out, this one draws too (a panel of the split
        view and its overview show the same lanes)."""
        doc = walk.document
        view, lanes, self._tones = self._step_lanes(walk, step)
        seen = view.seen if view else walk.base
        seen_map = view.mapping if view else walk.base_mapping
        # step 0: nothing was seen or corrected yet, the lanes say h₀ (issue 23 item 19)
        axis = self.plot.getPlotItem().getAxis("left")
        names = LANES if step else LANES_AT_BASE
        if axis.names is not names:
            axis.names = names
            axis.picture = None
            axis.update()
        item = self.plot.getPlotItem()
        for region in self._regions:
            item.removeItem(region)
        self._regions = []
        # (the listened windows' items and the overview's brushes are shown or hidden below
        # as the step needs them: hiding them all first toggled each one at every step)
        self.lanes = {}
        self._drawn = []
        self._pending: dict[str, list] = {}
        self._rows: list = []   # (parts, y0, height) per lane drawn: what `_cull` draws
        self._lane_info = {}
        self._hours = doc.extent[1] >= 3600
        for row, (name, turns, mapping) in enumerate(lanes):
            unmappable = view.unmappable if (view and name == "impaired") else None
            if shared is None:
                self._draw_lane(item, -row, turns, mapping, unmappable)
            self.lanes[name] = tuple(turns) if not isinstance(turns, tuple) else turns
            if turns:
                self._lane_info[row] = (LANES[row], turns, mapping,
                                        self._lane_arrays(turns, mapping, unmappable))
        if error_regions:
            if shared is None:
                self._draw_errors(item, -(len(lanes)), error_regions)
            else:
                self.lanes["errors"] = tuple(error_regions)
        self._draw_scoring_zones(item, doc)
        if shared is None:
            self._flush(item)
        else:   # the overview's bars of this step, each colour in this view's own item
            self._draw_merged(item, shared._merged)
            self._merged = shared._merged
            self._rows = shared._rows
        # the listened windows, shaded by one item (`diar_paint.Shaded`)
        self.listened.set_regions(view.windows if view is not None else ())
        start, end = doc.extent
        bottom = item.getAxis("bottom")
        if bottom.hours != (end >= 3600):
            bottom.hours = end >= 3600
            bottom.setLabel("time (h:mm:ss)" if bottom.hours else "time (m:ss)")
            bottom.picture = None
        if doc.id != self._doc_id:
            room = max(end - start, 1.0)   # (a turn may end past the extent)
            for painted in (self.bars, self.turn_labels, self.listened):
                painted.set_extent(
                    (start, end, -len(LANES) + 1 - self.LANE_HEIGHT / 2, self.LANE_HEIGHT / 2),
                    (start - room, end + room, -len(LANES), 1.0))   # (the view's limits)
            self.bars.informViewBoundsChanged()
            if x_range is None:   # (a panel's range is set below: the whole meeting
                item.setXRange(start, end, padding=0.01)   # culled first was for nothing)
            self._doc_id = doc.id
        if shared is None:   # what changes the plot's size first: then drawn at its size
            self._update_legend(doc.reference, seen, seen_map, view)
        if self.speakers is not None:
            adapted = view.adapted if view else walk.base
            unmapped = tuple(sorted(set(lane_geometry(seen)["labels"]) - set(seen_map or {})))
            self.speakers.show_step(doc, seen_map, adapted,
                                    view.adapted_mapping if view else walk.base_mapping,
                                    self._colours, self.collar, self.skip_overlap,
                                    seen_unmapped=unmapped)
            self._fit_speakers()
        split = self._show_split(walk, step, error_regions, view, (start, end))
        if self._can_split and self.split is None and not self._building:
            # the first step's panels, built while the user looks at this one (building a
            # plot widget is ~50 ms the step would otherwise pay)
            self._building = True
            from llgui.gui.workbench.diar_split import build_ahead

            QTimer.singleShot(0, self, lambda: build_ahead(self))
        def to_range() -> None:
            culls = self._culls
            box = item.getViewBox()   # (each only when it changes: see `set_range`)
            if x_range is not None:
                set_range(box, 0, *x_range, padding=0)
            elif split:
                set_range(box, 0, start, end, padding=0.01)   # the overview: the meeting
            elif view is not None and view.windows:
                set_range(box, 0, *focus_range(view.windows, (start, end)), padding=0)
            if self._culls == culls:   # no new range has culled the step's bars already
                self._cull()

        self._overview_pending = None
        if self._split_fill is not None:
            # the step that opens the split view: the overview's whole meeting, culled at its
            # new height, on the next turn of the event loop, then the panels on the one after
            # (`diar_split.show_split`); in one turn they held a 10-hour show's event loop
            # 30-40 ms, and 50-65 with the paint
            self._overview_pending = to_range
        else:
            to_range()
        title = self._title(doc, step, view)
        if self._can_split:   # a panel's title is its span's (`SplitPanels.show_spans`)
            self.set_title(title, "9pt")
        if self._split_fill is None:   # (else once its panels are drawn: `fill_split`)
            self.shown = (doc.id, step)
        if self._can_split:   # the next step's lanes, labels and spans while the user reads
            from llgui.gui.workbench import diar_ahead

            diar_ahead.schedule(self, walk, step)

    def _step_lanes(self, walk: Walkthrough, step: int) -> tuple:
        """(the step's view or None, its lanes as (name, turns, mapping), the unmapped
        clusters' tones)."""
        doc = walk.document
        # labels from the cached geometry: no pass over 10,000 turns on the main thread
        extend_colours(self._colours, lane_geometry(doc.reference)["labels"], PALETTE)
        view = walk.steps[step - 1] if step > 0 else None
        seen_map = view.mapping if view else walk.base_mapping
        lanes = [
            ("reference", doc.reference, None),
            ("seen", view.seen if view else walk.base, seen_map),
            ("corrected", view.corrected if view else (), seen_map),
            ("impaired", view.impaired if view and view.impaired else (), seen_map),
            ("adapted", view.adapted if view else walk.base,
             view.adapted_mapping if view else walk.base_mapping),
        ]
        # one tone per unmapped cluster for the whole step: a cluster unmapped in several
        # lanes keeps its tone in all of them (per lane, b6 was tan above and blue below)
        blocked = {view.unmappable} if view is not None and view.unmappable else set()
        unmapped = {label for _, turns, mapping in lanes[1:] if turns
                    for label in lane_geometry(turns)["labels"]
                    if label not in (mapping or {}) and label not in blocked}
        return view, lanes, unmapped_colours(unmapped, {})

    def set_title(self, text: str, size: str) -> None:
        """The plot's title, set only when it changes (a new title lays the plot out
        again)."""
        shown = getattr(self, "_title_shown", None)
        if shown == (text, size):
            return
        self._title_shown = (text, size)
        label = self.plot.getPlotItem().titleLabel
        if shown is None or shown[1] != size or not label.isVisible() \
                or label.opts.get("justify", "center") != "center":
            self.plot.getPlotItem().setTitle(text, size=size)
            return
        # a new text of the same style: set in the label's text item and centred there,
        # without the label's new minimum size, which laid the plot out again (and asked
        # for a second paint of the window) at every step of a split view
        label.text = text
        if "<" in text or "&" in text:
            label.item.setHtml(self._title_style(label) % text)
        else:   # a panel's title, plain: its style on the item (an HTML text is laid out
            # anew: 0.25 ms, five times a plain one, at every step for every panel)
            self._plain_style(label, size)
            label.item.setPlainText(text)
        if label.itemRect().width() > label.rect().width():   # too wide: as it was
            self.plot.getPlotItem().setTitle(text, size=size)
            return
        label.item.setPos(0, 0)
        bounds = label.itemRect()
        bounds.moveCenter(label.rect().center())
        label.item.setPos(bounds.topLeft() - label.itemRect().topLeft())

    def _plain_style(self, label, size: str) -> None:
        """The title item's own font and colour as `_title_style` gives them (what a plain
        text is drawn in)."""
        if getattr(label, "_plain_size", None) == size:
            return
        label._plain_size = size
        font = QFont(label.item.font())
        font.setPointSizeF(float(size.removesuffix("pt")))
        label.item.setFont(font)
        label.item.setDefaultTextColor(
            pg.mkColor(label.opts.get("color") or pg.getConfigOption("foreground")))

    @staticmethod
    def _title_style(label) -> str:
        """The HTML `LabelItem.setText` wraps a title in, with %s for its text."""
        colour = pg.mkColor(label.opts.get("color") or pg.getConfigOption("foreground"))
        style = ["color: " + colour.name(QColor.NameFormat.HexArgb)]
        if "size" in label.opts:
            style.append("font-size: " + label.opts["size"])
        return "<span style='" + "; ".join(style) + "'>%s</span>"

    TIMELINE_MIN = 480
    """Pixels the timeline keeps beside the per-speaker table; narrower, the table goes
    below it (at 1366 and 1500 px it was collapsed to nothing at the right edge, and at
    1920 its confusion and err % columns were cut)."""
    PANELS_MIN = 175   # pixels the zoomed panels keep under a per-speaker table below
    SPEAKER_ROWS_MIN = 4
    """Rows a per-speaker table below the timeline shows whatever the room: an AMI meeting's
    three speakers and its "(unmapped)" row, the only one with the unmapped cluster's false
    alarm (at 1366x768 it was scrolled out of view, under 250 px of empty room)."""

    VERDICT_COLOURS = {"applied": "#1a7f37", "ignored": "#b42318",
                       "changed otherwise": "#9a6700", "nothing to correct": "#555555"}

    def _title(self, doc, step: int, view) -> str:
        """The document and step, and what the system did with the step's correction
        (`llgui.core.diarization.verdict`, as MT's applied / ignored / changed otherwise)."""
        from llgui.core.diarization.verdict import step_verdict

        head = f"{html.escape(doc.id)} — " + (f"step {step}" if step else "base")
        self.verdict = None
        if view is None or not self._can_split:
            return head
        self.verdict = step_verdict(view, doc.reference)
        if self.verdict is None:
            return head
        colour = self.VERDICT_COLOURS[self.verdict.verdict]
        texts = self.verdict.texts()
        set_tip(self.plot, f"system: {texts[0]}: {self.verdict.explanation()}")
        # the longest that fits over the plot: a title wider than it widened the plot's
        # column past the widget's edge (the view box ran 11 px out of the window)
        room = self.plot.getPlotItem().getViewBox().width() - 8
        metrics = self._title_metrics()
        text = next((t for t in texts if metrics.horizontalAdvance("system: " + t) <= room),
                    texts[-1])
        return f"system: <span style='color:{colour}'>{html.escape(text)}</span>"

    def _title_metrics(self):
        """The metrics of the 9-pt title font (`set_title`)."""
        from PySide6.QtGui import QFontMetricsF

        metrics = getattr(self, "_title_font_metrics", None)
        if metrics is None:
            font = self.plot.font()
            font.setPointSizeF(9)
            metrics = self._title_font_metrics = QFontMetricsF(font)
        return metrics

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        owner = getattr(self, "_owner", None)
        if owner is not None:   # a panel: a picture over it has the size it had
            owner._panels_live()
        self._fit_speakers()

    def _fit_speakers(self) -> None:
        """The per-speaker table whole: beside the timeline when both fit, else below it,
        every column shown either way."""
        if self.speakers is None or self.width() < 200:
            return
        row, table = self._speaker_row, self.speakers
        width, height = self.width(), row.height()
        wanted = table.wanted_width()
        beside = width - wanted >= self.TIMELINE_MIN
        orientation = Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical
        if row.orientation() != orientation:
            row.setOrientation(orientation)
        # each only when it changes: a splitter given its own sizes again lays out and
        # repaints the window's right column (the score plots twice a step)
        if beside:
            sizes = [width - wanted, wanted]
        else:   # below: every row when there is room, else as many as leave the zoomed
            # panels PANELS_MIN (the table scrolls), and at least SPEAKER_ROWS_MIN
            room = self.height() - self.legend.height() - self.plot.minimumHeight()
            if self.split is not None and self.split.isVisible():
                room -= self.PANELS_MIN
            wanted = table.rows_wanted()   # (whole rows: no half one)
            below = table.wanted_height(max(min(wanted, table.rows_within(room)),
                                            min(wanted, self.SPEAKER_ROWS_MIN)))
            if (table.minimumHeight(), table.maximumHeight()) != (below, below):
                table.setMinimumHeight(below)
                table.setMaximumHeight(below)
            sizes = [max(height - below, 1), below]
        if row.sizes() != sizes:
            row.setSizes(sizes)
        if beside and (table.minimumHeight(), table.maximumHeight()) != (0, 16777215):
            table.setMinimumHeight(0)
            table.setMaximumHeight(16777215)

    collar = 0.0   # s, total width (pyannote's); the workbench sets it from the bundle
    skip_overlap = False

    def _draw_scoring_zones(self, item, doc) -> None:
        """The collar's no-score zones (hatched, around every reference boundary) and the UEM
        limits (dashed lines): what the DER does not count is seen as such."""
        uem = tuple(doc.uem or ())
        if getattr(self, "_zones_of", None) != uem:   # the same UEM: its lines stand
            for zone in getattr(self, "_zones", ()):
                item.removeItem(zone)
            self._zones = []
            self._zones_of = uem
            for start, end in uem:
                for t in (start, end):
                    line = pg.InfiniteLine(t, angle=90, pen=pg.mkPen(
                        "#555555", width=1.5, style=Qt.PenStyle.DashLine))
                    line.setToolTip("UEM limit: only the time inside is scored")
                    item.addItem(line)
                    self._zones.append(line)
        # (none past MAX_COLLAR_ZONES boundaries: on a 10-hour show hatching would be grey
        # paint, and slow). One bar item per view, kept: `_cull` gives it the zones in view,
        # and none where they would be narrower than COLLAR_MIN_PX (an overview)
        key = (id(doc.reference), self.collar)
        if self._collar_key != key:
            self._collar_key = key
            zones = collar_zones(doc.reference, self.collar, MAX_COLLAR_ZONES)
            self._collar_zones = None if zones is None else (
                zones[0], np.full(zones[0].shape, float(zones[1])))
        if self._collar_zones is None:
            if self._collar_bars is not None:
                self._collar_bars.setVisible(False)
            return
        if self._collar_bars is None:
            # translucent grey: a hatch pattern is scaled with the time axis and vanished
            bars = FlatBars(x0=[], width=[], y0=[], height=[],
                                   brush=QBrush(QColor(110, 110, 110, 70)),
                                   pen=QPen(Qt.PenStyle.NoPen))
            bars.setZValue(-5)
            item.addItem(bars)
            self._collar_bars = bars
        self._collar_bars.setToolTip(f"collar {self.collar:g} s (total width) around each "
                                     f"reference boundary: not scored")
        self._collar_drawn = None

    def _cull_collar(self, lo: float, hi: float) -> None:
        bars, zones = self._collar_bars, self._collar_zones
        if bars is None:
            return
        if zones is None or not self.collar_shown(lo, hi):
            bars.setVisible(False)
            return
        x0, width = zones
        visible = visible_bars(x0, width, lo, hi)
        span = (int(visible.argmax()) if visible.any() else 0, int(visible.sum()))
        bars.setVisible(True)
        if span != self._collar_drawn:
            self._collar_drawn = span
            top = -len(LANES) + 0.6
            n = int(visible.sum())
            bars.setOpts(x0=x0[visible], width=width[visible], y0=np.full(n, top),
                         height=np.full(n, len(LANES) - 0.2))

    def _build_split(self, panels: int = 0) -> None:
        """The split view's panels widget (hidden until a step needs it), with `panels`
        panels built ahead."""
        from llgui.gui.workbench.diar_split import SplitPanels

        if self.split is None:
            self.split = SplitPanels(self._panel)
            self.layout().insertWidget(1, self.split, 3)
            self.split.hide()
        self.split.prepare(panels)

    def _show_split(self, walk, step, error_regions, view, extent) -> bool:
        """Far-apart listened windows: one zoomed panel each below, this plot as the overview
        strip of the whole meeting (`diar_split.show_split`). True when the split view is
        on."""
        from llgui.gui.workbench.diar_split import show_split

        return show_split(self, walk, step, error_regions, view, extent)

    def _lane_font(self, font) -> None:
        """The lane names' font, set only when it changes (setting it redraws the axis and
        lays the plot out again)."""
        axis = self.plot.getPlotItem().getAxis("left")
        if getattr(self, "_lane_font_set", None) != font.toString():
            self._lane_font_set = font.toString()
            axis.setTickFont(font)

    def _panel(self) -> "DiarView":
        """A panel of the split view: its Shift+drag selects for this view (the owner)."""
        panel = DiarView(split=False)
        panel._owner = self
        panel.selection.sigRegionChangeFinished.disconnect()
        panel.selection.sigRegionChangeFinished.connect(
            lambda *_: self.selection_changed.emit(panel.selection.getRegion()))
        return panel

    # -- lanes: arrays built once per turn list, drawn one item per colour, culled --------

    def _lane_arrays(self, turns, mapping, unmappable) -> dict:
        """x0, width, y offset (stacking overlaps) and colour of every turn, sorted by start;
        cached by the turn list's identity (the walkthrough shares them between steps)."""
        # the unmapped tones only of this lane's unmapped labels (none for the reference):
        # a step that leaves a lane's colours alone keeps its arrays, and with them its
        # parts, merged bars and labels
        tones = () if mapping is None else tuple(
            (label, self._tones[label]) for label in sorted(lane_geometry(turns)["labels"])
            if label not in mapping and label in self._tones)
        key = (id(turns), tuple(sorted((mapping or {}).items())), unmappable,
               tuple(sorted(self._colours.items())), tones)
        cached = self._arrays.get(key)
        if cached is not None and cached[0] is turns:
            return cached[1]
        colours = self._colours
        tones = self._tones
        # overlapping turns stack in the order of the reference speaker they are drawn as
        arrays = lane_bars(turns, lambda label: label_colour(label, mapping, colours, unmappable,
                                                             tones),
                           rank=mapped_rank(mapping))
        if len(self._arrays) >= 24:
            self._arrays.pop(next(iter(self._arrays)))
        self._arrays[key] = (turns, arrays)
        return arrays

    def _draw_lane(self, item, y: float, turns, mapping, unmappable) -> None:
        if not turns:
            return
        arrays = self._lane_arrays(turns, mapping, unmappable)
        # a lane's parts at its row, kept with its arrays (the reference lane's are the same
        # at every step)
        parts = arrays.setdefault("parts", {})
        if y not in parts:
            parts[y] = lane_parts(arrays, y, self.LANE_HEIGHT)
        for colour, part in parts[y]:
            self._pending.setdefault(colour, []).append(part)
        self._rows.append((parts[y], y - self.LANE_HEIGHT / 2, self.LANE_HEIGHT * BAR_FILL,
                           arrays))

    def _draw_errors(self, item, y: float, regions) -> None:
        kept = getattr(self, "_error_parts", None)   # the same regions: the same parts
        ahead = getattr(self, "_errors_ahead", None)   # (or made ahead: `diar_ahead`)
        if ahead is not None and ahead[0] is regions and ahead[1] == y:
            kept = self._error_parts = ahead
        if kept is None or kept[0] is not regions or kept[1] != y:
            kept = self._error_parts = (regions, y, error_parts(regions, y, self.LANE_HEIGHT),
                                        {})
        for colour, part in kept[2]:
            self._pending.setdefault(colour, []).append(part)
        self._rows.append((kept[2], y - self.LANE_HEIGHT / 2, self.LANE_HEIGHT, kept[3]))
        self.lanes["errors"] = tuple(regions)

    def _flush(self, item) -> None:
        """One bar item per colour for every lane (one brush, no outline: bars stay readable
        when a 10-hour show makes them thinner than a pixel; ~20 items, not one per lane and
        speaker); what each draws is given by `_cull` from the lanes' parts (`_rows`)."""
        self._merged = list(self._pending)   # the step's colours, in the lanes' order
        self._draw_merged(item, self._merged)
        self._pending = {}

    def _draw_merged(self, item, colours) -> None:
        """The layers of a step: a brush per colour, and over a patterned speaker's colour
        a second with its fill pattern (speakers beyond the palette's reach), drawn above
        every colour: `_drawn` holds (brush, colour) each, in the order they are painted."""
        from llgui.gui.widgets.speaker_brush import pattern_brush

        overlays = []
        for colour in colours:
            self._drawn.append((self._brush(colour), colour))
            overlay = pattern_brush(colour)
            if overlay is not None:
                overlays.append((self._overlay(colour, overlay), colour))
        self._drawn += overlays

    def _overlay(self, colour: str, overlay: QBrush) -> QBrush:
        key = colour + "/pattern"
        brush = self._brushes.get(key)
        if brush is None:
            brush = self._brushes[key] = overlay
        return brush

    def _brush(self, colour: str) -> QBrush:
        brush = self._brushes.get(colour)
        if brush is None:
            brush = self._brushes[colour] = pg.mkBrush(base_colour(colour))
        return brush

    COLLAR_MIN_PX = 2.0
    """A collar zone narrower than this on screen is not drawn: over a whole meeting the
    zones (0.5 s at every reference boundary) merged into grey paint over the lanes."""

    def collar_shown(self, lo: float, hi: float) -> bool:
        pixels = max(self.plot.getPlotItem().getViewBox().width(), 1.0)
        return self.collar * pixels / max(hi - lo, 1e-9) >= self.COLLAR_MIN_PX

    def _cull(self, *_args) -> None:
        """Give each bar item only the bars in the visible time range (and a margin); the
        collar zones only where they are wide enough to be seen as zones."""
        self._culls += 1
        (lo, hi), _ = self.plot.getPlotItem().getViewBox().viewRange()
        self._cull_collar(lo, hi)
        self._label_turns(lo, hi)
        self._cull_bars(lo, hi)
        settle_texts(self.plot.getPlotItem().getViewBox())

    def _cull_bars(self, lo: float, hi: float) -> None:
        """Each bar item's bars for [lo, hi] at the plot's width: each lane's bars in view,
        or its level of detail where they outnumber the pixel columns (`lane_in_view`),
        kept by the lane's parts, range and size (a step changes two or three lanes: the
        others' are not looked at again), and per colour the lanes' pieces joined."""
        pixel = (hi - lo) / max(self.plot.getPlotItem().getViewBox().width(), 1.0)
        ahead = getattr(self, "_bars_ahead", ({}, {}))   # (made ahead: `diar_ahead`)
        self._lane_views, self._given_of = bars_by_colour(
            self._rows, lo, hi, pixel, (getattr(self, "_lane_views", {}), ahead[0]),
            (getattr(self, "_given_of", {}), ahead[1]))
        layers, kept = [], {}
        for brush, colour in self._drawn:
            x0, width, y0, height = self._given_of.get(colour, (None, NO_BARS))[1]
            key = (colour, id(brush))
            layer = self._layers.get(key)
            if layer is None or layer.brush is not brush or not same_arrays(
                    (layer.x0, layer.y0, layer.width, layer.height), (x0, y0, width, height)):
                layer = Layer(colour, brush, x0, y0, width, height)   # (a colour the step
                # left alone keeps its layer: nothing of it is made again)
            kept[key] = layer
            layers.append(layer)
        self._layers = kept
        self.bars.set_layers(layers)
        self._bars_for = (lo, hi, pixel)

    def _on_resized(self, *_args) -> None:
        """A new size keeps the time range: what depends on pixels (the labels that fit, the
        collar zones shown, a lane's level of detail) is done again once the resizes of a
        layout are over (a first step into a long show's split view resized its plots seven
        times, each one labelling and culling 10,000 bars per lane again)."""
        if not getattr(self, "_rebar", False):
            self._rebar = True
            QTimer.singleShot(0, self, self._to_size)

    def _to_size(self) -> None:
        self._rebar = False
        box = self.plot.getPlotItem().getViewBox()
        (lo, hi), _ = box.viewRange()
        self._cull_collar(lo, hi)
        self._label_turns(lo, hi)
        pixel = (hi - lo) / max(box.width(), 1.0)
        if getattr(self, "_bars_for", None) not in (None, (lo, hi, pixel)):
            self._cull_bars(lo, hi)
        settle_texts(box)

    def tooltip_at(self, t: float, y: float) -> str:
        """The tooltip of the lane at height `y` (view units) at time `t`: its turns there
        with label, start, end and mapped reference speaker (`diar_text.turn_tooltip`)."""
        from llgui.core.display.diar_text import turn_tooltip

        row = int(round(-y))
        info = self._lane_info.get(row)
        if info is None:
            return ""
        name, turns, mapping, _ = info
        return turn_tooltip(turns, t, name, mapping, self._hours)

    def _hover(self, pos) -> None:
        from PySide6.QtGui import QCursor
        from PySide6.QtWidgets import QToolTip

        box = self.plot.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(pos):
            return
        point = box.mapSceneToView(pos)
        text = self.tooltip_at(point.x(), point.y())
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot)
        else:
            QToolTip.hideText()

    def _update_legend(self, reference: tuple[Turn, ...], seen, mapping, view) -> None:
        parts = []
        labels = sorted(lane_geometry(reference)["labels"])
        note = styles_note({label: self._colours.get(label, UNMAPPED) for label in labels})
        if note:   # colours repeat: how the speakers are told apart
            parts.append(f"<i>{html.escape(note)}</i>"
                         + ("; each speaker's swatch is in the speaker table"
                            if self.speakers is not None else ""))
        for label in labels if not (note and self.speakers is not None) else ():
            # (many speakers: their swatches in the speaker table, which lists them anyway,
            # not twenty more legend entries taking its rows)
            colour, pattern = speaker_style(self._colours.get(label, UNMAPPED))
            hyp = sorted(h for h, r in (mapping or {}).items() if r == label)
            mapped = f" ← {', '.join(html.escape(h) for h in hyp)}" if hyp else ""
            parts.append(f"<span style='color:{colour}'>{PATTERN_GLYPHS[pattern]}</span> "
                         f"{html.escape(label)}{mapped}")
        # every cluster a lane of the step draws unmapped, not only h_{n-1}'s: a `name` answer's
        # cluster, grey on the corrected and adapted lanes, had no entry (outsider helper-41)
        tones = dict(sorted(self._tones.items()))
        if tones:   # a cluster the system named as a reference speaker (a `name` step's
            # answer) is said to be the system's: "MTD011UID" twice, once green and once
            # grey, read as one speaker (outsider helper-40)
            parts.append("unmapped: " + " ".join(
                f"<span style='color:{c}'>■</span>&nbsp;{html.escape(u)}"
                + ("&nbsp;(system's)" if u in labels else "")
                for u, c in tones.items()))
        if view is not None and view.unmappable:
            parts.append(f"<span style='color:{IMPAIRED}'>■</span> impaired speech (never mapped)")
        if self.collar > 0:
            parts.append("<span style='color:#c4c4c4'>■</span> collar: not scored")
        # one swatch: never cut into two lines at 1366x768 (its yellow was split in two)
        parts.append("<span style='background:#fff0a0'>&nbsp;listened&nbsp;window&nbsp;</span>")
        parts += [f"<span style='color:{c}'>■</span> {k.replace('_', ' ')}"
                  for k, c in ERROR_COLOURS.items()]
        # an entry never breaks across lines, nor parts from its swatch ("impaired / speech
        # (never mapped)" read as two entries): line breaks only between entries
        def whole(part: str) -> str:
            head, cut, tail = part.partition("</span> ")
            return head + "</span>&nbsp;" + tail.replace(" ", "&nbsp;") if cut else part

        self.legend.setText(" &nbsp; ".join(whole(p) for p in parts))


