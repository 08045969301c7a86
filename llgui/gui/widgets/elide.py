"""Where a "…" goes over laid-out rich text without cutting a glyph in half.

A capped table cell shows its first whole lines and, when the text goes on, a "…" at the end
of the last line on the cell's background. Put at a fixed distance from the right edge, the
box covered half of whatever glyph stood there (the Hindi "ऋण ः" and the Japanese "有" of
the MT workbench at 1366x768 were cut in half before each "…"). `ellipsis_left` moves the
box's left edge back to the start of the grapheme cluster it would cut (Unicode UAX #29, as
QTextBoundaryFinder finds them): a combining mark or a conjunct never loses its base."""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, QTextBoundaryFinder
from PySide6.QtGui import QTextDocument


def ellipsis_left(doc: QTextDocument, left: float, y: float) -> float:
    """The x (document coordinates) where an ellipsis box meant to start at `left` on the
    line at height `y` starts so that no grapheme is drawn partly: `left` itself when it
    falls between two graphemes, else the start of the grapheme it falls in."""
    position = doc.documentLayout().hitTest(QPointF(left, y), Qt.HitTestAccuracy.FuzzyHit)
    if position < 0:
        return left
    block = doc.findBlock(position)
    layout = block.layout()
    if not block.isValid() or layout is None:
        return left
    text = block.text()
    offset = position - block.position()
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Grapheme, text)
    finder.setPosition(min(offset, len(text)))
    if not finder.isAtBoundary():
        offset = finder.toPreviousBoundary()
    origin = layout.position().x()
    line = layout.lineForTextPosition(offset)
    if not line.isValid():
        return left
    while offset > line.textStart() and _x(line, offset) + origin > left + 0.5:
        finder.setPosition(offset)        # the grapheme before starts earlier: it is cut
        previous = finder.toPreviousBoundary()
        if previous < 0:
            break
        offset = previous
    if offset > line.textStart() and text[offset - 1].isspace():
        offset -= 1   # the space before too: a glyph's ink may overhang its start (a vowel
        #               sign drawn unshaped, with no OpenType support for the script)
    start = _x(line, offset) + origin
    return min(left, start)


def _x(line, offset: int) -> float:
    value = line.cursorToX(offset)
    return float(value[0] if isinstance(value, tuple) else value)
