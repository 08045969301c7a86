"""Tools › Simulate…: drive a system with simulated humans, on a worker, from the window.

`SimulateDialog` gathers the settings of `llgui simulate` (bundle, systems, oracles, budget,
seed, timeout, output folder), runs `llgui.sim.run.run_simulation` on the window's `JobRunner`
under the key "simulate" (progress in the dialog, Cancel asks the job to stop, and the job
ends the system's process group), and when the run ends opens the new bundle(s) (loaded on
the worker too) through the callback it was given; with several runs it shows the panel of evaluated oracles. The dialog
never waits on the job: the window stays live.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout,
    QLabel, QLineEdit, QPlainTextEdit, QProgressBar, QPushButton, QSpinBox, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from llgui.gui.jobs.simulate import simulate_and_load
from llgui.gui.workers import JobRunner

KEY = "simulate"
BASE_ORACLES = ("allies", "worst-first", "in-order", "random")
PREFIX_ORACLES = ("prefix", "prefix-char")
"""Interactive-predictive MT (a system speaking protocol 1.2, e.g. mt_complete)."""


class SimulateDialog(QDialog):
    """Settings, Run / Cancel, progress, and the panel table of the finished run."""

    run_finished = Signal(object)     # llgui.sim.run.Simulation

    def __init__(self, jobs: JobRunner, add_bundles: Callable[[list], object] | None = None,
                 bundle: str | Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Simulate a human expert")
        self.jobs = jobs
        self._add_bundles = add_bundles
        self.simulation = None
        self.error = ""

        form = QFormLayout()
        self.bundle_edit = QLineEdit(str(bundle or ""))
        form.addRow("Bundle", self._with_browse(self.bundle_edit, self._on_browse_bundle))
        self.systems_edit = QPlainTextEdit("mt_memory")
        self.systems_edit.setToolTip("one system a line: a reference system (static, mt_memory, "
                                     "diar_clusters, diar_audio, mt_complete) or "
                                     "NAME=COMMAND")
        self.systems_edit.setFixedHeight(70)
        form.addRow("Systems", self.systems_edit)
        oracles = QHBoxLayout()
        self.oracle_boxes = {}
        for name in BASE_ORACLES + PREFIX_ORACLES:
            box = QCheckBox(name)
            box.setChecked(name == "allies")
            self.oracle_boxes[name] = box
            oracles.addWidget(box)
        self.noisy_box = QCheckBox("noisy, P =")
        self.noisy_p = QDoubleSpinBox()
        self.noisy_p.setRange(0.0, 1.0)
        self.noisy_p.setSingleStep(0.05)
        self.noisy_p.setValue(0.2)
        oracles.addWidget(self.noisy_box)
        oracles.addWidget(self.noisy_p)
        form.addRow("Oracles", self._row(oracles))
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0.0, 1e9)
        self.budget.setDecimals(1)
        self.budget.setSpecialValueText("default (60 % of the reference words; 60 s)")
        form.addRow("Budget per document", self.budget)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        form.addRow("Seed", self.seed)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(0.5, 3600.0)
        self.timeout.setValue(30.0)
        self.timeout.setSuffix(" s")
        form.addRow("Timeout per reply", self.timeout)
        self.startup_timeout = QDoubleSpinBox()   # issue 32: a slow start-up of its own
        self.startup_timeout.setRange(0.0, 3600.0)
        self.startup_timeout.setSuffix(" s")
        self.startup_timeout.setSpecialValueText("as per reply")
        self.startup_timeout.setToolTip("seconds the system may take to start and send its "
                                        "hello (loading a model); 0: the timeout per reply")
        form.addRow("Start-up timeout", self.startup_timeout)
        default_out = Path.home() / "llgui-simulations" / time.strftime("%Y%m%d-%H%M%S")
        self.out_edit = QLineEdit(str(default_out))
        form.addRow("Output folder", self._with_browse(self.out_edit, self._on_browse_out))

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.panel_table = QTableWidget(0, 0)
        self.panel_table.setVisible(False)
        buttons = QDialogButtonBox()
        self.run_button = buttons.addButton("Run", QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton("Cancel run",
                                               QDialogButtonBox.ButtonRole.ActionRole)
        self.cancel_button.setEnabled(False)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.run_button.clicked.connect(self._on_run_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        close.clicked.connect(self.close)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.panel_table)
        layout.addWidget(buttons)

        self.jobs.result_ready.connect(self._on_jobs_result_ready)
        self.jobs.failed.connect(self._on_jobs_failed)
        self.jobs.progressed.connect(self._on_jobs_progressed)
        self.jobs.cancelled.connect(self._on_jobs_cancelled)

    # -- layout helpers -----------------------------------------------------------------------
    @staticmethod
    def _row(layout) -> QWidget:
        widget = QWidget()
        layout.setContentsMargins(0, 0, 0, 0)
        widget.setLayout(layout)
        return widget

    def _with_browse(self, edit: QLineEdit, slot) -> QWidget:
        row = QHBoxLayout()
        row.addWidget(edit)
        button = QPushButton("Browse…")
        button.clicked.connect(slot)
        row.addWidget(button)
        return self._row(row)

    @Slot()
    def _on_browse_bundle(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Bundle", "", "Bundles (*.toml)")
        if path:
            self.bundle_edit.setText(path)

    @Slot()
    def _on_browse_out(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Output folder")
        if path:
            self.out_edit.setText(path)

    # -- settings -----------------------------------------------------------------------------
    def systems(self) -> list[str]:
        return [line.strip() for line in self.systems_edit.toPlainText().splitlines()
                if line.strip()]

    def oracles(self) -> list[str]:
        chosen = [name for name, box in self.oracle_boxes.items() if box.isChecked()]
        if self.noisy_box.isChecked():
            chosen.append(f"noisy:{self.noisy_p.value():g}")
        return chosen

    # -- running ------------------------------------------------------------------------------
    @Slot()
    def _on_run_clicked(self) -> None:
        bundle, out = self.bundle_edit.text().strip(), self.out_edit.text().strip()
        problems = []
        if not bundle or not Path(bundle).is_file():
            problems.append("choose a bundle file")
        if not self.systems():
            problems.append("name at least one system")
        if not self.oracles():
            problems.append("choose at least one oracle")
        if not out:
            problems.append("choose an output folder")
        if problems:
            self.status.setText("; ".join(problems).capitalize() + ".")
            return
        self.simulation, self.error = None, ""
        self.panel_table.setVisible(False)
        self.progress.setValue(0)
        self.status.setText("Running…")
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.jobs.submit(KEY, simulate_and_load, bundle, self.systems(), self.oracles(), out,
                         budget=self.budget.value() or None, seed=self.seed.value(),
                         timeout=self.timeout.value(),
                         startup_timeout=self.startup_timeout.value() or None)

    @Slot()
    def _on_cancel_clicked(self) -> None:
        self.jobs.cancel(KEY)

    def _idle(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    @Slot(str, float)
    def _on_jobs_progressed(self, key: str, fraction: float) -> None:
        if key == KEY:
            self.progress.setValue(int(1000 * fraction))

    @Slot(str)
    def _on_jobs_cancelled(self, key: str) -> None:
        if key == KEY:
            self.status.setText("Cancelled: the system was stopped; the steps done so far are "
                                "in the output folder.")
            self._idle()

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        if key == KEY:
            self.error = message
            self.status.setText(f"The run failed: {message}")
            self._idle()

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result: object) -> None:
        if key != KEY:
            return
        simulation, loaded = result
        self.simulation = simulation
        self.progress.setValue(1000)
        self._idle()
        folders = [o.out for o in simulation.outcomes if o.result is not None]
        self.status.setText(f"Done: {len(folders)} run(s) written to {simulation.out}.")
        if simulation.panel is not None:
            self._show_panel(simulation.panel)
        if self._add_bundles is not None and loaded:
            self._add_bundles(loaded)
        self.run_finished.emit(simulation)

    def _show_panel(self, panel) -> None:
        from llgui.core.reports.oracle_panel import panel_rows
        from llgui.io.export import fmt

        header, rows = panel_rows(panel)
        table = self.panel_table
        table.clear()
        table.setColumnCount(len(header))
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels(header)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                text = fmt(value) if isinstance(value, float) or value is None else str(value)
                table.setItem(r, c, QTableWidgetItem(text))
        table.resizeColumnsToContents()
        table.setVisible(True)
        if panel.notes:   # what the panel combines; where its figures disagree (issue 32)
            table.setToolTip("\n".join(panel.notes))
            disagree = [n for n in panel.notes[1:]]
            if disagree:
                self.status.setText(self.status.text() + " " + " ".join(disagree))

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.jobs.is_running(KEY):
            self.jobs.cancel(KEY)
        super().closeEvent(event)

