"""Every pair of a campaign's systems in the Systems view (issue 32): a matrix of the paired
tests of `llgui compare CAMPAIGN --all-pairs --cells` (each system's last model version on
the batches all of them have, Holm's adjustment over the pairs), for the leaderboard's metric.

Cell (row a, column b) shows the adjusted p-value of a against b with `*` below 0.05, tinted
green where the row's system is the better one and red where the column's is (the report's
`better`, never recomputed here); its tooltip gives the difference, the raw p and the test.
The label above says how many pairs were tested and how the p-values were adjusted. The
report comes from a child process (`llgui.campaign.compare_child`), as the baseline test does.
"""
from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from llgui.core.display.signed import signed

BETTER = QColor(220, 240, 220)
WORSE = QColor(245, 222, 222)


class PairsView(QWidget):
    """The all-pairs matrix of one metric, with a line saying what it is."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.report: dict | None = None
        self.metric: str | None = None
        self.label = QLabel("every pair of systems: not computed")
        self.label.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.table, 1)

    def set_pending(self, text: str) -> None:
        self.report = None
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.label.setText(text)

    def set_report(self, report: dict | None, metric: str | None = None) -> None:
        self.report = report
        if metric is not None:
            self.metric = metric
        self._fill()

    def set_metric(self, metric: str) -> None:
        self.metric = metric
        self._fill()

    def cell_text(self, a: str, b: str) -> str:
        """What the matrix shows for row `a`, column `b` (tests read it)."""
        row = [self.table.verticalHeaderItem(r).text() for r in range(self.table.rowCount())]
        col = [self.table.horizontalHeaderItem(c).text()
               for c in range(self.table.columnCount())]
        item = self.table.item(row.index(a), col.index(b))
        return "" if item is None else item.text()

    def _fill(self) -> None:
        report, metric = self.report, self.metric
        if report is None or metric is None or metric not in report["metric_signatures"]:
            return
        names = [s["name"] for s in report["systems"]]
        self.table.clear()
        self.table.setRowCount(len(names))
        self.table.setColumnCount(len(names))
        self.table.setVerticalHeaderLabels(names)
        self.table.setHorizontalHeaderLabels(names)
        for pair in report["pairs"]:
            e = pair["metrics"][metric]
            for a, b in ((pair["a"], pair["b"]), (pair["b"], pair["a"])):
                adjusted = e["p_adjusted"] if e["p_adjusted"] is not None else e["p_value"]
                item = QTableWidgetItem(f"{adjusted:.4f}" + ("*" if e["significant"] else ""))
                delta_text = f"{pair['b']} - {pair['a']} = {signed(e['delta'])}"
                item.setToolTip(f"{delta_text}; p {e['p_value']:.4f} ({report['test']}), "
                                f"adjusted {adjusted:.4f} ({report['correction']})"
                                + (f"; better: {e['better']}" if e["better"] else
                                   "; no significant difference"))
                if e["better"] == a:
                    item.setBackground(QBrush(BETTER))
                elif e["better"] == b:
                    item.setBackground(QBrush(WORSE))
                self.table.setItem(names.index(a), names.index(b), item)
        label = report["metric_signatures"][metric]["label"]
        how = ("adjusted by Holm's method (Holm 1979)" if report["correction"] == "holm"
               else "not adjusted")
        source = report.get("source") or {}
        self.label.setText(
            f"Every pair, {label}: {report['n_pairs']} pairs, p-values {how}; '*' below "
            f"{report['level']:g}; green: the row's system is better. "
            f"{report['signature']}. Compared: {source.get('what', 'the systems')}.")
