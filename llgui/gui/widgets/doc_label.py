"""A rich-text label laid out once per text, and ahead of the step that shows it (issue 36).

A word-wrapped rich-text `QLabel` lays its text out when its height for a width is asked
and again when it paints (its text measured unwrapped, then wrapped): 0.8 ms of a step's
1.0 per label on a slow machine, and a step sets three of them (the step's caption above the
steps table, the document's caption, the score numbers). A `DocLabel` keeps the label's own
text (`text()`, its size hints, its selection by mouse are still `QLabel`'s) but lays the text
out once in a `QTextDocument` of its width and paints that. The owner can lay out the next
step's text while the user reads this one (`prepare`): the step then only paints it, and
`prepare` draws it too, into a picture the step's paint copies (drawing the laid-out text was
~0.25 ms of each label's paint, three labels a step: a third of the MT step's paint after the
tables). The picture is the text drawn on transparency at the offset within a pixel the paint
would draw it at, so that copying it puts the same pixels where drawing the text would; a
paint in any other state (another size, palette or pixel ratio) draws the text as before, and
so does a text with characters the label's own font lacks (see `_own_font_draws`).

A `selectable` label's text is selected with the mouse as a `QLabel`'s: a press on it hands
the text to `QLabel` (its interaction and its paint) until the text changes. (Selectable from
the start, `QLabel` keeps a text control that takes each new text and lays it out itself.)
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout, QPainter, QPalette, QPixmap, QRawFont, QTextDocument,
)
from PySide6.QtWidgets import QLabel, QWidget


class DocLabel(QLabel):
    """A word-wrapped rich-text label that paints its text from a document laid out once at
    its width (`prepare`: a later text laid out ahead)."""

    KEEP = 3
    """Texts laid out ahead and kept for a later `setText` (the next step's, a step back)."""

    def __init__(self, text: str = "", parent: QWidget | None = None,
                 selectable: bool = False):
        super().__init__(parent)
        self._selectable = selectable
        if selectable:
            self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self._doc: QTextDocument | None = None    # this text's, laid out when first needed
        self._ahead: dict[str, QTextDocument] = {}
        self._pictures: dict[str, tuple[tuple, QPixmap]] = {}   # `prepare`'s, by text
        self._picture: tuple[tuple, QPixmap] | None = None   # this text's (from `prepare`)
        self.copied = 0   # paints that copied a picture (for tests)
        self._raw: tuple[str, QRawFont] | None = None   # the font's own glyphs, by font key
        self._native = False   # pressed on: `QLabel` paints (and selects) until a new text
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        if text == self.text():
            return
        super().setText(text)   # (kept as the label's text: cheap, laid out only if painted)
        if self._native:   # the old text's selection dropped, the new text drawn from here
            self._native = False
            self.setSelection(0, 0)
            self.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self._doc = self._ahead.pop(text, None)
        self._picture = self._pictures.pop(text, None)

    def prepare(self, text: str) -> None:
        """Lay `text` out now, at this width, for a later `setText(text)`."""
        if not text or text == self.text() or text in self._ahead:
            return
        while len(self._ahead) >= self.KEEP:
            self._pictures.pop(self._ahead.pop(next(iter(self._ahead))), None)
        doc = self._ahead[text] = self._make(text, self._width())
        if self.isVisible() and self._own_font_draws(doc.toPlainText()):
            self._pictures[text] = self._draw_picture(doc)

    def prepared(self, text: str) -> bool:
        """Whether `text` is laid out ahead (for tests)."""
        return text in self._ahead

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        if not self.text():
            return super().heightForWidth(width)
        margins = self.height() - self.contentsRect().height()
        inner = max(width - (self.width() - self.contentsRect().width()), 1)
        return math.ceil(self._document(inner).size().height()) + margins

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._native or not self.text():
            super().paintEvent(event)
            return
        rect = self.contentsRect()
        doc = self._document(rect.width())
        top = self._top(rect, doc.size().height())
        painter = QPainter(self)
        painter.setClipRect(rect)
        picture = self._picture
        if picture is not None and picture[0] == self._look(rect, top):
            # drawn by `prepare` at this size and look: copied
            painter.drawPixmap(QPointF(rect.left(), math.floor(top)), picture[1])
            self.copied += 1
        else:
            painter.translate(rect.left(), top)
            doc.documentLayout().draw(painter, self._context(rect, top))
        painter.end()

    def _top(self, rect, height: float) -> float:
        """Where the text's top is drawn, by the label's vertical alignment."""
        top = float(rect.top())
        alignment = self.alignment()
        if height < rect.height():
            if alignment & Qt.AlignmentFlag.AlignVCenter:
                top += (rect.height() - height) / 2
            elif alignment & Qt.AlignmentFlag.AlignBottom:
                top += rect.height() - height
        return top

    def _context(self, rect, top: float) -> QAbstractTextDocumentLayout.PaintContext:
        context = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(self.palette())
        palette.setColor(QPalette.ColorRole.Text, self.palette().color(self.foregroundRole()))
        context.palette = palette
        context.clip = QRectF(0, 0, rect.width(), rect.height() - (top - rect.top()))
        return context

    def _look(self, rect, top: float) -> tuple:
        """What a picture of the text depends on besides the text."""
        return (rect.width(), rect.height(), top, self.palette().cacheKey(),
                self.foregroundRole(), self.devicePixelRatioF())

    def _own_font_draws(self, text: str) -> bool:
        """Whether the label's font draws every character of `text` itself: glyphs of a
        fallback font (Devanagari, CJK) came out up to 30 levels apart drawn on
        transparency (a picture) and on the window (live), so such a text is drawn live."""
        font = self.font()
        if self._raw is None or self._raw[0] != font.key():
            self._raw = (font.key(), QRawFont.fromFont(font))
        raw = self._raw[1]
        return all(raw.supportsCharacter(ord(c)) for c in set(text) if c > " ")

    def _draw_picture(self, doc: QTextDocument) -> tuple[tuple, QPixmap]:
        """`doc` drawn as the paint at this size would draw it, into a picture from the
        pixel row its top falls in."""
        rect = self.contentsRect()
        top = self._top(rect, doc.size().height())
        context = self._context(rect, top)
        ratio = self.devicePixelRatioF()
        height = min(context.clip.height(), doc.size().height()) + 1
        picture = QPixmap(max(1, math.ceil(rect.width() * ratio)),
                          max(1, math.ceil(height * ratio)))
        picture.setDevicePixelRatio(ratio)
        picture.fill(Qt.GlobalColor.transparent)
        painter = QPainter(picture)
        painter.translate(0, top - math.floor(top))
        doc.documentLayout().draw(painter, context)
        painter.end()
        return self._look(rect, top), picture

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._selectable and not self._native and self.text():
            self._native = True   # its selection is `QLabel`'s, painted by it
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.update()
        super().mousePressEvent(event)

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        # a new font: the texts laid out in the old one are laid out again when needed
        if event.type() == QEvent.Type.FontChange:
            self._doc = self._picture = None
            self._ahead.clear()
            self._pictures.clear()

    def _width(self) -> int:
        return max(self.contentsRect().width(), 1)

    def _document(self, width: int) -> QTextDocument:
        doc = self._doc
        if doc is None:
            doc = self._doc = self._make(self.text(), width)
        elif doc.textWidth() != width:
            doc.setTextWidth(width)
        return doc

    def _make(self, text: str, width: int) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(self.font())
        doc.setDocumentMargin(0)   # (as `QLabel`'s own)
        doc.setHtml(text)
        doc.setTextWidth(width)
        doc.size()   # laid out now
        return doc
