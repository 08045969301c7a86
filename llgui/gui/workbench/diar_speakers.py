"""Per-speaker breakdown of a diarization step, beside the timeline: for each reference
speaker the hypothesis label mapped to it in h_{n-1} (what the human saw) and in h_n (after
the step), and the miss, false alarm and confusion of h_n in seconds
(`llgui.core.diarization.speakers.speaker_breakdown`, which shares out pyannote's components)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from llgui.core.diarization.speakers import breakdown, cached_breakdown, mapped_labels

COLUMNS = ("speaker", "hₙ₋₁", "hₙ", "speech s", "miss", "FA", "conf.", "err %")
SYNC_TURNS = 2_000   # up to this the table computes its breakdown itself; beyond, a worker
                     # does (`breakdown` in the workbench's step-view job): ~40 ms at 20,000


def breakdown_ready(document, adapted, mapping, collar=0.0, skip_overlap=False) -> bool:
    """True when the table can show this step without a DER sweep on the main thread."""
    return (len(document.reference) + len(adapted) <= SYNC_TURNS
            or cached_breakdown(document, adapted, mapping, collar, skip_overlap) is not None)


class SpeakerTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setToolTip("per reference speaker, errors of h_n in seconds (collar and UEM as "
                        "the DER's); hₙ₋₁ / hₙ: the hypothesis label the optimal mapping gives "
                        "the speaker before and after the step")
        self.rows = ()   # the SpeakerErrors shown (tests read them)
        self._cells: list = []   # (text, foreground) of each cell shown, by row
        # compact rows: the table shares the timeline's height at 1366x768
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)

    def wanted_width(self) -> int:
        """Pixels that show every column whole (after a fill)."""
        header = self.horizontalHeader()
        return (sum(header.sectionSize(k) for k in range(header.count()))
                + 2 * self.frameWidth() + self.verticalScrollBar().sizeHint().width() + 2)

    def wanted_height(self, rows: int | None = None) -> int:
        """Pixels that show the header and every row (at most 8: a 20-speaker broadcast
        showed 3, issue 35; the room left under the timeline decides), or `rows` rows."""
        rows = self.rows_wanted() if rows is None else rows
        return (self.horizontalHeader().height() + rows * self.verticalHeader()
                .defaultSectionSize() + 2 * self.frameWidth() + 2)

    def rows_wanted(self) -> int:
        """The rows shown when there is room: every row, at most 8."""
        return min(max(self.rowCount(), 1), 8)

    def rows_within(self, height: int) -> int:
        """How many whole rows `wanted_height` fits in `height` pixels (a height between two
        rows' showed the last one cut in half at 1366x768)."""
        return max(0, (height - self.wanted_height(0))
                   // max(self.verticalHeader().defaultSectionSize(), 1))

    def show_step(self, document, seen_mapping, adapted, adapted_mapping, colours: dict,
                  collar: float = 0.0, skip_overlap: bool = False,
                  seen_unmapped: tuple = ()) -> None:
        """Fill the table; for a long show only from the worker's cached rows (until they
        come, the previous step's rows stay, greyed). `seen_unmapped`: the labels of h_{n-1}
        its mapping leaves out (the "(unmapped)" row's h_{n-1})."""
        if len(document.reference) + len(adapted) <= SYNC_TURNS:
            rows = breakdown(document, adapted, adapted_mapping, collar, skip_overlap)
        else:
            rows = cached_breakdown(document, adapted, adapted_mapping, collar, skip_overlap)
        if rows is None:
            self.setEnabled(False)
            return
        self.setEnabled(True)
        self.rows = rows
        before = mapped_labels(seen_mapping)
        after = mapped_labels(adapted_mapping)
        table = []   # (text, foreground or None) of every cell
        patterned = "/" in "".join(colours.values())
        for row in rows:
            label = row.speaker if row.speaker is not None else "(unmapped)"
            rate = row.error_rate
            was = (", ".join(seen_unmapped) or "–") if row.speaker is None else "–"
            cells = [label, before.get(row.speaker, was),
                     after.get(row.speaker, ", ".join(row.hypothesis) or "–"),
                     f"{row.total:.1f}", f"{row.miss:.1f}", f"{row.false_alarm:.1f}",
                     f"{row.confusion:.1f}", "" if rate != rate else f"{rate:.1f}"]
            line = [(text, None) for text in cells]
            if row.speaker in colours:
                from llgui.core.display.palette import PATTERN_GLYPHS, speaker_style

                colour, pattern = speaker_style(colours[row.speaker])
                # fills in use: every speaker's swatch, the fill that tells it from its
                # colour's twins (the legend points here)
                line[0] = (f"{PATTERN_GLYPHS[pattern]} {label}" if patterned else label,
                           colour)
            table.append(line)
        if table == self._cells:
            return   # the step left every row as it was: the table is not touched
        # only the cells that changed, and one measure of the columns after them (new items
        # for every cell, and ResizeToContents re-measuring the whole column at every
        # setItem, were ~35 ms a step); only they are repainted (updates switched off and
        # on again repainted the whole table and its header at every step)
        old = self._cells
        # the columns to measure again: those with a changed cell (all when rows come or go)
        measure = set(range(self.columnCount())) if len(rows) != self.rowCount() else set()
        self.setRowCount(len(rows))
        for k, line in enumerate(table):
            for c, cell in enumerate(line):
                if k < len(old) and old[k][c] == cell and self.item(k, c) is not None:
                    continue
                measure.add(c)
                text, colour = cell
                item = QTableWidgetItem(text)
                if colour is not None:
                    item.setForeground(QColor(colour))
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(k, c, item)
        self._cells = table
        for c in sorted(measure):   # (the others' widths stand: their cells did not change)
            self.resizeColumnToContents(c)

