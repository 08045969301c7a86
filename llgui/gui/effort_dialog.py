"""Session › Human vs oracle…: a live expert against the simulated one, and what each question
was worth (issue 34; docs/live.md, "The human against the oracle").

`EffortDialog` takes live-session folders (and, for Kendall's tau, simulated run folders of the
same systems), runs `llgui.gui.jobs.effort.effort_job` on the window's `JobRunner`, and shows
the report as `llgui effort` prints it: the agreement of the human's answers with the oracle's
(error rate, interval, the `noisy:P` it implies) and each answer compared, the cost model
fitted to the logged seconds (Save cost model… writes it as a `[cost]` table), the ranking
correlation, and each session's question value. The numbers are the report's; the dialog only
lays them out.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout,
    QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSplitter, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from llgui.gui.jobs.effort import effort_job
from llgui.gui.workers import JobRunner

KEY = "effort"


class EffortDialog(QDialog):
    """Folders in, Compute, the report laid out in tables."""

    def __init__(self, jobs: JobRunner, folder: str | Path | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("The human against the oracle")
        self.jobs = jobs
        self.report: dict | None = None
        self.error = ""

        form = QFormLayout()
        self.folders_edit = QPlainTextEdit(str(folder or ""))
        self.folders_edit.setToolTip("live-session folders (Session › Start live session… "
                                     "writes one), one a line")
        self.folders_edit.setFixedHeight(54)
        form.addRow("Live sessions", self._with_browse(self.folders_edit))
        self.simulated_edit = QPlainTextEdit("")
        self.simulated_edit.setToolTip("optional: simulated run folders of the same systems on "
                                       "the same bundle (llgui simulate --out), one a line: "
                                       "Kendall's tau between the two rankings")
        self.simulated_edit.setFixedHeight(54)
        form.addRow("Simulated runs", self._with_browse(self.simulated_edit))
        options = QHBoxLayout()
        self.interval = QComboBox()
        self.interval.addItems(["exact (Clopper-Pearson)", "Wilson score"])
        options.addWidget(QLabel("interval"))
        options.addWidget(self.interval)
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setRange(0.0, 60.0)
        self.tolerance.setValue(0.5)
        self.tolerance.setSuffix(" s")
        self.tolerance.setToolTip("a boundary answer agrees with the oracle's when both edges "
                                  "are this close")
        options.addWidget(QLabel("boundary tolerance"))
        options.addWidget(self.tolerance)
        options.addStretch(1)
        form.addRow("Options", self._row(options))

        self.status = QLabel("Choose a live session's folder, then Compute.")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answers = self._table(("document", "step", "kind", "agree", "human", "oracle"))
        self.fit_label = QLabel("")
        self.fit_label.setWordWrap(True)
        self.fit = self._table(("weight", "value", "interval", "unit"))
        self.fit.setMinimumHeight(130)   # the three weights without a scroll bar
        self.questions = self._table(("input", "questions", "precision", "asked", "random",
                                      "best", "gain", "regret", "errors counted in"))
        self.questions.setToolTip("question value of the system's questions in each session: "
                                  "errors inside what was asked, against a random and the best "
                                  "question of the same cost (docs/metrics.md)")
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.fit_label)
        lower_layout.addWidget(self.fit)
        lower_layout.addWidget(QLabel("What the system's questions were worth"))
        lower_layout.addWidget(self.questions)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.answers)
        split.addWidget(lower)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        buttons = QDialogButtonBox()
        self.compute_button = buttons.addButton("Compute", QDialogButtonBox.ButtonRole.AcceptRole)
        self.save_button = buttons.addButton("Save cost model…",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button.setEnabled(False)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.compute_button.clicked.connect(self._on_compute_clicked)
        self.save_button.clicked.connect(self._on_save_clicked)
        close.clicked.connect(self.close)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(split, 1)
        layout.addWidget(buttons)
        self.resize(900, 640)

        self.jobs.result_ready.connect(self._on_jobs_result_ready)
        self.jobs.failed.connect(self._on_jobs_failed)

    # -- layout helpers -----------------------------------------------------------------------
    @staticmethod
    def _row(layout) -> QWidget:
        widget = QWidget()
        layout.setContentsMargins(0, 0, 0, 0)
        widget.setLayout(layout)
        return widget

    def _with_browse(self, edit: QPlainTextEdit) -> QWidget:
        row = QHBoxLayout()
        row.addWidget(edit)
        button = QPushButton("Add folder…")

        def add() -> None:
            path = QFileDialog.getExistingDirectory(self, "Run folder")
            if path:
                text = edit.toPlainText().rstrip()
                edit.setPlainText(f"{text}\n{path}" if text else path)

        button.clicked.connect(add)
        row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        return self._row(row)

    @staticmethod
    def _table(header) -> QTableWidget:
        table = QTableWidget(0, len(header))
        table.setHorizontalHeaderLabels(list(header))
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    @staticmethod
    def _fill(table: QTableWidget, rows) -> None:
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                text = str(value)
                item = QTableWidgetItem(text if len(text) <= 48 else text[:47] + "…")
                item.setToolTip(text)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()

    @staticmethod
    def _lines(edit: QPlainTextEdit) -> list[str]:
        return [line.strip() for line in edit.toPlainText().splitlines() if line.strip()]

    # -- running ------------------------------------------------------------------------------
    @Slot()
    def _on_compute_clicked(self) -> None:
        folders, simulated = self._lines(self.folders_edit), self._lines(self.simulated_edit)
        missing = [f for f in folders + simulated if not (Path(f) / "bundle.toml").is_file()]
        if not folders or missing:
            self.status.setText("Not a run folder (no bundle.toml): " + ", ".join(missing)
                                if missing else "Choose a live session's folder.")
            return
        self.report, self.error = None, ""
        self.status.setText("Computing…")
        self.compute_button.setEnabled(False)
        method = "exact" if self.interval.currentIndex() == 0 else "wilson"
        self.jobs.submit(KEY, effort_job, folders, simulated, method, self.tolerance.value())

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        if key == KEY:
            self.error = message
            self.status.setText(f"Could not compute: {message}")
            self.compute_button.setEnabled(True)

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, report: object) -> None:
        if key != KEY:
            return
        self.compute_button.setEnabled(True)
        self.show_report(report)

    def show_report(self, report: dict) -> None:
        from llgui.io.effort_report import agreement_line, fit_line, fit_rows, ranking_line
        from llgui.io.export import fmt

        self.report = report
        human = report.get("human")
        if not human:
            self.status.setText("No live session among these folders: their logs record no "
                                "effort. The question value is below.")
            self._fill(self.answers, [])
            self._fill(self.fit, [])
            self.fit_label.setText("")
            self.save_button.setEnabled(False)
        else:
            lines = [agreement_line(human["agreement"])]
            if human.get("ranking"):
                lines.append(ranking_line(human["ranking"]))
            if human.get("not_compared"):
                lines.append(f"{len(human['not_compared'])} steps not compared (a segment "
                             f"carries no answer to compare)")
            self.status.setText("\n".join(lines))
            self._fill(self.answers, [(a["doc"], a["step"], a["kind"],
                                       "yes" if a["agree"] else "no", _text(a["human"]),
                                       _text(a["oracle"])) for a in human["answers"]])
            fit = human.get("cost_fit")
            self.fit_label.setText(fit_line(fit) if fit else
                                   f"cost model: not fitted ({human.get('cost_fit_problem')})")
            self._fill(self.fit, fit_rows(fit) if fit else [])
            self.save_button.setEnabled(bool(fit))
        rows = []
        for name, q in report.get("questions", {}).items():
            run = q.get("run")
            if not run:
                rows.append((Path(name).name, 0, "", "", "", "", "", "", ""))
                continue
            precision = run["precision"]
            rows.append((Path(name).name, run["questions"],
                         "" if precision is None else f"{fmt(100 * precision, 1)} %",
                         fmt(run["asked"]), fmt(run["random"]), fmt(run["best"]),
                         fmt(run["gain"]), fmt(run["regret"]), q.get("unit", "")))
        self._fill(self.questions, rows)

    @Slot()
    def _on_save_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the fitted cost model", "cost.toml",
                                              "TOML (*.toml)")
        if path:
            self.save_cost_model(path)

    def save_cost_model(self, path: str | Path) -> None:
        from llgui.sim.human import fitted_cost_toml
        from llgui.utils.atomic import write_atomic

        try:
            write_atomic(path, fitted_cost_toml(self.report["human"]))
        except (OSError, ValueError, TypeError) as error:
            self.status.setText(f"Not saved: {error}")
            return
        self.status.setText(f"Saved the fitted cost model to {path} (a [cost] table: paste it "
                            f"into a bundle).")

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.jobs.is_running(KEY):
            self.jobs.cancel(KEY)
        super().closeEvent(event)


def _text(value) -> str:
    return value if isinstance(value, str) else repr(value)
