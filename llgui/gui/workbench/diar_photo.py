"""The split view's next panels drawn ahead, as pictures (issue 36).

A step of a long meeting's split view draws its zoomed panels anew: their lanes culled to the
new span, the view range and its time axis, the title (~2 ms of Python on an hour's meeting)
and their paint (~2 ms), half of the step. While the user reads step s, `PanelPhotos.make`
draws step s + 1's panels into panels of its own, in a window that is never on screen
(`widgets.cover.shadow_window`), at the live panels' sizes and settings, and keeps their
pictures.
When the next step is s + 1 and nothing the pictures depend on has changed (`_key`: the
walkthrough, the spans, the sizes, the colours, the collar...), the step puts the pictures
over the live panels (a pixmap each) and brings the live panels to s + 1 on a later turn of
the event loop (`LIVE_AFTER_MS`), under the pictures, which are then taken away: what is on
screen does not change (a test holds each picture equal to its live panel's own paint). A
mouse that enters a picture brings the live panels at once (their bars answer the pointer),
as does the audio's playhead or a selection; a step elsewhere (back, a jump) draws its
panels as before.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer

from llgui.gui.widgets.after_paint import LATER_MS
from llgui.gui.widgets.cover import LIVE_AFTER_MS, Cover, shadow_window


class PanelPhotos:
    """The pictures of a `SplitPanels`' next step, and the covers that show them."""

    def __init__(self, split, draw_panel, lay_out_now):
        """`draw_panel`, `lay_out_now`: the split view's own (`diar_split`), which draw a
        live panel and lay out what waits to be."""
        self._split = split
        self._draw_panel, self._lay_out_now = draw_panel, lay_out_now
        self._window = None        # the window of the shadow panels, never on screen
        self._shadows: list = []   # panels drawn ahead, one per live panel
        self._made = None          # (key, [QPixmap]) of the step drawn ahead
        self._covers: dict = {}    # live panel -> Cover
        self._live = None          # the step to bring the live panels to, once covered
        self._making = None        # the pictures being made (a token)
        self.made = 0              # pictures made and steps covered, for tests
        self.covered = 0

    # -- ahead: while the user reads ---------------------------------------------------------

    def _live_panels(self, n: int) -> list | None:
        """The `n` live panels the next step will draw into, if they are the ones shown now
        (else their sizes at the next step are not known) and show neither a playhead nor a
        selection (which the pictures do not have)."""
        panels = [p for p in self._split.panels if p.isVisible()]
        if n == 0 or len(panels) != n or panels != self._split.panels[:n]:
            return None
        if any(p.playhead.isVisible() or p.selection.isVisible() for p in panels):
            return None
        return panels

    @staticmethod
    def _key(owner, walk, step: int, spans, panels) -> tuple:
        """What the pictures of `step` depend on beside the step: if any of it differs at
        the step, its panels are drawn live."""
        return (walk, step, tuple(spans), owner.collar, owner.skip_overlap,
                tuple(sorted(owner._colours.items())), owner.font().key(),
                tuple((p.width(), p.height(),
                       p.plot.getPlotItem().getAxis("bottom").label.isVisible())
                      for p in panels))

    def make(self, owner, walk, step: int, spans) -> bool:
        """Draw `step`'s panels (`spans`) ahead, as pictures, a piece per turn of the event
        loop (each panel drawn, then painted: on a 10-hour show, all of it in one turn held
        the event loop 45-53 ms). False when the live panels leave nothing to draw for."""
        self.bring_live()   # (the live panels first: the shadows copy their settings)
        self._made = None
        panels = self._live_panels(len(spans))
        if panels is None or not owner.isVisible():
            return False
        key = self._key(owner, walk, step, spans, panels)
        errors = walk.errors_at(step)
        pictures: list = []
        # the shadows missing built first, one a turn (a plot widget is 25-50 ms to build)
        work = [lambda: self._build_shadow(owner)
                for _ in range(len(panels) - len(self._shadows))]
        work.append(lambda: self._shadow_panels(owner, panels))
        for k, (panel, span) in enumerate(zip(panels, spans)):
            work.append(lambda k=k, panel=panel, span=span: self._draw(
                self._shadows[k], panel, k, walk, step, errors, span, owner))
            work.append(lambda k=k: pictures.append(self._picture(self._shadows[k])))

        def done() -> None:
            if self._key(owner, walk, step, spans, panels) == key and not any(
                    self._patterned(shadow) for shadow in self._shadows[:len(panels)]):
                self._made = (key, pictures)
                self.made += 1
        work.append(done)
        token = self._making = object()
        self._run(work, token, owner, owner.shown)
        return True

    def _run(self, work: list, token, owner, shown) -> None:
        if token is not self._making or owner.shown != shown:
            return   # another step came: its own pictures are made after it
        work.pop(0)()
        if work:
            QTimer.singleShot(LATER_MS, self._split,
                              lambda: self._run(work, token, owner, shown))

    def _draw(self, shadow, panel, k: int, walk, step: int, errors, span, owner) -> None:
        """Shadow `k` at `step`, from what its live panel made ahead for that step
        (`diar_ahead`: the bars in view and the labels, for the same span and size)."""
        for name in ("_bars_ahead", "_labels_ahead"):
            if hasattr(panel, name):
                setattr(shadow, name, getattr(panel, name))
        self._draw_panel(shadow, k, walk, step, errors, span, owner)

    @staticmethod
    def _patterned(shadow) -> bool:
        """True when `shadow` draws a speaker's fill pattern (beyond the palette's six
        colours): Qt aligns a pattern to the device it paints on, and the twin's hatching
        came out shifted against the live panel's on a 20-speaker VoxConverse show; such a
        step's panels are drawn live."""
        from PySide6.QtCore import Qt

        return any(brush.style() != Qt.BrushStyle.SolidPattern for brush, _ in shadow._drawn)

    def _picture(self, shadow):
        self._lay_out_now()   # (a new title's layout, as a live panel's is done before its
        return shadow.grab()  # paint)

    def _shadow_panels(self, owner, panels) -> list:
        """Panels in the never-shown window, one per live panel, at its size and with its
        time axis's name shown or not."""
        while len(self._shadows) < len(panels):
            self._build_shadow(owner)
        for k, shadow in enumerate(self._shadows):
            shadow.setVisible(k < len(panels))
        for shadow, panel in zip(self._shadows, panels):
            if shadow.size() != panel.size():
                shadow.setFixedSize(panel.size())
            axis = shadow.plot.getPlotItem().getAxis("bottom")
            shown = panel.plot.getPlotItem().getAxis("bottom").label.isVisible()
            if axis.label.isVisible() != shown:
                axis.showLabel(shown)
        if not self._window.isVisible():
            self._window.show()
        return self._shadows[:len(panels)]

    def _build_shadow(self, owner) -> None:
        """One more panel in the never-shown window."""
        if self._window is None:
            self._window = shadow_window(self._split.window())
        shadow = owner._panel()
        shadow._owner = None   # (its size is its own: `DiarView.resizeEvent`)
        shadow.legend.hide()
        shadow.hide()
        self._window.layout().addWidget(shadow)
        self._shadows.append(shadow)

    # -- at the step ---------------------------------------------------------------------------

    def cover(self, owner, walk, step: int, error_regions, spans) -> bool:
        """Show `step` by its pictures, if they were made for it as it is now; the live
        panels follow on a later turn. False: draw the panels live."""
        made, self._made = self._made, None
        panels = self._live_panels(len(spans))
        if made is None or panels is None or made[0] != self._key(owner, walk, step, spans,
                                                                  panels):
            return False
        for panel, picture in zip(panels, made[1]):
            cover = self._covers.get(panel)
            if cover is None:
                cover = self._covers[panel] = Cover(panel, self.bring_live)
            cover.cover(picture)
        self._split.show_brushes(walk, step, spans, owner, follow=False)
        self._live = (owner, walk, step, error_regions, list(spans))
        live = self._live
        QTimer.singleShot(LIVE_AFTER_MS, self._split,
                          lambda: self.bring_live() if self._live is live else None)
        self.covered += 1
        return True

    def bring_live(self) -> None:
        """The live panels at the step their pictures show, and the pictures away."""
        live, self._live = self._live, None
        if live is not None:
            owner, walk, step, error_regions, spans = live
            self._split.show_spans(walk, step, error_regions, spans, owner=owner)
        self.uncover()

    def uncover(self) -> None:
        """No picture over the live panels (they show their own step)."""
        self._live = None
        for cover in self._covers.values():
            cover.take_away()

    def drop(self) -> None:
        """Forget the pictures made ahead (the split view closes, another document)."""
        self._made = None
        self._making = None
        self.uncover()
