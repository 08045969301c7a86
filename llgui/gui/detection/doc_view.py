"""The workbench's view of a detection system at a step (DESIGN.md 1.8): every trial's score
before the step (h_{n-1}, x) against after it (h_n, y), the labelled trials and the trials the
system changed besides them highlighted, the decision threshold on both axes, and a table of
the labelled trials."""
from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem,
    QVBoxLayout, QWidget,
)

TEXT = "#222222"
TARGET = "#1f77b4"
NONTARGET = "#d62728"
MAX_BACKGROUND = 20_000
"""Trials drawn in grey at most (evenly spaced); highlighted ones are always drawn."""


class DetDocView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.caption = QLabel("")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.showGrid(x=True, y=True, alpha=0.25)
        for name in ("bottom", "left"):
            item.getAxis(name).setTextPen(TEXT)
        item.setLabel("bottom", "score the human saw (before the step)")
        item.setLabel("left", "score after the step")
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels(("labelled trial", "true label", "answer",
                                              "score before", "score after", "decided after"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        split.addWidget(self.table)
        split.setSizes([380, 180])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(split, 1)

    def show_class_step(self, walk, n: int) -> None:
        """Step n of a classification walkthrough: the labelled items' classes before and
        after, and how many other items the system re-decided."""
        doc = walk.document
        self.plot.setVisible(False)
        self.table.setHorizontalHeaderLabels(("labelled item", "true class", "answer",
                                              "decided before", "decided after", ""))
        if n <= 0:
            self.caption.setText(f"<b>{html.escape(doc.id)}</b>: the system's first "
                                 f"decisions, {len(doc.items):,} items, {doc.n_wrong:,} wrong, "
                                 f"classes {html.escape(', '.join(doc.classes))}")
            self.table.setRowCount(0)
            return
        view = walk.steps[min(n, len(walk.steps)) - 1]
        items, changed = view.corrected_segments, view.changed_segments
        self.caption.setText(
            f"<b>{html.escape(doc.id)}</b>, step {view.step.step}: the human labelled "
            f"{len(items)} item{'s' if len(items) != 1 else ''}; the system then re-decided "
            f"{len(changed):,} other item{'s' if len(changed) != 1 else ''}")
        self.table.setRowCount(len(items))
        for row, (i, answer) in enumerate(zip(items, view.step.answer)):
            after = doc.classes[int(view.adapted[i])]
            cells = (doc.items[i], doc.truth[i], answer, doc.classes[int(view.seen[i])],
                     after + (" ✓" if after == doc.truth[i] else " ✗"), "")
            for col, text in enumerate(cells):
                self.table.setItem(row, col, QTableWidgetItem(text))

    def show_step(self, walk, n: int, threshold: float) -> None:
        """Step n of the walkthrough (0: the first scores), decisions at `threshold`."""
        from llgui.core.detection.analysis import decisions_at, scores_changed
        from llgui.core.display.layout import diagonal_span, even_sample

        self.plot.setVisible(True)
        self.table.setHorizontalHeaderLabels(("labelled trial", "true label", "answer",
                                              "score before", "score after", "decided after"))
        doc = walk.document
        labels = doc.trials.is_target
        if n <= 0:
            before = after = walk.base
            items, changed, step = (), (), None
        else:
            view = walk.steps[min(n, len(walk.steps)) - 1]
            before, after = view.seen, view.adapted
            items, changed, step = view.corrected_segments, view.changed_segments, view.step
        item = self.plot.getPlotItem()
        item.clear()
        background = even_sample(before.size, MAX_BACKGROUND)
        item.addItem(pg.ScatterPlotItem(before[background], after[background], size=4,
                                        pen=None, brush=pg.mkBrush(150, 150, 150, 90)))
        for group, size, symbol in ((list(changed), 6, "o"), (list(items), 13, "star")):
            if not group:
                continue
            brushes = [pg.mkBrush(TARGET if labels[i] else NONTARGET) for i in group]
            item.addItem(pg.ScatterPlotItem(before[group], after[group], size=size,
                                            symbol=symbol, brush=brushes,
                                            pen=pg.mkPen("k", width=0.8 if size > 8 else 0)))
        lo, hi = diagonal_span(before, after)
        item.plot([lo, hi], [lo, hi], pen=pg.mkPen("#999999", style=Qt.PenStyle.DashLine))
        for angle in (0, 90):
            item.addItem(pg.InfiniteLine(threshold, angle=angle,
                                         pen=pg.mkPen("#444444", width=1,
                                                      style=Qt.PenStyle.DotLine)))
        item.setTitle(f"★ labelled · ● changed besides them "
                      f"(<span style='color:{TARGET}'>target</span> / "
                      f"<span style='color:{NONTARGET}'>non-target</span>) · ┈ threshold "
                      f"{threshold:.3g}", size="9pt", color=TEXT)
        if step is None:
            self.caption.setText(f"<b>{html.escape(doc.id)}</b>: the system's first scores, "
                                 f"{labels.size:,} trials ({doc.trials.n_target:,} targets)")
        else:
            moved = len(changed)
            self.caption.setText(
                f"<b>{html.escape(doc.id)}</b>, step {step.step}: the human labelled "
                f"{len(items)} trial{'s' if len(items) != 1 else ''}; the system then changed "
                f"the scores of {moved:,} other trial{'s' if moved != 1 else ''}"
                + (" (it generalised)" if moved else "")
                + (" and of none of the labelled ones (it ignored the labels)"
                   if items and not scores_changed(before, after, items) else ""))
        self.table.setRowCount(len(items))
        answers = step.answer if step is not None else ()
        decided = decisions_at(after, labels, list(items), threshold)
        for row, (d, answer) in enumerate(zip(decided, answers)):
            i = d.index
            cells = (doc.items[i], "target" if d.target else "non-target",
                     "target" if answer == "target" else "non-target",
                     f"{before[i]:.3f}", f"{d.score:.3f}",
                     ("accepted" if d.accepted else "rejected") + (" ✓" if d.right else " ✗"))
            for col, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if col == 5 and not d.right:
                    cell.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(row, col, cell)
