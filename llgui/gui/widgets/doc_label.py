"""A rich-text label laid out once per text, and ahead of the step that shows it (issue 36).

A word-wrapped rich-text `QLabel` lays its text out when its height for a width is asked
and again when it paints (its text measured unwrapped, then wrapped): 0.8 ms of a step's
1.0 per label on a slow machine, and a step sets three of them (the step's caption above the
steps table, the document's caption, the score numbers). A `DocLabel` keeps the label's own
text (`text()`, its size hints, its selection by mouse are still `QLabel`'s) but lays the text
out once in a `QTextDocument` of its width and paints that. The owner can lay out the next
step's text while the user reads this one (`prepare`): the step then only paints it.

A `selectable` label's text is selected with the mouse as a `QLabel`'s: a press on it hands
the text to `QLabel` (its interaction and its paint) until the text changes. (Selectable from
the start, `QLabel` keeps a text control that takes each new text and lays it out itself.)
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
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

    def prepare(self, text: str) -> None:
        """Lay `text` out now, at this width, for a later `setText(text)`."""
        if not text or text == self.text() or text in self._ahead:
            return
        while len(self._ahead) >= self.KEEP:
            self._ahead.pop(next(iter(self._ahead)))
        self._ahead[text] = self._make(text, self._width())

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
        height = doc.size().height()
        top = float(rect.top())
        alignment = self.alignment()
        if height < rect.height():
            if alignment & Qt.AlignmentFlag.AlignVCenter:
                top += (rect.height() - height) / 2
            elif alignment & Qt.AlignmentFlag.AlignBottom:
                top += rect.height() - height
        painter = QPainter(self)
        painter.setClipRect(rect)
        painter.translate(rect.left(), top)
        context = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(self.palette())
        palette.setColor(QPalette.ColorRole.Text, self.palette().color(self.foregroundRole()))
        context.palette = palette
        context.clip = QRectF(0, 0, rect.width(), rect.height() - (top - rect.top()))
        doc.documentLayout().draw(painter, context)
        painter.end()

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
            self._doc = None
            self._ahead.clear()

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
