"""MT view: the document's segments at one step, with word differences highlighted.

Columns: segment number, reference, the hypothesis the human saw (h_{n-1}; words absent from
the reference in red), and the system's hypothesis after the step (h_n; words it changed in
bold, still-wrong words in red). The corrected segment is marked in yellow; segments the
system changed by itself are marked as generalisation, green when closer to the reference,
red when further (the walkthrough's `effects`, computed in core).

A table model over the walkthrough's segments and a delegate that paints rich text: only the
rows on screen are ever formatted, so a step costs the same on 100 and on 100,000 segments.
Rows have one fixed height: a cut cell ends in "…", and the reading pane under the table shows
the selected row whole (the step's corrected segment when a step is shown). The source, when
ticked, has its own column before the reference. Segments corrected at earlier steps of the
document carry "✎k" (k: the step) in the number column.
"""
from __future__ import annotations

import html
from collections import OrderedDict

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QSplitter, QTableView,
    QTextBrowser, QVBoxLayout, QWidget,
)

from llgui.core.mt.sentence import chrf_change
from llgui.core.mt.textdiff import Piece, correction_fate, effect_counts, marked
from llgui.core.walkthrough import Walkthrough
from llgui.gui.widgets.doc_label import DocLabel
from llgui.gui.widgets.quiet_header import quiet_header
from llgui.gui.widgets.quiet_label import QuietBox
from llgui.gui.workbench.mt_cells import HTML_ROLE, RichTextDelegate
from llgui.gui.workbench.reading_pane import ReadingPane

CORRECTED_BG = "#fff3b0"
BETTER_BG = "#d9f2dc"
WORSE_BG = "#f8d7d7"
NEUTRAL_BG = "#e8eef7"
ERROR_FG = "#b3261e"
EARLIER_BG = "#fdf8dc"   # the number cell of a segment corrected at an earlier step
_BACKGROUNDS = {"corrected": CORRECTED_BG, "better": BETTER_BG, "worse": WORSE_BG,
                "changed": NEUTRAL_BG}
_LABELS = {"corrected": "corrected", "better": "generalised ✓", "worse": "generalised ✗",
           "changed": "changed"}
_SHORT = {"corrected": "corrected", "better": "gen. ✓", "worse": "gen. ✗", "changed": "changed"}
"""The marks in the number column (its tooltip and the reading pane say them whole)."""
_ANSWERED = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                       Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole,
                       HTML_ROLE})
"""The roles `SegmentsModel.data` has an answer for (the number cell's paint asks for ten)."""
_HTML_CACHE = 4096   # formatted cells kept (a few screens' worth)


def number_cell(i: int, mark: str, earlier: list[int]) -> tuple[str, str | None]:
    """Segment `i`'s number cell (0-based `i`): its text, the segment, ✎ and the last two
    earlier steps that corrected it, and on a line of its own the step's `mark`; and its
    background's colour name (None: the table's)."""
    text = f"{i + 1}" + (" ✎" + ",".join(map(str, earlier[-2:])) if earlier else "")
    text += f"\n{_SHORT[mark]}" if mark else ""
    return text, _BACKGROUNDS[mark] if mark else (EARLIER_BG if earlier else None)


class SegmentsModel(QAbstractTableModel):
    """The segments of one step: all of them, or only the corrected and changed ones."""

    # the source is the last column of the model, shown before the reference (the view moves
    # its section): the other columns keep their numbers whether it is shown or not
    COLUMNS = ("#", "reference", "seen", "adapted", "source")
    SOURCE = 4

    def __init__(self, parent=None):
        super().__init__(parent)
        self._walk: Walkthrough | None = None
        self._step = 0
        self._only_marked = False
        self._marks: dict[int, str] = {}
        self._rows: list[int] | None = None   # segment of each row when filtered
        self._html: OrderedDict[tuple, str] = OrderedDict()
        self._seen = self._adapted = None
        self._earlier: dict[int, list[int]] = {}   # segment -> steps that corrected it
        self._earlier_of = None
        self.show_source = False   # the source column is shown (the view hides it otherwise)

    def set_show_source(self, on: bool) -> None:
        self.show_source = bool(on)   # the view shows or hides the source column

    def show(self, walk: Walkthrough | None, step: int, only_marked: bool) -> None:
        # the same rows with new contents: say the data changed (the view repaints what is on
        # screen and keeps its scroll position); a reset only when the rows themselves change
        same_rows = (walk is not None and walk is self._walk and not only_marked
                     and not self._only_marked)
        if not same_rows:
            self.beginResetModel()
        if walk is not self._walk:
            self._html.clear()
        header_changed = bool(step) != bool(self._step)
        self._walk, self._step, self._only_marked = walk, step, only_marked
        self._texts_at(step)
        if walk is not self._earlier_of:
            self._earlier_of = walk
            self._earlier = {}
            for k, logged in enumerate(walk.log if walk is not None else (), 1):
                i = getattr(logged.target, "sentence", 0) - 1
                if i >= 0:
                    self._earlier.setdefault(i, []).append(k)
        self._rows = sorted(self._marks) if only_marked else None
        if not same_rows:
            self.endResetModel()
            return
        n = self.rowCount()
        if n:
            self.dataChanged.emit(self.index(0, 0), self.index(n - 1, len(self.COLUMNS) - 1))
        if header_changed:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.COLUMNS) - 1)

    def _texts_at(self, step: int) -> None:
        """The texts and marks of `step` of the walkthrough shown."""
        walk = self._walk
        self._step, self._marks = step, {}
        self._seen = self._adapted = None
        if walk is not None:
            view = walk.view(step) if step > 0 else None
            self._seen = view.seen if view else walk.base
            self._adapted = view.adapted if view else walk.base
            if view is not None:
                self._marks = {i: {1: "better", -1: "worse", 0: "changed"}[e]
                               for i, e in view.effects.items()}
                for i in view.corrected_segments:
                    self._marks[i] = "corrected"

    def segment_at(self, step: int, segment: int, columns) -> tuple[str, list[int], list[str]]:
        """Segment `segment` at `step` (the one shown or another): its mark, the steps
        before `step` that corrected it, the rich text of its `columns`."""
        saved = (self._step, self._marks, self._seen, self._adapted)
        try:
            if step != self._step:
                self._texts_at(step)
            mark = self._marks.get(segment, "")
            reference = self._walk.document.references[0][segment]
            return mark, self.earlier(segment), [self._cell_html(segment, c, mark, reference)
                                                 for c in columns]
        finally:
            self._step, self._marks, self._seen, self._adapted = saved

    def earlier(self, segment: int) -> list[int]:
        """The steps before the one shown that corrected `segment` (0-based)."""
        return [k for k in self._earlier.get(segment, ()) if k < self._step]

    def marks(self) -> dict[int, str]:
        """0-based segment -> mark of the step shown."""
        return dict(self._marks)

    def row_of_segment(self, segment: int) -> int:
        if self._rows is None:
            return segment
        return self._rows.index(segment) if segment in self._rows else -1

    def segment(self, row: int) -> int:
        return self._rows[row] if self._rows is not None else row

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        if parent.isValid() or self._walk is None:
            return 0
        return len(self._rows) if self._rows is not None else self._walk.document.n_segments

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return ("segment; ✎k: corrected by the human at step k", "the reference",
                    "the hypothesis the human saw before the step (red: not in the reference)",
                    "the system's hypothesis after the step (bold: changed by the step)",
                    "the source sentence the translator had")[section]
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        # short enough not to be cut at 1366x768: reference · what the human saw · after
        if self._step:
            return ("#", "reference", "the human saw (hₙ₋₁)", "after the step (hₙ)",
                    "source")[section]
        # step 0: nothing was seen yet, h_0 is the system's first output
        return ("#", "reference", "system hypothesis (h₀)", "", "source")[section]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role not in _ANSWERED or self._walk is None or not index.isValid():
            return None
        i = self.segment(index.row())
        column = index.column()
        mark = self._marks.get(i, "")
        if role == Qt.ItemDataRole.BackgroundRole:
            if mark:
                return QColor(_BACKGROUNDS[mark])
            return QColor(EARLIER_BG) if column == 0 and self.earlier(i) else None
        reference = self._walk.document.references[0][i]
        if role == HTML_ROLE:   # what a cell's paint asks for: before the texts below
            return self._cell_html(i, column, mark, reference)
        source = self._walk.document.source
        texts = (None, reference, self._seen[i], self._adapted[i] if self._step else "",
                 source[i] if source is not None and i < len(source) else "")
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return self._number(i, mark)
            return texts[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            earlier = self.earlier(i)
            return (f"segment {i + 1}" + (f": {_LABELS[mark]} at this step" if mark else "")
                    + (f"; corrected by the human at step {', '.join(map(str, earlier))}"
                       if earlier else ""))
        if role == Qt.ItemDataRole.ToolTipRole and column:
            return texts[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 1, self.SOURCE):
            # top, as the rich-text columns beside them
            side = Qt.AlignmentFlag.AlignRight if column == 0 else Qt.AlignmentFlag.AlignLeft
            return int(side | Qt.AlignmentFlag.AlignTop)
        return None

    def paint_cell(self, row: int, column: int) -> tuple[str, str | None]:
        """What a cell's paint needs, as `data` gives it (the delegate's fast path, called
        directly): the number column's text or a text column's `HTML_ROLE`, and the
        background's colour name (None: the table's)."""
        i = self._rows[row] if self._rows is not None else row
        mark = self._marks.get(i, "")
        if column == 0:
            return number_cell(i, mark, self.earlier(i))
        return (self._cell_html(i, column, mark, self._walk.document.references[0][i]),
                _BACKGROUNDS[mark] if mark else None)

    def _number(self, i: int, mark: str) -> str:
        return number_cell(i, mark, self.earlier(i))[0]

    def _cell_key(self, i: int, column: int, mark: str) -> tuple:
        """What cell (i, column)'s rich text depends on: its texts and mark, not the step,
        so a segment the step left alone keeps its formatted text (and its diff) from step
        to step."""
        if column in (1, self.SOURCE):
            return (i, column)
        adapted = self._adapted[i] if self._step else None
        if column == 0:
            corrected = (self._walk.view(self._step).corrected
                         if mark == "corrected" and self._step else None)
            return (i, 0, mark, self._seen[i], adapted,
                    corrected[i] if corrected is not None else None)
        return (i, column, self._seen[i], adapted)

    def _cell_html(self, i: int, column: int, mark: str, reference: str) -> str:
        key = self._cell_key(i, column, mark)
        cached = self._html.get(key)
        if cached is not None:
            self._html.move_to_end(key)
            return cached
        if column == 0:
            text = f"{i + 1}" + (f" <small>{_LABELS[mark]}</small>" if mark else "")
            text += self._what_the_system_did(i, mark)
        elif column == 1:
            text = html.escape(reference)
        elif column == self.SOURCE:
            source = self._walk.document.source
            text = (f"<span style='color:#555'>{html.escape(source[i])}</span>"
                    if source is not None and i < len(source) else "")
        elif column == 2:
            text = _pieces(marked(self._seen[i], reference, unit=self._unit()))
        elif self._step:
            text = _pieces(marked(self._adapted[i], reference, self._seen[i], self._unit()))
        else:
            text = ""
        self._html[key] = text
        if len(self._html) > _HTML_CACHE:
            self._html.popitem(last=False)
        return text


    def _unit(self) -> str:
        """The bundle's diff unit: words, or characters for scripts written without spaces
        (decided in core with the costs: `Replay.cost_unit`)."""
        return (self._walk.replay.cost_unit if self._walk is not None else "") or "words"

    def _what_the_system_did(self, i: int, mark: str) -> str:
        """Under the mark: for the corrected segment, whether the system applied the
        correction, ignored it or changed it otherwise (a correction is not a fix until the
        system takes it); for a generalised one, its sentence chrF before -> after."""
        if not mark or not self._step or self._walk is None:
            return ""
        if mark == "corrected":
            view = self._walk.view(self._step)   # cached by the walkthrough
            if view.corrected is None:
                return ""
            fate = correction_fate(view.corrected[i], self._adapted[i], self._seen[i])
            return f"<br><small style='color:{_fate_colour(fate)}'>{fate}</small>"
        refs = [r[i] for r in self._walk.document.references]
        before, after = chrf_change(self._seen[i], self._adapted[i], refs)
        return f"<br><small>chrF {before:.1f} → {after:.1f}</small>"


class MTView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = SegmentsModel(self)
        self.table = QTableView()
        quiet_header(self.table)   # the header is not repainted as the selected row moves
        self.table.setModel(self.model)
        self.delegate = RichTextDelegate(self.table)
        self.delegate.use_model(self.model)
        self.table.setItemDelegate(self.delegate)
        # one row selected: the reading pane shows it whole
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        # one fixed row height, set once: no row is ever measured
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(2 * self.fontMetrics().height() + 6)
        columns = self.table.horizontalHeader()
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
        # the number column holds its longest mark whole ("generalised ✗", "12 ✎3,7")
        metrics = self.table.fontMetrics()
        self.table.setColumnWidth(0, max(metrics.horizontalAdvance(t) for t in
                                         (*_SHORT.values(), "0000 ✎00,00")) + 12)
        columns.setTextElideMode(Qt.TextElideMode.ElideRight)
        for c in (1, 2, 3, SegmentsModel.SOURCE):
            columns.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        # the source before the reference, hidden until ticked
        columns.moveSection(columns.visualIndex(SegmentsModel.SOURCE), 1)
        self.table.setColumnHidden(SegmentsModel.SOURCE, True)
        self.only_changed = QCheckBox("only corrected and changed")
        self.only_changed.setToolTip("list only the segments the step corrected or changed")
        self.only_changed.toggled.connect(self._render)
        self.source_box = QCheckBox("source")
        self.source_box.setToolTip("show each segment's source sentence in a column of its own, "
                                   "before the reference (when the bundle names a source)")
        self.source_box.toggled.connect(self._on_source_toggled)
        self.source_box.setVisible(False)
        # rows are capped at two lines (a WMT paragraph would fill the view; a cut cell ends
        # in "…"): the reading pane shows the selected row whole; a double-click opens the
        # row itself, again closes it
        self.table.doubleClicked.connect(self._toggle_row)
        self.reading_pane = ReadingPane()   # (`reading`: the browser shown)
        self.table.selectionModel().currentRowChanged.connect(self._show_reading)
        # the corrected segment stays in view while the table's height settles
        self._focus_row = -1
        self.table.verticalScrollBar().rangeChanged.connect(self._keep_focus_in_view)
        self.summary = DocLabel("")   # laid out ahead (`prepare_caption`)
        # two lines, fixed: a new text never relayouts (and repaints) the whole window
        self.summary.setFixedHeight(2 * self.summary.fontMetrics().lineSpacing() + 6)
        legend = QLabel(
            f"<span style='background:{CORRECTED_BG}'>&nbsp;corrected by the human&nbsp;</span> "
            f"<span style='background:{BETTER_BG}'>&nbsp;system: better&nbsp;</span> "
            f"<span style='background:{WORSE_BG}'>&nbsp;worse&nbsp;</span> "
            f"<span style='background:{NEUTRAL_BG}'>&nbsp;neither&nbsp;</span> "
            f"<span style='background:{EARLIER_BG}'>&nbsp;✎k&nbsp;</span> corrected at step k · "
            f"<span style='color:{ERROR_FG}'>red</span> not in the reference · "
            "<b>bold</b> changed by the step")
        legend.setToolTip("row colours: the segment the human corrected at this step; the "
                          "segments the system changed by itself (generalisation), better, "
                          "worse or neither by sentence chrF; ✎k in the number column: "
                          "corrected by the human at the earlier step k")
        legend.setTextFormat(Qt.TextFormat.RichText)
        legend.setWordWrap(True)
        # what the reader must know about this bundle's text: fonts that cannot draw it,
        # TER cutting CJK text on spaces only (hidden when there is nothing to say)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setStyleSheet("QLabel { background: #fff4e0; color: #5c3b00; "
                                 "border: 1px solid #e0b060; padding: 2px 4px; }")
        self.notes.setVisible(False)
        # the caption grows to a third line rather than being cut (1366x768)
        top = QHBoxLayout()
        top.addWidget(QuietBox(self.summary), 1)   # its text never relayouts the window
        boxes = QVBoxLayout()
        boxes.setSpacing(0)
        boxes.addWidget(self.source_box)
        boxes.addWidget(self.only_changed)
        top.addLayout(boxes)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.notes)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.table)
        self.split.addWidget(self.reading_pane)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        self.split.setCollapsible(0, False)
        line = self.fontMetrics().lineSpacing()
        self.split.setSizes([14 * line, 6 * line])
        layout.addWidget(self.split, 1)
        layout.addWidget(legend)
        self._walk: Walkthrough | None = None
        self._step = 0
        self._ahead = None   # (walk, step, segments left) being prepared for step + 1
        self._ahead_timer = QTimer(self)
        self._ahead_timer.setSingleShot(True)
        self._ahead_timer.setInterval(self.AHEAD_DELAY_MS)
        self._ahead_timer.timeout.connect(self._prepare_ahead)
        self._reading_html = ""   # what the reading pane shows
        self._reading_docs: dict[str, QTextDocument] = {}   # laid out ahead, by their text
        self._reading_shown: QTextDocument | None = None
        self.reading_sets = 0     # times its HTML was set (tests count them)

    @property
    def reading(self) -> QTextBrowser:
        """The reading pane's browser shown (`ReadingPane`)."""
        return self.reading_pane.shown

    @property
    def rows(self) -> list[dict]:
        """Every segment with its mark at the step shown (for tests; O(segments))."""
        if self._walk is None:
            return []
        marks = self.model.marks()
        return [{"segment": i + 1, "mark": marks.get(i, "")}
                for i in range(self._walk.document.n_segments)]

    def set_notes(self, notes: list[str]) -> None:
        """Sentences about the bundle's text shown above the segments (none: hidden)."""
        text = "\n".join(f"⚠ {n}" for n in notes)
        if text != self.notes.text():
            self.notes.setText(text)
            self.notes.setToolTip(text)
        self.notes.setVisible(bool(notes))

    def _fit_rows(self, walk: Walkthrough | None) -> None:
        """Two lines of the document's own text per row: a script drawn with a fallback
        font (CJK) has taller lines than the window's font; measured once per document."""
        rows = self.table.verticalHeader()
        height = 2 * self.fontMetrics().height() + 6
        if walk is not None and walk.document.n_segments:
            doc = QTextDocument()
            doc.setDocumentMargin(2)
            doc.setDefaultFont(self.table.font())
            sample = walk.document.references[0][0][:40]
            doc.setPlainText(sample + "\n" + sample)
            height = max(height, int(doc.size().height()) + 2)
        if rows.defaultSectionSize() != height:
            rows.setDefaultSectionSize(height)

    def show_step(self, walk: Walkthrough, step: int) -> None:
        if walk is not self._walk:
            self._fit_rows(walk)
        self._walk, self._step = walk, step
        self.source_box.setVisible(walk is not None and walk.document.source is not None)
        self._render()

    def _caption(self, text: str) -> None:
        """The step's caption: whole, growing to the lines it needs at this width (never
        shrinking: a height that follows the text would relayout the window at every step),
        laid out here rather than in its paint, which asked for a second paint of it."""
        self.summary.setText(text)
        width = max(self.summary.width(), 1)
        needed = self.summary.heightForWidth(width)
        if needed > self.summary.height():
            self.summary.setFixedHeight(needed)

    def prepare_caption(self, walk: Walkthrough, step: int) -> None:
        """Step `step`'s caption laid out ahead of it (`DocLabel.prepare`)."""
        self.summary.prepare(caption_text(walk, step))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.summary.text():
            self._caption(self.summary.text())

    def _on_source_toggled(self, on: bool) -> None:
        self.model.set_show_source(on)
        self.table.setColumnHidden(SegmentsModel.SOURCE, not on)
        self._show_reading(self.table.currentIndex())

    def _show_reading(self, current, _previous=None) -> None:
        """The selected row whole in the reading pane: each column on its own line."""
        if self._walk is None or current is None or not current.isValid():
            self.reading_pane.clear()
            self._reading_html = ""
            return
        i = self.model.segment(current.row())
        text = self._reading_text(self._step, i)
        if text != self._reading_html:   # set once per change, never twice a step
            self._reading_html = text
            # laid out ahead while the previous step was read (`_ahead_reading`), or now
            doc = self._reading_docs.pop(text, None) or self._reading_doc(text)
            # the pane grows to the text before it holds it: its scroll bar no longer came
            # and went (each time laying the text out again) at every step
            self._fit_reading(doc)
            self.reading_pane.show_document(doc)
            self._reading_shown = doc   # (the pane does not own a document it did not make)
            self.reading_sets += 1
        self.reading_segment = i

    def _reading_text(self, step: int, i: int) -> str:
        """The reading pane's rich text for segment `i` at `step`: each column on its own
        line."""
        names = {1: "reference", 2: self.model.headerData(2, Qt.Orientation.Horizontal),
                 3: self.model.headerData(3, Qt.Orientation.Horizontal),
                 SegmentsModel.SOURCE: "source"}
        if bool(step) != bool(self._step):   # the names of step 0's columns differ
            names[2], names[3] = (("the human saw (hₙ₋₁)", "after the step (hₙ)") if step
                                  else ("system hypothesis (h₀)", ""))
        order = ([SegmentsModel.SOURCE] if self._walk.document.source is not None else []) \
            + [1, 2] + ([3] if step else [])
        mark, earlier, cells = self.model.segment_at(step, i, order)
        title = f"segment {i + 1}" + (f" · {_LABELS[mark]}" if mark else "") + (
            f" · corrected by the human at step {', '.join(map(str, earlier))}" if earlier else "")
        # side by side, as in the table, each cell whole under its column's name
        width = 100 // len(order)
        cells = "".join(f"<td width='{width}%'><small style='color:#555'>"
                        f"{html.escape(str(names[c]))}</small><br>{cell or ''}</td>"
                        for c, cell in zip(order, cells))
        return (f"<b>{html.escape(title)}</b><table width='100%' cellspacing='0' "
                f"cellpadding='2'><tr valign='top'>{cells}</tr></table>")

    def _reading_doc(self, text: str) -> QTextDocument:
        """The reading pane's document of `text`, laid out at the pane's width without a
        scroll bar (the width it has once grown to its text)."""
        doc = QTextDocument()
        shown = self.reading.document()
        doc.setDefaultFont(shown.defaultFont())
        doc.setDocumentMargin(shown.documentMargin())
        doc.setHtml(text)
        doc.setTextWidth(self._reading_width())
        doc.size()   # laid out now
        return doc

    def _reading_width(self) -> int:
        """The reading pane's text width when its scroll bar is hidden."""
        return max(self.reading.width() - 2 * self.reading.frameWidth(), 1)

    READING_SHARE = 0.45
    """The reading pane grows to show its segment whole up to this share of the split."""

    def _fit_reading(self, doc: QTextDocument) -> None:
        """Grow the reading pane to the height of `doc`, its next text, up to READING_SHARE
        of the split, so that it never shows the top half of its last line (at 1366x768 the
        third line of a segment was cut in half); it never shrinks below what the user set."""
        width = self._reading_width()
        if doc.textWidth() != width:   # (setting it lays the text out again)
            doc.setTextWidth(width)
        frame = 2 * self.reading.frameWidth()
        wanted = int(doc.size().height() + frame + 1)
        sizes = self.split.sizes()
        total = sum(sizes)
        if len(sizes) != 2 or total <= 0 or sizes[1] >= wanted:
            return
        if wanted > self.READING_SHARE * total:   # scrolls: whole lines of the usual font
            line = self.reading.fontMetrics().lineSpacing()
            wanted = frame + int(doc.documentMargin()) * 2 + line * max(
                1, int((self.READING_SHARE * total - frame) // line))
        if wanted > sizes[1]:
            self.split.setSizes([total - wanted, wanted])

    def _keep_focus_in_view(self, *_range) -> None:
        if 0 <= self._focus_row < self.model.rowCount():
            self.table.scrollTo(self.model.index(self._focus_row, 0),
                                QAbstractItemView.ScrollHint.PositionAtCenter)

    def _toggle_row(self, index) -> None:
        rows = self.table.verticalHeader()
        row = index.row()
        closed = rows.defaultSectionSize()
        if rows.sectionSize(row) > closed:
            self.table.setRowHeight(row, closed)
            return
        # the row's tallest cell at its column's width, at most 12 lines
        height = closed
        for column in range(1, self.model.columnCount()):
            if self.table.isColumnHidden(column):
                continue
            doc = QTextDocument()
            doc.setHtml(self.model.data(self.model.index(row, column), HTML_ROLE) or "")
            doc.setTextWidth(self.table.columnWidth(column))
            height = max(height, int(doc.size().height()) + 4)
        self.table.setRowHeight(row, min(height, 12 * self.fontMetrics().height()))

    AHEAD_DELAY_MS = 120
    """The user has stayed this long on a step: the next one is prepared (a held arrow key
    restarts the wait at every step, so nothing is prepared that would not be read)."""

    def _prepare_ahead(self) -> None:
        """The next step's screen formatted and laid out while the user reads this one: its
        corrected segment's rows centred, as `_render` will show them (the step then only
        draws what is ready; a step's rows are elsewhere in a long document). One row per
        turn of the event loop: a WMT paragraph's diff and layout take milliseconds, and the
        window stays responsive meanwhile."""
        walk, step = self._walk, self._step
        if (walk is None or step >= len(walk.steps) or self.only_changed.isChecked()
                or not self.delegate.sizes):
            return
        view = walk.view(step + 1)
        if not view.corrected_segments:
            return
        centre = min(view.corrected_segments)
        height = max(self.table.verticalHeader().defaultSectionSize(), 1)
        rows = self.table.viewport().height() // height + 1
        n = walk.document.n_segments
        # the rows on screen once the centre is scrolled to the middle (or the document's
        # first or last screen), two rows more each side (the view scrolls by whole rows and
        # its height settles after the step: one more row was laid out in the step's paint
        # at every other step); the centre first: what the eye goes to, and what a quick key
        # press shows
        top = max(0, min(centre - rows // 2, n - rows))
        segments = sorted(range(max(top - 2, 0), min(top + rows + 2, n)),
                          key=lambda i: abs(i - centre))
        self._ahead = (walk, step, segments)
        self._ahead_row()

    def _ahead_row(self) -> None:
        if self._ahead is None:
            return
        walk, step, segments = self._ahead
        if walk is not self._walk or step != self._step or not segments:
            self._ahead = None
            if walk is self._walk and step == self._step:
                self._ahead_reading(walk, step)
            return
        sizes = self._ahead_sizes(step)
        columns = list(sizes)
        mark, earlier, texts = self.model.segment_at(step + 1, segments[0], columns)
        background = QColor(_BACKGROUNDS[mark]) if mark else None
        for text, c in zip(texts, columns):
            # laid out, its "…" found and drawn into its picture (`RichTextDelegate.picture`)
            if self.delegate.palette is not None:
                self.delegate.picture(text, *sizes[c], background)
        number = self.delegate.sizes.get(0)
        if number is not None and sizes:   # its number too, in the row's height
            text, colour = number_cell(segments[0], mark, earlier)
            self.delegate.number_picture(text, number[0], next(iter(sizes.values()))[1],
                                         QColor(colour) if colour is not None else None)
        self._ahead = (walk, step, segments[1:])
        QTimer.singleShot(0, self, self._ahead_row)

    def _ahead_sizes(self, step: int) -> dict[int, tuple[int, int]]:
        """Column -> the size its cells will have at step `step + 1`: as last painted, but
        from step 0 the "after the step" column appears (`_render`), and the text columns
        share the width they had one more way, as the header will share it (Qt gives the
        pixels left over one each to the first stretched columns). Without this the first
        step drew every cell on screen anew (30-40 ms on a long document)."""
        table, known = self.table, self.delegate.sizes
        sizes = {c: known[c] for c in known if c and not table.isColumnHidden(c)}
        if step != 0 or not table.isColumnHidden(3) or not sizes:
            return sizes
        header = table.horizontalHeader()
        stretched = sorted(list(sizes) + [3], key=header.visualIndex)
        room = sum(header.sectionSize(c) for c in sizes)
        share, left = divmod(room, len(stretched))
        some = next(iter(sizes))
        grid = header.sectionSize(some) - sizes[some][0]   # (a cell is its section but the
        height = sizes[some][1]                            # grid line)
        return {c: (share + (1 if k < left else 0) - grid, height)
                for k, c in enumerate(stretched)}

    def _ahead_reading(self, walk: Walkthrough, step: int) -> None:
        """The reading pane's next document (step + 1's corrected segment) laid out ahead,
        once the next screen's rows are (their cells' rich text is then ready)."""
        view = walk.view(step + 1)
        if not view.corrected_segments or self.model.row_of_segment(
                min(view.corrected_segments)) < 0:
            return
        text = self._reading_text(step + 1, min(view.corrected_segments))
        if text != self._reading_html and text not in self._reading_docs:
            while len(self._reading_docs) >= 2:
                self._reading_docs.pop(next(iter(self._reading_docs)))
            doc = self._reading_docs[text] = self._reading_doc(text)
            self.reading_pane.hold(doc)   # laid out again there, now rather than at the step

    def _render(self) -> None:
        walk = self._walk
        self.model.show(walk, self._step if walk else 0, self.only_changed.isChecked())
        # step 0 has no "after the step" text: no empty third text column (issue 35)
        self.table.setColumnHidden(3, walk is not None and self._step == 0)
        if walk is None:
            self.summary.setText("")
            return
        step = self._step
        self._focus_row = -1
        view = walk.view(step) if step else None
        target = (self.model.row_of_segment(min(view.corrected_segments))
                  if view is not None and view.corrected_segments else -1)
        current = self.table.currentIndex()
        if current.isValid() and target in (-1, current.row()):
            # the same row, its new contents (a new row is shown by selecting it, below)
            self._show_reading(current)
        self._ahead = None
        self._ahead_timer.start()   # restarted at every step (step 0's next too)
        self._caption(caption_text(walk, step))
        if step and view.corrected_segments:
            row = target
            self._focus_row = row
            if row >= 0:
                # selected: the reading pane shows the corrected segment whole
                self.table.setCurrentIndex(self.model.index(row, 1))
                self.table.scrollTo(self.model.index(row, 0),
                                    QAbstractItemView.ScrollHint.PositionAtCenter)


def caption_text(walk: Walkthrough, step: int) -> str:
    """The caption above the document's table at step `step`: the corrected segments, what
    the system did with them and with the others."""
    doc = walk.document
    if step == 0:
        return (f"<b>{html.escape(doc.id)}</b>: {doc.n_segments} segments, "
                "the system's first hypothesis (step 0)")
    view = walk.view(step)
    better, worse = effect_counts(view.effects.values())
    return (f"<b>{html.escape(doc.id)}</b> step {step}: segment "
            f"{', '.join(str(c + 1) for c in sorted(view.corrected_segments))} corrected"
            f"{_fates(view)}; {_changes(len(view.changed_segments), better, worse)}")


def _changes(changed: int, better: int, worse: int) -> str:
    """The caption's count of the segments the system changed by itself, better and worse in
    their colours (a count of none in grey: "0 worse" in red read as an alarm)."""
    if changed == 0:
        return "the system changed no other segment by itself"

    def count(n: int, word: str, colour: str) -> str:
        return f"<span style='color:{colour if n else '#777777'}'>{n} {word}</span>"

    return (f"the system changed {changed} other segment{'s' if changed != 1 else ''} by "
            f"itself: {count(better, 'better', '#006b3c')}, {count(worse, 'worse', ERROR_FG)}")


def _fates(view) -> str:
    """What the system did with the step's corrections, said in the caption (the segments
    column's two lines had no room for it: it was seen only in a tooltip): " — applied",
    or one per segment when they differ."""
    if view.corrected is None or not view.corrected_segments:
        return ""
    fates = [correction_fate(view.corrected[i], view.adapted[i], view.seen[i])
             for i in sorted(view.corrected_segments)]
    shown = fates[:1] if len(set(fates)) == 1 else fates
    return " — " + ", ".join(
        f"<b style='color:{_fate_colour(fate)}'>{fate}</b>" for fate in shown)


def _fate_colour(fate: str) -> str:
    """A correction's fate in green when the system applied it, else in the error colour."""
    return "#1e7b34" if fate == "applied" else ERROR_FG


def _pieces(pieces: list[Piece]) -> str:
    """Rich text of marked tokens (red: not in the reference, bold: changed by the step),
    with the text's own spaces (none between two Chinese characters)."""
    out = []
    for piece in pieces:
        text = html.escape(piece.text)
        if piece.wrong:
            text = f"<span style='color:{ERROR_FG}'>{text}</span>"
        if piece.changed:
            text = f"<b>{text}</b>"
        out.append(text + piece.space)
    return "".join(out)
