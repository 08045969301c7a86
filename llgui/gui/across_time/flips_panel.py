"""The flips view of the Across-time tab: negative flips between consecutive model versions of
a campaign's system (DESIGN.md section 1.9), and the regressed units, openable.

Top: one row per consecutive version pair of the chosen system (units, flips, NFR and NFI with
their 95 % bootstrap intervals over units, in %). Middle: the regressed units of the chosen
pair, largest regression first. Bottom: the unit clicked, its output under both versions side
by side, with the reference. Everything shown is the `regressions` report's
(`llgui regressions CAMPAIGN --format json`, computed by a worker job in a child process);
this widget only lays it out.
"""
from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QSplitter, QTableWidget,
    QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget,
)

JOB_KEY = "time:regressions"
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
ERROR_FG = "#b3261e"   # the workbench's colour of a word not in the reference
PAIR_COLUMNS = ("versions", "units", "flips", "NFR %", "NFR 95%", "NFI %", "NFI 95%")
UNIT_COLUMNS = ("batch", "unit", "before", "after", "change")


def _num(value, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


def _marked(text: str, reference: str, other: str) -> str:
    """Rich text of `text`'s words: red where not in `reference`, bold where not in `other`."""
    from llgui.core.mt.textdiff import marked

    out = []
    for piece in marked(text, reference, other):
        word = html.escape(piece.text)
        if piece.wrong:
            word = f"<span style='color:{ERROR_FG}'>{word}</span>"
        if piece.changed:
            word = f"<b>{word}</b>"
        out.append(word + piece.space)
    return "".join(out)


def _interval(pair) -> str:
    lo, hi = pair
    return f"[{_num(lo)}, {_num(hi)}]"


class FlipsPanel(QWidget):
    """Flips of one system of the open campaign: the one the Across-time tab's system box
    shows (`show_system`)."""

    unit_opened = Signal(dict)   # the flip row whose two outputs are shown

    def __init__(self, jobs=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.jobs = jobs
        self.report: dict | None = None
        self.path: str | None = None
        self.status = QLabel("Open a campaign: the units each model version got worse on "
                             "appear here.")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setStyleSheet("color: #555;")
        self.wanted: str | None = None   # the system to show (the tab's choice)
        self.shown: int = -1             # its index in the report's flips
        self.pairs = self._table(PAIR_COLUMNS)
        self.pairs.setToolTip("negative flips between consecutive model versions: NFR = "
                              "regressed units / units; NFI = NFR / error rate of the later "
                              "version (Yan et al. 2021; Xie et al. 2021); 95 % bootstrap "
                              "intervals over units")
        self.pairs.itemSelectionChanged.connect(self._on_pairs_item_selection_changed)
        self.units = self._table(UNIT_COLUMNS)
        self.units.setToolTip("the regressed units of the selected pair, largest regression "
                              "first: click one to see both versions' outputs")
        self.units.itemSelectionChanged.connect(self._on_units_item_selection_changed)
        self.before = QTextBrowser()
        self.after = QTextBrowser()
        self.reference = QLabel("")
        self.reference.setWordWrap(True)
        self.reference.setTextFormat(Qt.TextFormat.RichText)
        self.reference.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.before_title = QLabel("before")
        self.after_title = QLabel("after")

        side = QHBoxLayout()
        for title, text in ((self.before_title, self.before), (self.after_title, self.after)):
            column = QVBoxLayout()
            column.addWidget(title)
            column.addWidget(text)
            side.addLayout(column)
        outputs = QWidget()
        o = QVBoxLayout(outputs)
        o.setContentsMargins(0, 0, 0, 0)
        o.addLayout(side, 1)
        o.addWidget(self.reference)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.pairs)
        split.addWidget(self.units)
        split.addWidget(outputs)
        split.setSizes([140, 200, 160])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        if jobs is not None:
            jobs.result_ready.connect(self._on_jobs_result_ready)
            jobs.failed.connect(self._on_jobs_failed)

    @staticmethod
    def _table(columns) -> QTableWidget:
        table = QTableWidget(0, len(columns))
        table.setHorizontalHeaderLabels(list(columns))
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().setVisible(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        return table

    # -- data -------------------------------------------------------------------------------

    def load(self, path: str) -> None:
        """Compute the regressions of the campaign at `path` on a worker."""
        from llgui.gui.jobs.regressions import regressions_job

        self.path = path
        self.status.setText("computing the flips between model versions…")
        if self.jobs is not None:
            self.jobs.submit(JOB_KEY, regressions_job, path)

    def set_report(self, report: dict) -> None:
        self.report = report
        self.show_system(self.wanted)

    def show_system(self, name: str | None) -> None:
        """Show the flips of the system `name` (None or unknown: the report's first)."""
        self.wanted = name
        self.pairs.setRowCount(0)
        self.units.setRowCount(0)
        systems = (self.report or {}).get("flips", ())
        names = [s["name"] for s in systems]
        index = names.index(name) if name in names else (0 if names else -1)
        self.shown = index
        if index < 0:
            return
        pairs = systems[index]["pairs"]
        n = sum(p["flips"] for p in pairs)
        self.status.setText(f"<b>{html.escape(names[index])}</b>: {n} regressed units over "
                            f"its {len(pairs)} version pair{'' if len(pairs) == 1 else 's'} · unit "
                            f"{html.escape(self.report.get('unit', ''))} · "
                            f"{html.escape(self.report.get('signature', ''))} · click a unit "
                            f"to see both versions' outputs")
        self.pairs.setRowCount(len(pairs))
        for r, p in enumerate(pairs):
            cells = (f"{p['before']} → {p['after']}", str(p["n_units"]), str(p["flips"]),
                     _num(p["nfr"]), _interval(p["nfr_interval"]), _num(p["nfi"]),
                     _interval(p["nfi_interval"]))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(RIGHT)
                self.pairs.setItem(r, c, item)
        if pairs:
            worst = max(range(len(pairs)), key=lambda r: (pairs[r]["flips"], -r))
            self.pairs.selectRow(worst)

    def _rows(self, system: str, before: str, after: str) -> list[dict]:
        return [r for r in (self.report or {}).get("rows", ()) if r["kind"] == "flip"
                and r["system"] == system and r["before"] == before and r["after"] == after]

    def select_pair(self, row: int) -> None:
        systems = (self.report or {}).get("flips", ())
        index = self.shown
        if not 0 <= index < len(systems) or not 0 <= row < len(systems[index]["pairs"]):
            return
        pair = systems[index]["pairs"][row]
        self.current = self._rows(systems[index]["name"], pair["before"], pair["after"])
        self.units.setRowCount(len(self.current))
        for r, flip in enumerate(self.current):
            cells = (flip["batch"], flip["unit"], _num(flip["score_before"]),
                     _num(flip["score_after"]), _num(flip["delta"]))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 2:
                    item.setTextAlignment(RIGHT)
                self.units.setItem(r, c, item)
        if self.current:
            self.units.selectRow(0)

    def open_unit(self, row: int) -> None:
        """Show the flip `row` of the selected pair: both versions' outputs side by side."""
        if not 0 <= row < len(getattr(self, "current", ())):
            return
        flip = self.current[row]
        unit = html.escape(self.report.get("unit", ""))
        self.before_title.setText(f"<b>{html.escape(flip['before'])}</b> · {unit} "
                                  f"{_num(flip['score_before'])}")
        self.after_title.setText(f"<b>{html.escape(flip['after'])}</b> · {unit} "
                                 f"{_num(flip['score_after'])}")
        before, after = flip.get("output_before", ""), flip.get("output_after", "")
        if self.report.get("task") == "mt":
            # as the workbench marks them: red, not in the reference; bold, not in the other
            # version's output
            reference = flip.get("reference", "")
            self.before.setHtml(_marked(before, reference, after))
            self.after.setHtml(_marked(after, reference, before))
        else:
            self.before.setPlainText(before.replace("; ", "\n"))
            self.after.setPlainText(after.replace("; ", "\n"))
        self.reference.setText(f"<b>reference</b> ({html.escape(flip['batch'])}, "
                               f"{html.escape(flip['unit'])}): "
                               f"{html.escape(flip.get('reference', ''))}")
        self.unit_opened.emit(flip)

    # -- slots ------------------------------------------------------------------------------

    @Slot()
    def _on_pairs_item_selection_changed(self) -> None:
        rows = self.pairs.selectionModel().selectedRows()
        if rows:
            self.select_pair(rows[0].row())

    @Slot()
    def _on_units_item_selection_changed(self) -> None:
        rows = self.units.selectionModel().selectedRows()
        if rows:
            self.open_unit(rows[0].row())

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key == JOB_KEY:
            self.set_report(result)

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        if key == JOB_KEY:
            self.status.setText(f"could not compute the flips: {message}")
