"""The main window's menu bar (File, Edit, View, Navigate, Session, Tools, Help) and the
actions behind its entries that open dialogs or export: the tables, scores and plots, the
simulation, live-session and human-vs-oracle dialogs. A mixin of `MainWindow`."""
from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox


class Menus:
    """The menus of `MainWindow` and the actions only they start."""

    def _action(self, menu, text: str, slot: Callable, shortcut=None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(file_menu, "&Open bundle…", self.open_bundle_dialog, QKeySequence.StandardKey.Open,
                     "open a bundle (*.toml) naming references, hypotheses and logs")
        self._action(file_menu, "Open &files…", self.open_files_dialog, "Ctrl+Shift+O",
                     "open a reference and a hypothesis file without a bundle")
        self._action(file_menu, "Open &campaign…", self.open_campaign_dialog, "Ctrl+Shift+C",
                     "open a campaign (*.toml): systems x model versions x test batches")
        self._action(file_menu, "Open the &demo", self.open_demo, None)
        file_menu.addSeparator()
        export = file_menu.addMenu("&Export")
        self._action(export, "Corrections table as &CSV…", lambda: self.export_table("csv"),
                     "Ctrl+E")
        self._action(export, "Corrections table as &JSON…", lambda: self.export_table("json"))
        self._action(export, "Bundle scores as JSON…", self.export_scores)
        self._action(export, "Current plot as &PNG…", lambda: self.export_plot("png"))
        self._action(export, "Current plot as &SVG…", lambda: self.export_plot("svg"))
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        edit = bar.addMenu("&Edit")
        undo = self.state.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.state.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        edit.addAction(undo)
        edit.addAction(redo)
        self.undo_action, self.redo_action = undo, redo

        view = bar.addMenu("&View")
        view.addAction(self.documents_dock.toggleViewAction())
        self.view_menu = view
        # a key per tab, wherever the focus is (Ctrl+Tab needed a click inside a tab first)
        view.addSeparator()
        for key, (name, text) in enumerate((("workbench", "&Workbench"),
                                            ("time", "&Across time"),
                                            ("detection", "&Detection"),
                                            ("systems", "&Systems")), 1):
            self._action(view, text, lambda _on=False, name=name: self.show_tab(name),
                         f"Ctrl+{key}")

        nav = bar.addMenu("&Navigate")
        # Arrow keys act on the workbench unless a text field has the focus (see Workbench).
        self._action(nav, "Previous step", lambda: self.step_by(-1), "Left")
        self._action(nav, "Next step", lambda: self.step_by(+1), "Right")
        self._action(nav, "First step (base)", lambda: self.state.set_step(0), "Home")
        self._action(nav, "Last step", lambda: self.state.set_step(self.state.n_steps()), "End")
        self._action(nav, "Previous document", lambda: self.state.move_document(-1), "PgUp")
        self._action(nav, "Next document", lambda: self.state.move_document(+1), "PgDown")

        session = bar.addMenu("&Session")
        self._action(session, "Start &live session…", self.show_live_session, None,
                     "answer a system's questions yourself: your effort is the cost")
        self._action(session, "&Human vs oracle…", self.show_effort_dialog, None,
                     "a live session's answers against the oracle's, the cost model fitted "
                     "to your effort, what each question was worth")

        tools = bar.addMenu("&Tools")
        self._action(tools, "&Verify current document with the reference libraries",
                     self.verify_current, "Ctrl+R",
                     "recompute every step with sacrebleu / pyannote.metrics on a worker")
        self._action(tools, "&Cancel background jobs", self.cancel_jobs, "Esc")
        self._action(tools, "&Simulate…", self.show_simulate_dialog, None,
                     "drive a system with a simulated human expert and open the run")

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&About llgui", self.show_about)

    def cancel_jobs(self) -> None:
        self.jobs.cancel_all()

    def show_simulate_dialog(self) -> None:
        """Tools › Simulate…: one dialog, kept, so a running simulation is never lost."""
        from llgui.gui.simulate_dialog import SimulateDialog

        if getattr(self, "simulate_dialog", None) is None:
            bundle = self.state.bundles[0].path if self.state.bundles else None
            self.simulate_dialog = SimulateDialog(self.jobs, self.state.add_bundles, bundle,
                                                  self)
        self.simulate_dialog.show()
        self.simulate_dialog.raise_()

    def show_live_session(self) -> None:
        """Session › Start live session…: one window, kept, so a session is never lost."""
        from llgui.gui.live.window import LiveSessionWindow

        if getattr(self, "live_window", None) is None:
            bundle = self.state.bundles[0].path if self.state.bundles else None
            self.live_window = LiveSessionWindow(self.jobs, self.state.add_bundles,
                                                 str(bundle) if bundle else None, self)
        self.live_window.show()
        self.live_window.raise_()

    def show_effort_dialog(self) -> None:
        """Session › Human vs oracle… (issue 34): one dialog, kept."""
        from llgui.gui.effort_dialog import EffortDialog

        if getattr(self, "effort_dialog", None) is None:
            window = getattr(self, "live_window", None)   # the last live session's folder
            live = window.out_edit.text().strip() if window is not None else None
            self.effort_dialog = EffortDialog(self.jobs, live or None, self)
        self.effort_dialog.show()
        self.effort_dialog.raise_()

    def verify_current(self) -> None:
        self.workbench.verify()

    def export_table(self, fmt: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export corrections", f"corrections.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            self.workbench.export_table(path, fmt)

    def export_scores(self) -> None:
        bundle = self.state.bundle()
        if bundle is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export bundle scores", "scores.json",
                                              "JSON (*.json)")
        if path:
            import dataclasses

            from llgui.gui.jobs.collection import export_scores_job

            # scored with the cost model on screen, on a worker (TER on a real corpus takes
            # seconds)
            edited = dataclasses.replace(bundle, cost=self.state.cost_model())
            self.jobs.submit("export", export_scores_job, edited, path)

    def export_plot(self, fmt: str) -> None:
        current = self.tabs.currentWidget()
        exporter = getattr(current, "export_plot", None)
        if exporter is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", f"plot.{fmt}",
                                              f"{fmt.upper()} (*.{fmt})")
        if path:
            exporter(path)

    def show_about(self) -> None:
        from llgui._version import __version__

        QMessageBox.about(self, "About llgui",
                          f"llgui {__version__}\nPenalised scores for human-assisted learning "
                          "(Prokopalo et al., LREC 2020), user policies across time, DET "
                          "curves.\nNumbers from sacrebleu, jiwer and pyannote.metrics.")
