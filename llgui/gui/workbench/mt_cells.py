"""The MT view's cells: rich text laid out once, drawn once into a pixmap, copied at each paint.

`RichTextDelegate` paints a segment's cell from its `HTML_ROLE` text (the diff of the
hypothesis against the reference, formatted by `SegmentsModel`): laid out at the cell's size
and cut to whole lines, "…" where cut, drawn into a pixmap kept by text, size and background
(ahead of the step that shows it, `MTView._ahead_row`, or at its first paint), so that a
step's paint copies ~25 pictures instead of laying out and drawing their text (issue 36).
"""
from __future__ import annotations

import html
from collections import OrderedDict

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout, QBrush, QColor, QFont, QPainter, QPalette, QPixmap,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from llgui.gui.widgets.elide import ellipsis_left

ELLIPSIS = "…"
HTML_ROLE = Qt.ItemDataRole.UserRole + 2
_HTML_CACHE = 4096     # cut cells' "…" boxes kept (what is on screen is painted again anyway)
_DOC_CACHE = 512       # laid-out cells kept by the delegate (several screens' worth)
_PICTURE_CACHE = 256   # cells drawn into pixmaps (a few screens' worth, ~17 kB each)
_SELECTED = QStyle.StateFlag.State_Selected.value
_FOCUS = QStyle.StateFlag.State_HasFocus.value


class RichTextDelegate(QStyledItemDelegate):
    """Paints a cell's `HTML_ROLE` text, cut to the cell (only visible cells are painted)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        # laid-out cells by (text, width, height): a repaint of a cell the step left alone
        # draws its document again instead of parsing and laying out its HTML anew
        self._docs: OrderedDict[tuple, tuple[QTextDocument, float, float]] = OrderedDict()
        self.laid_out = 0   # documents laid out so far (tests count them)
        self.copied = 0     # cells copied by the fast path (`_paint_picture`), for tests
        self.sizes: dict[int, tuple[int, int]] = {}   # column -> its cells' last painted size
        self.cut: dict[tuple[int, int], QRectF] = {}   # (row, column) -> where "…" was drawn
        self._ellipsis: dict[tuple, float] = {}   # (text, cell size, "…" size) -> its left
        self.mark: tuple[int, int] | None = None   # the "…" box's width and height
        # cells drawn into pixmaps (`picture`), by text, size and background
        self._pictures: OrderedDict[tuple, tuple[QPixmap, QRectF | None]] = OrderedDict()
        self.font = self.palette = None   # the table's, at its last paint
        self._palette_key = self._base_rgba = None
        self.ratio = 1.0                  # its device pixel ratio
        self._model = None                # a `SegmentsModel`: `paint_cell` (`use_model`)
        self._colours: dict[str, QColor] = {}   # background name -> colour
        self._number_look: QStyleOptionViewItem | None = None   # `number_picture`'s

    def use_model(self, model) -> None:
        """Read cells straight from `model` (its `paint_cell`) in the fast path."""
        self._model = model

    def _laid_out(self, text: str, width: int, height: int) -> tuple[QTextDocument, float,
                                                                       float]:
        """The cell's document laid out at `width`, the height of its lines that fit whole
        in `height` and its whole height; kept for the next paint of the same text at the
        same size."""
        key = (text, width, height)
        cached = self._docs.get(key)
        if cached is not None:
            self._docs.move_to_end(key)
            return cached
        doc = QTextDocument()
        doc.setDocumentMargin(2)
        doc.setHtml(text)
        doc.setTextWidth(width)
        doc.size()   # laid out now (a new document's layout is made on first use)
        # whole lines only: a capped row shows its first lines, never half a line of glyphs
        # (measured on the laid-out text: a fallback font, CJK say, has taller lines)
        cached = self._docs[key] = (doc, _whole_lines(doc, height), doc.size().height())
        self.laid_out += 1
        if len(self._docs) > _DOC_CACHE:
            self._docs.popitem(last=False)
        return cached

    def ellipsis_at(self, text: str, width: int, height: int) -> float:
        """Where the "…" box of a cut cell starts (`self.mark`: its size): from the start of
        the grapheme it would cut, never half a glyph before "…"; found once per laid-out
        cell (a step's new cells ahead of it, `MTView._ahead_row`)."""
        w, h = self.mark
        where = (text, width, height, w, h)
        left = self._ellipsis.get(where)
        if left is None:
            doc, shown, _whole = self._laid_out(text, width, height)
            bottom = min(height, shown)
            left = ellipsis_left(doc, width - w, bottom - h / 2 - 1)
            if len(self._ellipsis) > _DOC_CACHE:
                self._ellipsis.clear()
            self._ellipsis[where] = left
        return left

    def paint(self, painter, option, index) -> None:
        """A cell's picture copied (`_paint_picture`), or painted by the style where it has
        the focus frame or the table's look changed."""
        if not self._paint_picture(painter, option, index):
            self._paint_styled(painter, option, index)

    def _paint_picture(self, painter, option, index) -> bool:
        """The fast path of a step's ~30 cells: the cell's picture found by what the model
        holds for it (`SegmentsModel.paint_cell`, called directly: each `index.data` went
        through Qt and back, ~20 us a time) and copied, with plain integers for the state
        (Python's enum flags cost ~2 us an operation). False when the cell must be painted
        by the style (focus, a new font, palette or pixel ratio, a picture not made yet)."""
        state = option.state.value
        model = self._model
        if state & _FOCUS or model is None or self.palette is None:
            return False
        if (option.font != self.font or option.palette.cacheKey() != self._palette_key
                or painter.device().devicePixelRatioF() != self.ratio):
            return False
        rect = option.rect
        row, column = index.row(), index.column()
        text, background = model.paint_cell(row, column)
        width, height = rect.width(), rect.height()
        colour = self._colours.get(background) if background is not None else None
        if background is not None and colour is None:
            colour = self._colours[background] = QColor(background)
        if column < 1:
            found = self._pictures.get((text, width, height, colour.rgba() if colour is not None
                                        else None))
        else:
            base = colour.rgba() if colour is not None else self._base_rgba
            found = self._pictures.get((text, width, height, base))
            self.sizes[column] = (width, height)
        if found is None:
            return False
        painter.drawPixmap(rect.topLeft(), found[0])
        self.copied += 1
        if column >= 1:
            box = found[1]
            if box is not None:
                if len(self.cut) > _HTML_CACHE:
                    self.cut.clear()
                self.cut[(row, column)] = box.translated(rect.topLeft())
            else:
                self.cut.pop((row, column), None)
        if state & _SELECTED:
            _frame(painter, option, True)
        return True

    def _paint_styled(self, painter, option, index) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            # the row's own colours (corrected, generalised) stay; a frame says "selected"
            option = QStyleOptionViewItem(option)
            option.state &= ~QStyle.StateFlag.State_Selected
        if index.column() < 1:   # the number: plain text, Qt's own painting
            if option.state & QStyle.StateFlag.State_HasFocus or self.palette is None:
                super().paint(painter, option, index)
            else:   # drawn once into a pixmap, as the text cells
                painter.drawPixmap(option.rect.topLeft(), self._number_picture(option, index))
            _frame(painter, option, selected)
            return
        background = index.data(Qt.ItemDataRole.BackgroundRole)
        if option.state & QStyle.StateFlag.State_HasFocus:
            # the style's own painting: the cell's background and its focus frame
            opt = QStyleOptionViewItem(option)
            self.initStyleOption(opt, index)
            opt.text = ""
            widget = opt.widget
            style = widget.style() if widget is not None else None
            if style is not None:
                style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = option.rect
        # the reference too (with the source above it when shown): whole lines, as the others
        self.sizes[index.column()] = (rect.width(), rect.height())
        text = index.data(HTML_ROLE) or html.escape(
            str(index.data(Qt.ItemDataRole.DisplayRole) or ""))
        key = (index.row(), index.column())
        self.font = QFont(option.font)            # copies: the option is the paint's
        self.palette = QPalette(option.palette)
        self._palette_key = option.palette.cacheKey()
        self._base_rgba = self.palette.color(QPalette.ColorRole.Base).rgba()
        if option.widget is not None:
            self.ratio = option.widget.devicePixelRatioF()
        metrics = option.fontMetrics
        self.mark = metrics.horizontalAdvance(ELLIPSIS + " ") + 4, metrics.height()
        if option.state & QStyle.StateFlag.State_HasFocus:
            box = self._draw(painter, rect.topLeft(), text, rect.width(), rect.height(),
                             background)
        else:
            # the cell drawn once (ahead of its step, or at its first paint) into a picture
            # of its own, then copied: a step's ~25 cells were laid out text drawn glyph by
            # glyph at every paint
            picture, box = self.picture(text, rect.width(), rect.height(), background)
            painter.drawPixmap(rect.topLeft(), picture)
        if box is not None:
            if len(self.cut) > _HTML_CACHE:   # what is on screen is painted again anyway
                self.cut.clear()
            self.cut[key] = box.translated(rect.topLeft())
        else:
            self.cut.pop(key, None)
        _frame(painter, option, selected)

    def _number_picture(self, option, index) -> QPixmap:
        """The number cell drawn by the style into a pixmap (on the table's base colour, as
        on the table), kept by its text, background and size; its look kept for the
        numbers drawn ahead (`number_picture`)."""
        rect = option.rect
        look = QStyleOptionViewItem(option)
        self.initStyleOption(look, index)   # what QStyledItemDelegate.paint draws
        self._number_look = QStyleOptionViewItem(look)
        self.sizes[0] = (rect.width(), rect.height())
        return self.number_picture(index.data(Qt.ItemDataRole.DisplayRole), rect.width(),
                                   rect.height(), index.data(Qt.ItemDataRole.BackgroundRole),
                                   look)

    def number_picture(self, text: str, width: int, height: int, background: QColor | None,
                       look: QStyleOptionViewItem | None = None) -> QPixmap | None:
        """The number cell of `text` on `background` (None: the table's base colour) at this
        size, drawn by the style as Qt's delegate draws it, and kept. `look`: the cell's
        style option; without it, the last painted number's with this text and background
        (a number drawn ahead of its step, while the user reads: the rows a step scrolls in
        had their numbers drawn in its paint). None before any number was painted."""
        where = (text, width, height, background.rgba() if background is not None else None)
        found = self._pictures.get(where)
        if found is not None:
            self._pictures.move_to_end(where)
            return found[0]
        if look is None:
            if self._number_look is None:
                return None
            look = QStyleOptionViewItem(self._number_look)
            look.text = self.displayText(text, look.locale)   # (its line breaks as Qt's)
            look.backgroundBrush = QBrush(background) if background is not None else QBrush()
        moved = QStyleOptionViewItem(look)
        moved.rect = QRect(0, 0, width, height)
        picture = QPixmap(round(width * self.ratio), round(height * self.ratio))
        picture.setDevicePixelRatio(self.ratio)
        picture.fill(moved.palette.color(QPalette.ColorRole.Base))
        painter = QPainter(picture)
        widget = moved.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, moved, painter, widget)
        painter.end()
        self._pictures[where] = (picture, None)
        if len(self._pictures) > _PICTURE_CACHE:
            self._pictures.popitem(last=False)
        return picture

    def picture(self, text: str, width: int, height: int,
                background: QColor | None) -> tuple[QPixmap, QRectF | None]:
        """The cell of `text` at this size on `background` (None: the table's base colour)
        drawn into a pixmap, and where its "…" box is (None: not cut); kept for the next
        paint of the same cell. Needs a paint first (`font`, `palette`, `mark`)."""
        base = background if background is not None else self.palette.color(
            QPalette.ColorRole.Base)
        where = (text, width, height, base.rgba())
        found = self._pictures.get(where)
        if found is not None:
            self._pictures.move_to_end(where)
            return found
        ratio = self.ratio
        picture = QPixmap(round(width * ratio), round(height * ratio))
        picture.setDevicePixelRatio(ratio)
        picture.fill(base)
        painter = QPainter(picture)
        painter.setFont(self.font)
        box = self._draw(painter, QPointF(0, 0), text, width, height, background)
        painter.end()
        found = self._pictures[where] = (picture, box)
        if len(self._pictures) > _PICTURE_CACHE:
            self._pictures.popitem(last=False)
        return found

    def _draw(self, painter, at, text: str, width: int, height: int,
              background: QColor | None) -> QRectF | None:
        """Draw the cell's laid-out text at `at`, cut to its whole lines, "…" where cut;
        the "…" box in the cell's coordinates (None: not cut)."""
        doc, shown, whole = self._laid_out(text, width, height)
        painter.save()
        painter.translate(at)
        clip = QRectF(0, 0, width, min(height, shown))
        painter.setClipRect(clip)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.clip = clip
        context.palette.setColor(QPalette.ColorRole.Text,
                                 self.palette.color(QPalette.ColorRole.Text))
        doc.documentLayout().draw(painter, context)
        box = None
        if whole > shown + 1:
            # cut: "…" at the end of the last line shown, on the cell's own background, so
            # a cut never reads as the end of the segment
            w, h = self.mark
            left = self.ellipsis_at(text, width, height)
            box = QRectF(left, clip.bottom() - h - 1, clip.right() - left, h)
            painter.fillRect(box, background if background is not None
                             else self.palette.color(QPalette.ColorRole.Base))
            painter.setPen(self.palette.color(QPalette.ColorRole.Text))
            painter.drawText(box, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                             ELLIPSIS + " ")
        painter.restore()
        return box

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 - Qt's name
        # the view sets one row height for all rows (`MTView._fit_rows`); this is a default
        return QSize(120, 2 * option.fontMetrics.height() + 6)


def _frame(painter, option, selected: bool) -> None:
    """The selected row's frame: its top and bottom edges in the highlight colour."""
    if not selected:
        return
    painter.save()
    colour = option.palette.color(QPalette.ColorRole.Highlight)
    r = option.rect
    painter.fillRect(r.left(), r.top(), r.width(), 2, colour)
    painter.fillRect(r.left(), r.bottom() - 1, r.width(), 2, colour)
    painter.restore()


def _whole_lines(doc: QTextDocument, height: float) -> float:
    """The height of the laid-out lines of `doc` that fit whole in `height` (at least the
    first line)."""
    shown = 0.0
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        top = layout.position().y()
        for n in range(layout.lineCount()):
            line = layout.lineAt(n)
            bottom = top + line.y() + line.height()
            if bottom > height and shown:
                return shown + 1
            shown = bottom
        block = block.next()
    return shown + 1
