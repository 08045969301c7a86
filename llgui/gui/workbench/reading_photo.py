"""The MT reading pane's next text drawn ahead, as a picture (issue 36).

The reading pane (`MTView.reading`, a `QTextBrowser`) shows the step's corrected segment
whole. Its document is laid out while the user reads the step before (`_ahead_reading`), but
handing it to the pane lays it out again (`QTextEdit.setDocument` sets the page size, and a
page size set relayouts even when it is the same): with its paint, 2-2.5 ms of a 10-ms step
on a 500-sentence document. `ReadingPhoto.make` hands it to a twin of the pane in a window
never on screen (`widgets.cover`), at the pane's size, and keeps its picture; the step that
shows that text at that size puts the picture over the pane and hands the document to the
pane itself `LIVE_AFTER_MS` later, under it. A step whose pane would grow to its text (the
split's sizes change) shows it live.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QTextBrowser

from llgui.gui.widgets.cover import LIVE_AFTER_MS, Cover, shadow_window


def reading_pane() -> QTextBrowser:
    """The reading pane as the MT view shows it (its twin drawn ahead is made the same)."""
    from PySide6.QtCore import Qt

    pane = QTextBrowser()
    pane.setOpenLinks(False)
    pane.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    pane.setPlaceholderText("select a segment to read it whole here")
    return pane


class ReadingPhoto:
    """The picture of an `MTView`'s reading pane with its next text."""

    def __init__(self, view):
        self._view = view
        self._window = None
        self._shadow: QTextBrowser | None = None
        self._blank = QTextDocument()   # what the twin holds between pictures
        self._made = None   # (text, pane size, font, picture)
        self._cover: Cover | None = None
        self._live = None   # the document the pane is to be given, once covered
        self.made = 0       # pictures made and steps covered, for tests
        self.covered = 0

    def _key(self, text: str) -> tuple:
        pane = self._view.reading
        return (text, pane.size(), pane.font().key())

    def make(self, text: str, doc: QTextDocument) -> bool:
        """Draw the pane holding `doc` (whose HTML is `text`) as it would look now."""
        self.bring_live()
        self._made = None
        pane = self._view.reading
        if not pane.isVisible() or self._view.reading_grows(doc):
            return False
        if self._shadow is None:
            self._window = shadow_window(pane.window())
            self._shadow = reading_pane()
            self._window.layout().addWidget(self._shadow)
        if self._shadow.size() != pane.size():
            self._shadow.setFixedSize(pane.size())
        if not self._window.isVisible():
            self._window.show()
        self._shadow.setDocument(doc)
        picture = self._shadow.grab()
        self._shadow.setDocument(self._blank)   # (the pane is given it at the step)
        self._made = (self._key(text), picture)
        self.made += 1
        return True

    def cover(self, text: str, doc: QTextDocument) -> bool:
        """Show the pane with `doc` by its picture if it was made for it as things are now;
        the pane is given `doc` on a later turn. False: give it now."""
        made, self._made = self._made, None
        if made is None or made[0] != self._key(text) or self._view.reading_grows(doc):
            return False
        if self._cover is None:
            self._cover = Cover(self._view.reading, self.bring_live)
        self._cover.cover(made[1])
        live = self._live = doc
        QTimer.singleShot(LIVE_AFTER_MS, self._view,
                          lambda: self.bring_live() if self._live is live else None)
        self.covered += 1
        return True

    def bring_live(self) -> None:
        """The pane given the document its picture shows, and the picture away."""
        doc, self._live = self._live, None
        if doc is not None:
            self._view.set_reading(doc)
        if self._cover is not None:
            self._cover.take_away()

    def drop(self) -> None:
        """No picture over the pane: it is given its text now (`MTView._show_reading`)."""
        self._made = None
        self._live = None
        if self._cover is not None:
            self._cover.take_away()
