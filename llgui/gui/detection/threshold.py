"""One decision threshold shared by the Detection tab's views (DESIGN.md 1.8).

`ThresholdState` holds the system the lecture views look at and the threshold (accept iff
score >= threshold); clicking or dragging on the DET plot, or typing a value, sets it, and
every view listens to `changed`. `ThresholdPanel` shows, for that system at that threshold,
the confusion counts, precision, recall, F1 and error rate (`llgui.core.detection.analysis`, the same
numbers as `llgui det --threshold T --format json`) and the trials nearest the threshold.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

NEAREST = 12
"""How many trials nearest the threshold the panel lists."""


class ThresholdState(QObject):
    """The selected system (by name) and its threshold. `changed` is emitted once per change
    of either; views read `system` and `threshold`."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.system: str | None = None
        self.threshold: float | None = None

    def set(self, system: str | None, threshold: float | None) -> None:
        if threshold is not None and not math.isfinite(threshold):
            return
        if system == self.system and threshold == self.threshold:
            return
        self.system, self.threshold = system, threshold
        self.changed.emit()

    def set_threshold(self, threshold: float) -> None:
        self.set(self.system, float(threshold))


class ThresholdPanel(QWidget):
    """System chooser, threshold field, counts and P/R/F, and the trials nearest the
    threshold. `values` holds the exact numbers shown (an `AtThreshold`), for tests."""

    def __init__(self, state: ThresholdState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.values = None
        self._results: dict = {}          # DetResult by system name
        self._trials_by_name: dict = {}   # Trials by system name
        self._ids_by_name: dict = {}      # item ids by system name (bundles with a log)
        self._starts: dict = {}           # a bundle's decision threshold by system name
        self.system_box = QComboBox()
        self.system_box.setToolTip("the system the threshold views show")
        self.system_box.activated.connect(self._on_system_box_activated)
        self.threshold_edit = QLineEdit()
        self.threshold_edit.setValidator(QDoubleValidator())
        self.threshold_edit.setMaximumWidth(110)
        self.threshold_edit.setToolTip("accept a trial iff its score >= the threshold; click "
                                       "or drag on the DET plot to choose one")
        self.threshold_edit.editingFinished.connect(self._on_threshold_edit_finished)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("Threshold for"))
        top.addWidget(self.system_box, 1)
        top.addWidget(QLabel("score ≥"))
        top.addWidget(self.threshold_edit)

        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(2)
        self.cells: dict[str, QLabel] = {}
        layout = (("tp", "TP (targets accepted)", 0, 0), ("fn", "FN (misses)", 0, 2),
                  ("fp", "FP (false alarms)", 1, 0), ("tn", "TN", 1, 2),
                  ("precision", "precision %", 2, 0), ("recall", "recall %", 2, 2),
                  ("f1", "F1 %", 3, 0), ("error_rate", "error rate %", 3, 2))
        for key, label, row, col in layout:
            value = QLabel("–")
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setMinimumWidth(70)
            grid.addWidget(QLabel(label), row, col)
            grid.addWidget(value, row, col + 1)
            self.cells[key] = value

        self.nearest = QTableWidget(0, 4)
        self.nearest.setHorizontalHeaderLabels(("trial", "label", "score", "decided"))
        self.nearest.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.nearest.verticalHeader().setVisible(False)
        self.nearest.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.nearest.horizontalHeader().setStretchLastSection(True)
        self.nearest.setToolTip(f"the {NEAREST} trials whose scores are nearest the threshold")
        self.nearest_label = QLabel("Trials nearest the threshold")

        box = QVBoxLayout(self)
        box.setContentsMargins(0, 4, 0, 0)
        box.addLayout(top)
        box.addLayout(grid)
        box.addWidget(self.nearest_label)
        box.addWidget(self.nearest, 1)
        state.changed.connect(self._on_state_changed)

    # -- what the tab gives -------------------------------------------------------------------

    def set_systems(self, results, trials_by_name, ids_by_name, starts=None) -> None:
        """The evaluated systems (DetResults), their Trials and item ids by name. Keeps the
        selected system when it is still there, else takes the first at its start: the
        decision threshold of its bundle (`starts`, by name: where the Documents panel's
        S_base decides, outsider helper-56: its error rate differed from the panel's), or,
        for scores without a bundle, its EER's threshold (a point on the plot, where the
        Bayes threshold often is not)."""
        self._starts = dict(starts or {})
        self._results = {r.name: r for r in results}
        self._trials_by_name = dict(trials_by_name)
        self._ids_by_name = dict(ids_by_name)
        self.system_box.blockSignals(True)
        self.system_box.clear()
        for r in results:
            self.system_box.addItem(r.name, r.name)
        self.system_box.blockSignals(False)
        name = self.state.system if self.state.system in self._results else (
            results[0].name if results else None)
        threshold = self.state.threshold
        if name is not None and (threshold is None or name != self.state.system):
            threshold = self.start(name)
        if name is not None:
            self.system_box.setCurrentIndex(self.system_box.findData(name))
        if (name, threshold) == (self.state.system, self.state.threshold):
            self._on_state_changed()   # same selection, new results: redraw
        else:
            self.state.set(name, threshold)

    def start(self, name: str) -> float:
        """Where system `name` is first shown: its bundle's decision threshold, else its
        EER's."""
        start = self._starts.get(name)
        return float(start) if start is not None and math.isfinite(start) else \
            self._results[name].eer_point.threshold

    def result(self):
        return self._results.get(self.state.system) if self.state.system else None

    def trials(self):
        return self._trials_by_name.get(self.state.system) if self.state.system else None

    # -- reactions ------------------------------------------------------------------------

    def _on_system_box_activated(self, index: int) -> None:
        name = self.system_box.itemData(index)
        result = self._results.get(name)
        if result is not None:
            threshold = self.state.threshold
            self.state.set(name, self.start(name) if threshold is None else threshold)

    def _on_threshold_edit_finished(self) -> None:
        try:
            value = float(self.threshold_edit.text().replace(",", "."))
        except ValueError:
            return
        if math.isfinite(value):
            self.state.set_threshold(value)

    def _on_state_changed(self) -> None:
        from llgui.core.detection.analysis import at_threshold_curve, decisions_at, nearest_trials

        result = self.result()
        threshold = self.state.threshold
        if result is None or threshold is None:
            self.values = None
            for cell in self.cells.values():
                cell.setText("–")
            self.nearest.setRowCount(0)
            return
        self.system_box.setCurrentIndex(self.system_box.findData(result.name))
        if not self.threshold_edit.hasFocus():
            self.threshold_edit.setText(f"{threshold:.6g}")
        values = at_threshold_curve(result.curve, threshold)
        self.values = values
        for key in ("tp", "fp", "tn", "fn"):
            self.cells[key].setText(f"{getattr(values, key):,}")
        for key in ("precision", "recall", "f1", "error_rate"):
            self.cells[key].setText(f"{getattr(values, key):.2f}")
        trials = self.trials()
        if trials is None:
            self.nearest.setRowCount(0)
            return
        ids = self._ids_by_name.get(result.name)
        near = nearest_trials(trials.scores, threshold, NEAREST)
        printed = threshold_text(threshold, trials.scores[near])
        if not self.threshold_edit.hasFocus():   # enough digits to part it from the scores
            self.threshold_edit.setText(printed)
        self.nearest.setRowCount(near.size)
        for row, d in enumerate(decisions_at(trials.scores, trials.is_target, near, threshold)):
            i = d.index
            cells = (ids[i] if ids is not None else f"#{i + 1}",
                     "target" if d.target else "non-target",
                     score_text(d.score, threshold, float(printed)),
                     ("accepted" if d.accepted else "rejected") + (" ✓" if d.right else " ✗"))
            for col, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if col == 3 and not d.right:
                    cell.setForeground(Qt.GlobalColor.darkRed)
                if col == 2:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.nearest.setItem(row, col, cell)
        self.nearest_label.setText(f"The {near.size} trials nearest the threshold "
                                   f"({trials.n_target:,} targets in all)")


def threshold_text(threshold: float, near) -> str:
    """The threshold to 6 significant digits, more while one of the `near` scores would sit on
    the other side of the printed threshold than of the real one."""
    for digits in range(6, 18):
        text = f"{threshold:.{digits}g}"
        if all((float(s) >= float(text)) == (float(s) >= threshold) for s in near):
            return text
    return repr(threshold)


def score_text(score: float, threshold: float, shown: float) -> str:
    """A trial's score beside the threshold: 6 significant digits, more until the printed
    score sits on the same side of the printed threshold (`threshold_text`, at least as
    precise) as the score does ("5.5" read as above a threshold of 5.47273, issue 35).
    `shown`: the threshold as printed."""
    for digits in range(6, 18):
        text = f"{score:.{digits}g}"
        if (float(text) >= shown) == (score >= threshold):
            return text
    return repr(score)
