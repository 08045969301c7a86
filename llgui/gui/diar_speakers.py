"""Per-speaker breakdown of a diarization step, beside the timeline: for each reference
speaker the hypothesis label mapped to it in h_{n-1} (what the human saw) and in h_n (after
the step), and the miss, false alarm and confusion of h_n in seconds
(`llgui.core.der_speakers.speaker_breakdown`, which shares out pyannote's components)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from llgui.core.der_speakers import speaker_breakdown

COLUMNS = ("speaker", "hₙ₋₁", "hₙ", "speech s", "miss", "FA", "conf.", "err %")
MAX_TURNS = 20_000   # beyond this the breakdown (a DER sweep) waits for a smaller show


class SpeakerTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setToolTip("per reference speaker, errors of h_n in seconds (collar and UEM as "
                        "the DER's); hₙ₋₁ / hₙ: the hypothesis label the optimal mapping gives "
                        "the speaker before and after the step")
        self.rows = ()   # the SpeakerErrors shown (tests read them)

    def show_step(self, document, seen_mapping, adapted, adapted_mapping, colours: dict,
                  collar: float = 0.0, skip_overlap: bool = False) -> None:
        if len(document.reference) + len(adapted) > MAX_TURNS:
            self.setRowCount(0)
            self.rows = ()
            return
        self.rows = speaker_breakdown(document.reference, adapted, document.uem, collar,
                                      skip_overlap, mapping=adapted_mapping)
        before = _inverse(seen_mapping)
        after = _inverse(adapted_mapping)
        self.setRowCount(len(self.rows))
        for k, row in enumerate(self.rows):
            label = row.speaker if row.speaker is not None else "(unmapped)"
            rate = 100 * row.error / row.total if row.total > 0 else float("nan")
            cells = [label, before.get(row.speaker, "–"),
                     after.get(row.speaker, ", ".join(row.hypothesis) or "–"),
                     f"{row.total:.1f}", f"{row.miss:.1f}", f"{row.false_alarm:.1f}",
                     f"{row.confusion:.1f}", "" if rate != rate else f"{rate:.1f}"]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0 and row.speaker in colours:
                    item.setForeground(QColor(colours[row.speaker]))
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(k, c, item)


def _inverse(mapping) -> dict:
    """reference label -> the hypothesis labels mapped to it, joined."""
    out: dict = {}
    for hyp, ref in (mapping or {}).items():
        out.setdefault(ref, []).append(hyp)
    return {ref: ", ".join(sorted(hyps)) for ref, hyps in out.items()}
