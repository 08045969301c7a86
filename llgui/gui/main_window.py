"""The main window: documents dock, workbench / across-time / detection tabs, status bar.

The window wires views to the session state and starts background jobs; it computes nothing
itself. Bundles opened from the menu, by drag and drop or on the command line load on a
worker (progress and Cancel in the status bar; the window stays live however big the bundle),
and whole-collection scoring runs on workers too.
"""
from __future__ import annotations

import gc

import sys
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView, QDockWidget, QFileDialog, QHeaderView, QLabel, QMainWindow, QMessageBox,
    QProgressBar, QTableView, QTabWidget, QToolButton, QWidget,
)

from llgui.core.errors import LoadError
from llgui.gui.documents_dock import fit_documents_dock
from llgui.gui.table_models import SORT_ROLE, DocumentsModel
from llgui.gui.state import SessionState, read_session
from llgui.gui.workers import JobRunner


BACKGROUND_BYTES = 32 * 1024
"""A bundle file bigger than this (a few hundred documents) is loaded on a worker."""


OPEN_HOLD_MS = 40
"""At most this long, the jobs of newly opened bundles wait for the paint that shows them."""

LOAD_HUSH_MS = 80
"""How long a background load waits for the window to draw its progress bar and Cancel."""


def _file_size(path) -> int:
    try:
        return Path(path).stat().st_size
    except (OSError, ValueError):
        return 0


class MainWindow(QMainWindow):
    def __init__(self, use_session: bool = True, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("llgui — lifelong-learning evaluation")
        self.setAcceptDrops(True)
        self.use_session = use_session
        self.state = SessionState(self)
        self.jobs = JobRunner(self)
        self.jobs.hold()   # released after the first paint (or shortly after start, unseen)
        QTimer.singleShot(1500, self.jobs.release)
        self.errors: list[str] = []          # every error shown, newest last (for tests, logs)
        self._error_box: QMessageBox | None = None

        self._build_documents_dock()
        self._build_tabs()
        self._build_status_bar()
        self._build_menus()

        self.state.bundles_changed.connect(self._on_state_bundles_changed)
        self.state.selection_changed.connect(self._on_state_selection_changed)
        self.state.metric_changed.connect(self._on_state_metric_changed)
        self.state.cost_model_changed.connect(self._on_state_cost_model_changed)
        self.jobs.result_ready.connect(self._on_jobs_result_ready)
        self.jobs.failed.connect(self._on_jobs_failed)
        self.jobs.progressed.connect(self._on_jobs_progressed)
        self.jobs.busy_changed.connect(self._on_jobs_busy_changed)
        self.jobs.cancelled.connect(self._on_jobs_cancelled)

    # -- building ---------------------------------------------------------------------------

    def _build_documents_dock(self) -> None:
        from llgui.gui.systems.compare_models import DocumentsComparisonModel   # issue 15

        self.documents_model = DocumentsComparisonModel(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.documents_model)
        proxy.setSortRole(SORT_ROLE)
        self.documents_proxy = proxy
        view = QTableView()
        view.setModel(proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # file order until the user sorts
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.verticalHeader().setVisible(False)
        # columns fit a sample of rows, once per change of bundles: measuring every document
        # on every change (ResizeToContents) froze the window on 10^5 documents
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        view.horizontalHeader().setResizeContentsPrecision(32)
        view.horizontalHeader().setStretchLastSection(True)
        view.setAlternatingRowColors(True)
        view.setMinimumWidth(250)
        view.selectionModel().currentRowChanged.connect(self._on_documents_current_changed)
        self.documents_view = view
        dock = QDockWidget("Documents", self)
        dock.setObjectName("documents_dock")
        dock.setWidget(view)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self._documents_closed = False   # closed by the user: kept closed on new bundles
        toggle = dock.toggleViewAction()
        toggle.setText("&Documents panel")
        toggle.setShortcut("Ctrl+Shift+D")
        toggle.setStatusTip("show or hide the Documents panel")
        toggle.triggered.connect(lambda on: setattr(self, "_documents_closed", not on))
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.documents_dock = dock
        self._docks_sized = False

    def _build_tabs(self) -> None:
        from llgui.gui.workbench.tab import Workbench

        self.tabs = QTabWidget()
        self.workbench = Workbench(self.state, self.jobs, self)
        self.tabs.addTab(self.workbench, "Workbench")
        from llgui.gui.across_time.tab import AcrossTimeTab
        from llgui.gui.detection.tab import DetectionTab

        self.time_tab = AcrossTimeTab(self.state, self.jobs, self)
        self.tabs.addTab(self.time_tab, "Across time")
        self.detection_tab = DetectionTab(self.state, self.jobs, self)
        self.tabs.addTab(self.detection_tab, "Detection")
        from llgui.gui.systems.tab import SystemsView

        self.systems_view = SystemsView(self.state, self, jobs=self.jobs)
        self.tabs.addTab(self.systems_view, "Systems")
        self._pending_campaign: str | None = None
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.setCentralWidget(self.tabs)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.signature_label = _SignatureLabel(lambda: self._on_status_message(
            self.statusBar().currentMessage()))
        self.signature_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.job_label = QLabel("")
        self.cancel_load_button = QToolButton()
        self.cancel_load_button.setText("Cancel")
        self.cancel_load_button.setToolTip("stop opening the bundle (Esc)")
        self.cancel_load_button.clicked.connect(self.cancel_load)
        self.cancel_load_button.setVisible(False)
        bar.addPermanentWidget(self.job_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_load_button)
        bar.addWidget(self.signature_label, 1)
        # a temporary message takes the signature's place while it is shown (Qt hides normal
        # widgets only when they were visible at that moment: a message shown before the
        # first paint was drawn over the signature)
        bar.messageChanged.connect(self._on_status_message)
        # while a message hides it, the signature's tokenizer stays in sight (a picture of a
        # Japanese bundle says which tokenizer its BLEU used, issue 35)
        self.signature_short = QLabel("")
        self.signature_short.setVisible(False)
        bar.addPermanentWidget(self.signature_short)

    def _on_status_message(self, message: str) -> None:
        self.signature_label.setVisible(not message)
        short = ""
        if message:
            name, _, signature = self.signature_label.text().partition(": ")
            short = " ".join(f"{name} {part}" for part in signature.split("|")
                             if part.startswith("tok:"))
        self.signature_short.setText(short)
        self.signature_short.setToolTip(self.signature_label.text())
        self.signature_short.setVisible(bool(short))

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

    # -- opening ----------------------------------------------------------------------------

    def open_bundles(self, paths, select_doc: str | None = None, step: int | None = None,
                     tab: str | None = None, metric: str | None = None,
                     background: bool | None = None,
                     then: Callable[[], None] | None = None) -> bool:
        """Load bundles; on any problem show it and keep everything already loaded.

        `background`: load on a worker with progress and Cancel; the rest of the opening
        happens when it arrives, and the return value only says the load started. Otherwise
        load here and say whether every bundle loaded. None (the default) loads in the
        background when a bundle file is big (hundreds of documents or more), here when all
        are small, so the first paint already shows them. `then()` is called once the
        bundles are open (at once, or when a background load arrives)."""
        from llgui.io.open_job import open_bundles

        options = dict(select_doc=select_doc, step=step, tab=tab, metric=metric)
        if background is None:
            background = any(_file_size(p) > BACKGROUND_BYTES for p in paths)
        if background:
            self._pending_open = options
            self._pending_then = then
            self.cancel_load_button.setVisible(True)
            # the load waits at its first checkpoints while the progress bar and the Cancel
            # button are drawn (its parser would halve the event loop's speed)
            self.jobs.hush(LOAD_HUSH_MS)
            self.jobs.submit("load", open_bundles, [str(p) for p in paths], urgent=True,
                             background=True)
            return True
        done = self._finish_open(open_bundles([str(p) for p in paths]), **options)
        if then is not None:
            then()
        return done

    def cancel_load(self) -> None:
        """Stop opening bundles: nothing of the cancelled load is shown."""
        self.jobs.cancel("load")
        self.cancel_load_button.setVisible(False)

    def _finish_open(self, opened, select_doc: str | None = None, step: int | None = None,
                     tab: str | None = None, metric: str | None = None) -> bool:
        paths, loaded, problems = opened.paths, list(opened.bundles), list(opened.problems)
        # The loaded bundles live as long as the window: out of the collector's way. Without
        # this, every full collection re-scans them (about 0.1 s for 1,000 documents), on
        # whichever thread allocates, the event loop's included. freeze() is O(1).
        gc.freeze()
        warnings = _font_messages(loaded) + [str(w) for b in loaded for w in b.warnings]
        if warnings:   # the load goes on; say what the numbers will not mean
            message = "; ".join(warnings[:3]) + (
                f" (and {len(warnings) - 3} more)" if len(warnings) > 3 else "")
            # once the window is shown: a message shown before hides the signature label
            # only until the window's first show() shows it again, under the message
            QTimer.singleShot(0, lambda: self.statusBar().showMessage(message, 30000))
        # what failed to open, for `--screenshot` to exit non-zero on
        self.open_problems = [str(p) for p in problems] or (
            [] if loaded or not paths else [f"{p}: nothing to open" for p in paths])
        if problems:
            title = "Could not open " + ", ".join(str(Path(p).name) for p in paths)
            self.show_error(title, problems)
            if not self.state.bundles and not loaded:
                # the empty workbench keeps the reason (the status message goes after 15 s)
                from llgui.gui.workbench.tab import OPEN_A_BUNDLE

                said = [str(p) for p in problems[:5]]
                more = f"\n… and {len(problems) - 5} more" if len(problems) > 5 else ""
                self.workbench.empty.setText(f"{title}:\n" + "\n".join(said) + more
                                             + "\n\n" + OPEN_A_BUNDLE)
        if not loaded:
            return False
        # the jobs the new bundles start (their scores, the first document's walkthrough)
        # wait for the paint that shows them: their imports and Python would otherwise
        # halve the speed of that paint (paintEvent releases them; a hidden window, which
        # never paints, after OPEN_HOLD_MS)
        if not self.jobs.holding:   # (at start-up the first paint of the window holds them)
            self.jobs.hold()
            QTimer.singleShot(OPEN_HOLD_MS, self.jobs.release)
        self.state.add_bundles(loaded)
        if metric:
            from llgui.core.metrics import metrics_for

            tasks = {b.task for b in loaded if metric in metrics_for(b.task)}
            if not tasks:
                self.show_error("Unknown metric", [f"--metric {metric}: no open bundle scores "
                                                   "it"])
            for task in tasks:
                self.state.set_metric(task, metric)
        self._select_initial(loaded, select_doc, step)
        if tab:
            self.show_tab(tab)
        return not problems

    def _select_initial(self, loaded, select_doc, step) -> None:
        # by index, never through a flat list of every document (10^5 of them)
        bundles = self.state.bundles
        target = None
        if select_doc:
            target = next(((i, select_doc) for i, b in enumerate(bundles)
                           if b.position(select_doc) >= 0), None)
            if target is None:
                self.show_error("No such document", [f"no document {select_doc!r} is open"])
        if target is None and self.state.document() is None:
            target = next(((i, b.documents[0].id) for i, b in enumerate(bundles)
                           if b.documents), None)
        if target is not None:
            self.state.select(*target, step=step or 0)

    def open_bundle_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open bundle", "",
                                                "llgui bundles (*.toml);;All files (*)")
        if paths:
            self.open_bundles(paths)

    def open_files_dialog(self) -> None:
        from llgui.gui.open_files import OpenFilesDialog

        dialog = OpenFilesDialog(self)
        if dialog.exec():
            self.open_loose_files(dialog.result_spec())

    def open_loose_files(self, spec: dict) -> bool:
        """Open a reference/hypothesis pair (MT text or RTTM) as a one-document bundle."""
        from llgui.io.loose import bundle_from_files

        try:
            bundle = bundle_from_files(**spec)
        except LoadError as error:
            self.show_error("Could not open the files", [str(p) for p in error.problems])
            return False
        self.state.add_bundles([bundle])
        self.state.select(self.state.bundles.index(bundle), bundle.documents[0].id)
        return True

    def open_demo(self) -> None:
        from llgui.gui.demo import demo_bundles, demo_campaign

        self.open_bundles(demo_bundles())
        if demo_campaign() is not None:
            self.open_campaign(demo_campaign(), show=False, defer=True)

    def open_campaign_dialog(self) -> None:
        """The campaign file and, optionally, a Dask scheduler's address (remembered in the
        session: `view["campaign_scheduler"]`)."""
        from llgui.gui.open_campaign import OpenCampaignDialog

        dialog = OpenCampaignDialog(self, getattr(self, "_campaign_path", None) or "",
                                    self.state.view.get("campaign_scheduler") or "")
        if dialog.exec() != OpenCampaignDialog.DialogCode.Accepted:
            return
        path, scheduler = dialog.result_spec()
        if scheduler:
            self.state.view["campaign_scheduler"] = scheduler
        else:
            self.state.view.pop("campaign_scheduler", None)
        if path:
            self.open_campaign(path, scheduler=scheduler)

    def open_campaign(self, path, show: bool = True, defer: bool = False,
                      scheduler: str | None = None) -> bool:
        """Load a campaign and score its cells on a worker (cached cells come back at once);
        problems are shown and the rest is scored, as `llgui campaign` does (on the Dask
        cluster at `scheduler` when given, else on this machine). `show` brings
        the Systems view forward when the scores arrive; `defer` waits until the Systems or
        Across-time tab is first shown (the demo: no scoring unless someone looks)."""
        if not Path(path).is_file():
            self.show_error("Could not open the campaign", [f"{path}: file not found"])
            return False
        self._campaign_show = show
        if defer and self.tabs.currentWidget() not in (self.systems_view, self.time_tab):
            self._pending_campaign = str(path)
            self.systems_view.set_progress_text(f"{Path(path).name}: scored when this tab "
                                                "or Across time is shown")
            return True
        self._pending_campaign = None
        where = f"the Dask cluster at {scheduler}" if scheduler else "a worker"
        self.systems_view.set_progress_text(f"{Path(path).name}: loading and scoring the "
                                            f"cells on {where}…")
        self._campaign_path = str(path)   # the Systems view's paired test reads it again
        from llgui.gui.jobs.campaign import campaign_job

        self.jobs.submit("campaign", campaign_job, str(path), scheduler)
        return True

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt's name
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        from llgui.io.campaign import is_campaign_file

        campaigns = [p for p in paths if p.endswith(".toml") and is_campaign_file(p)]
        bundles = [p for p in paths if p.endswith(".toml") and p not in campaigns]
        if campaigns:   # one campaign at a time: the last dropped
            self.open_campaign(campaigns[-1], scheduler=self.state.view.get(
                "campaign_scheduler"))
        if bundles:
            self.open_bundles(bundles)
        elif paths and not campaigns:
            self.show_error("Not a bundle", [f"{p}: drop a bundle (*.toml), or use File › Open "
                                             "files… for a reference and a hypothesis"
                                             for p in paths])

    # -- errors -----------------------------------------------------------------------------

    def show_error(self, title: str, lines: list[str]) -> None:
        """Tell the user what is wrong, naming file and line; never modal, never fatal."""
        self.errors.extend(lines)
        shown = lines[:30] + ([f"… and {len(lines) - 30} more"] if len(lines) > 30 else [])
        from llgui.gui.fonts import prepare

        prepare([title, *shown])   # a file or id in any script, drawn (not boxes) in the box
        self.statusBar().showMessage(f"{title}: {lines[0]}" if lines else title, 15000)
        if self._error_box is not None:
            self._error_box.close()
        box = QMessageBox(QMessageBox.Icon.Warning, title, "\n".join(shown),
                          QMessageBox.StandardButton.Close, self)
        box.setInformativeText("Nothing already open was changed.")
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self._error_box = box

    # -- state reactions --------------------------------------------------------------------

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        self.documents_model.set_bundles(self.state.bundles)
        columns = self.documents_model.COLUMNS
        bundles = self.state.bundles
        # one task open: its column says nothing and takes the room S_pen and gain need
        self.documents_view.setColumnHidden(columns.index("task"),
                                            len({b.task for b in bundles}) <= 1)
        # two systems on the same documents (issue 23 item 15): a system column tells their
        # rows apart, and Δ S_pen takes the room of steps and gain (in the tooltips)
        comparing = _comparing(bundles)
        # (bundles of different documents, as the demo's MT, diarization and detection: the
        # document says which, and the task column what)
        self.documents_view.setColumnHidden(columns.index("system"), not comparing)
        for name in ("steps", "gain"):
            self.documents_view.setColumnHidden(columns.index(name), comparing)
        self.documents_view.setColumnHidden(len(columns) - 1, not comparing)   # Δ S_pen
        # comparing: Δ S_pen and S_pen beside the system, where a 1366-px panel shows them
        header = self.documents_view.horizontalHeader()
        # one system: its scores next to the document too (at 1366 px a fifth of the window
        # showed the id, time and steps, the scores off to the right, issue 35)
        order = (["document", "system", columns[-1], "S_pen", "S_base"] if comparing
                 else ["document", "S_pen", "S_base", "gain"]
                 + [c for c in columns if c not in ("document", "S_pen", "S_base", "gain")])
        for place, name in enumerate(order):
            header.moveSection(header.visualIndex(columns.index(name)), place)
        self.documents_view.resizeColumnsToContents()
        self._cap_system_column()
        # a detection-only bundle has no documents: no empty panel taking a sixth of the
        # window; a panel the user closed stays closed (View › Documents brings it back)
        has_documents = not bundles or any(b.documents for b in bundles)
        self.documents_dock.setVisible(has_documents and not self._documents_closed)
        fit_documents_dock(self)
        names = [b.name or Path(b.path or "").stem for b in bundles]
        self.setWindowTitle(f"llgui — {', '.join(names)}" if names else "llgui")
        for i in range(len(self.state.bundles)):
            self._submit_collection(i)

    def _submit_collection(self, index: int) -> None:
        """Replay every document of bundle `index` on a worker (documents dock, aggregates)."""
        bundle = self.state.bundles[index]
        if not bundle.documents:   # a detection bundle of score files only: the Detection tab
            return
        metric = self.state.metric(bundle.task)
        if metric is None:
            return
        from llgui.gui.jobs.collection import collection_job
        from llgui.gui.jobs.workbench import metric_and_mode, track_metric

        # a detection system is replayed under a metric it has a penalised form of (err,
        # min_dcf, act_dcf), even when the tab shows EER
        name, mode = metric_and_mode(track_metric(bundle, metric))
        self.documents_model.set_result(index, None)
        self.jobs.submit(f"collection:{index}", collection_job, bundle, name,
                         self.state.cost_model(index), mode, background=True)

    @Slot()
    def _on_state_selection_changed(self) -> None:
        b, doc = self.state.selection.bundle, self.state.selection.doc
        row = self.documents_model.row_of(b, doc) if doc else -1
        if row >= 0:
            proxy_index = self.documents_proxy.mapFromSource(self.documents_model.index(row, 0))
            if self.documents_view.currentIndex().row() != proxy_index.row():
                self.documents_view.setCurrentIndex(proxy_index)

    @Slot(str, str)
    def _on_state_metric_changed(self, task: str, metric: str) -> None:
        for i, b in enumerate(self.state.bundles):
            if b.task == task:
                self._submit_collection(i)

    @Slot(int)
    def _on_state_cost_model_changed(self, index: int) -> None:
        self._submit_collection(index)

    def _on_documents_current_changed(self, current, _previous) -> None:
        if not current.isValid():
            return
        row = self.documents_proxy.mapToSource(current).row()
        b, doc = self.documents_model.key(row)
        if (b, doc) != (self.state.selection.bundle, self.state.selection.doc):
            self.state.select(b, doc)

    # -- jobs -------------------------------------------------------------------------------

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result: object) -> None:
        if key == "export":
            self.statusBar().showMessage(f"Exported {result}", 10000)
        if key == "campaign":
            self._on_campaign_scored(result)
        if key == "load":
            self.cancel_load_button.setVisible(False)
            self._finish_open(result, **getattr(self, "_pending_open", {}))
            then, self._pending_then = getattr(self, "_pending_then", None), None
            if then is not None:
                then()
        if key.startswith("collection:"):
            index = int(key.split(":")[1])
            if index < len(self.state.bundles):
                self.documents_model.set_result(index, result)
                self.workbench.show_collection(index, result)
                self._fit_documents_dock()

    def _cap_system_column(self) -> None:
        """The system column at most 6 ems wide (the whole name is in its tooltip); the
        document column at most 7, its long ids cut in the middle (WMT24's
        "test-en-news_brisbanetimes.com.au.228963" hid every score column at 1366, issue 35)."""
        view = self.documents_view
        system = self.documents_model.COLUMNS.index("system")
        view.setColumnWidth(system, min(view.columnWidth(system),
                                        6 * self.fontMetrics().height()))
        document = self.documents_model.COLUMNS.index("document")
        view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        view.setWordWrap(False)   # one line, cut in the middle (wrapped, it was two halves)
        view.setColumnWidth(document, min(view.columnWidth(document),
                                          7 * self.fontMetrics().height()))

    def _fit_documents_dock(self) -> None:
        """Widen the Documents panel to its columns once the scores are in (S_base, S_pen
        and gain were cut off even at 1920x1080), up to a quarter of the window."""
        view = self.documents_view
        if self.documents_model.rowCount() > FIT_ROWS:
            return   # big bundles keep the sampled sizing of their first paint (no 100-ms fit)
        header = view.horizontalHeader()
        view.resizeColumnsToContents()   # a sampled fit (ResizeContentsPrecision)
        self._cap_system_column()
        wanted = sum(header.sectionSize(k) for k in range(header.count())
                     if not header.isSectionHidden(k))
        wanted += view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth() + 4
        # a laptop's 1366 px keep the workbench's two columns usable: a fifth there
        share = 5 if self.width() < 1500 else 4
        width = min(wanted, max(DOCUMENTS_FIT_PX, self.width() // share))
        if width > self.documents_dock.width():
            self.resizeDocks([self.documents_dock], [width], Qt.Orientation.Horizontal)

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        fit_documents_dock(self)   # no empty panel beside a campaign's tables (gui2)
        if self._pending_campaign and self.tabs.currentWidget() in (self.systems_view,
                                                                    self.time_tab):
            self.open_campaign(self._pending_campaign, show=self._campaign_show)

    def _on_campaign_scored(self, result) -> None:
        report = result.report
        from llgui.gui.fonts import prepare, strings_of

        font_note = prepare(strings_of(report)).message   # its names, before they are drawn
        if font_note:
            self.statusBar().showMessage(f"{report.get('campaign', 'campaign')}: {font_note}",
                                         30000)
        self.systems_view.set_campaign(report, result.tables,
                                       path=getattr(self, "_campaign_path", None))
        self.time_tab.set_campaign(result.tables)
        if getattr(self, "_campaign_path", None):   # flips between versions (section 1.9)
            self.time_tab.flips.load(self._campaign_path)
        if report["problems"]:
            self.show_error(f"Problems in {report['campaign']} (the rest was scored)",
                            report["problems"])
        if getattr(self, "_campaign_show", True):
            self.show_tab("systems")

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        self.errors.append(f"{key}: {message}")
        if key == "load":
            self.cancel_load_button.setVisible(False)
        if key == "walk":  # ("walk:METRIC", a metric shown meanwhile, is not the view's)
            self.workbench.step_label.setText(f"could not replay the document: {message}")
        self.statusBar().showMessage(f"Background job failed ({key}): {message}", 20000)

    @Slot(str)
    def _on_jobs_cancelled(self, key: str) -> None:
        if key == "load":
            self.cancel_load_button.setVisible(False)
        self.statusBar().showMessage(f"Cancelled: {key}", 5000)

    @Slot(str, float)
    def _on_jobs_progressed(self, key: str, fraction: float) -> None:
        self.progress.setVisible(True)
        self._set_progress(int(1000 * fraction))
        self.job_label.setText(key.split(":")[0])

    def _set_progress(self, value: int) -> None:
        # QProgressBar.setValue repaints at once, which flushes every pending paint of the
        # window in the middle of a slot: painted with the next frame instead
        self.progress.setUpdatesEnabled(False)
        self.progress.setValue(value)
        self.progress.setUpdatesEnabled(True)
        self.progress.update()

    @Slot(bool)
    def _on_jobs_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        if busy:
            self._set_progress(0)
        else:
            self.job_label.setText("")

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

    # -- navigation helpers -----------------------------------------------------------------

    def step_by(self, delta: int) -> None:
        self.state.set_step(self.state.step + delta)

    def show_tab(self, name: str) -> None:
        widget = {"workbench": self.workbench, "time": self.time_tab,
                  "detection": self.detection_tab, "systems": self.systems_view}.get(name)
        if widget is not None:
            self.tabs.setCurrentWidget(widget)

    # -- export -----------------------------------------------------------------------------

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

    # -- session ----------------------------------------------------------------------------

    def restore_session(self) -> None:
        """Reopen the bundles, document, step, cost models and policy of the last session."""
        if not self.use_session:
            return
        data, problem = read_session()
        if problem is not None:
            # said once: in the status bar, and on stderr for whoever started us from a shell
            self.statusBar().showMessage(problem, 30000)
            print(f"llgui: {problem}", file=sys.stderr)
            return
        if data is None:
            return
        paths = [p for p in data.get("bundles", []) if p and Path(p).exists()]
        if not paths:
            return
        self.apply_session(data, paths)

    def apply_session(self, data: dict, paths: list[str]) -> None:
        # the rest waits for the bundles (a big one loads on a worker)
        self.open_bundles(paths, then=lambda: self._apply_session_state(data))

    def _apply_session_state(self, data: dict) -> None:
        from llgui.core.cost import CostModel
        from llgui.core.across_time.policy import Policy

        for task, metric in (data.get("metrics") or {}).items():
            self.state.set_metric(task, metric)
        for i, b in enumerate(self.state.bundles):
            saved = (data.get("cost_models") or {}).get(b.path)
            if saved:
                try:
                    self.state.cost_models[i] = CostModel.from_dict(saved)
                except (TypeError, ValueError) as error:
                    self.statusBar().showMessage(
                        f"Session file: the saved cost model of {b.path} was not restored "
                        f"({error}); the bundle's own is used", 15000)
                self.state.cost_model_changed.emit(i)
        policy = data.get("policy")
        if isinstance(policy, dict):
            try:
                name = policy.get("name", "custom")
                self.state._apply_policy(Policy.from_dict(policy), name)
            except (TypeError, ValueError, KeyError) as error:
                self.statusBar().showMessage(f"Session file: the saved policy was not "
                                             f"restored ({error}); policy B is used", 15000)
        selection = data.get("selection") or {}
        for i, b in enumerate(self.state.bundles):
            if b.path == selection.get("bundle") and selection.get("doc"):
                try:
                    b.document(selection["doc"])
                except KeyError:
                    break
                self.state.select(i, selection["doc"], int(data.get("step") or 0))
        self.state.view.update(data.get("view") or {})

    def save_session(self) -> None:
        if self.use_session and (self.state.bundles or self.state.view.get(
                "campaign_scheduler")):
            try:
                self.state.save()
            except OSError as error:
                self.statusBar().showMessage(f"Could not save the session: {error}", 10000)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.save_session()
        self.jobs.shutdown(1500)
        super().closeEvent(event)

    # -- offscreen rendering ----------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._docks_sized:
            self._docks_sized = True
            self.resizeDocks([self.documents_dock], [max(270, self.width() // 6)],
                             Qt.Orientation.Horizontal)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if self.state.bundles:
            QTimer.singleShot(0, self.jobs.release)
        hook = getattr(self, "_first_paint_hook", None)
        if hook is not None and self.state.bundles:
            self._first_paint_hook = None
            QTimer.singleShot(0, hook)

    def on_first_loaded_paint(self, callback: Callable[[], None]) -> None:
        """Call `callback` after the first paint that shows loaded bundles (benchmark gate 5)."""
        self._first_paint_hook = callback
        self.update()

    def when_settled(self, callback: Callable[[], None], timeout_ms: int = 60000) -> None:
        """Call `callback` once the window has loaded, no background job is running and the
        workbench shows the metric it was asked for (or after `timeout_ms` at the latest)."""
        import time

        deadline = time.monotonic() + timeout_ms / 1000.0
        quiet = {"ticks": 0}

        def poll() -> None:
            if time.monotonic() > deadline:
                callback()
                return
            busy = self.jobs.busy or not self.workbench.settled()
            quiet["ticks"] = 0 if busy else quiet["ticks"] + 1
            if quiet["ticks"] >= 3:
                callback()
            else:
                QTimer.singleShot(100, poll)

        QTimer.singleShot(200, poll)

    def save_screenshot(self, path: Path) -> bool:
        from PySide6.QtWidgets import QApplication

        QApplication.processEvents()
        image = self.grab()
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return bool(image.save(str(path)))


def _comparing(bundles) -> bool:
    """Two open bundles of one task share a document: two systems on the same documents."""
    seen: dict[tuple[str, str], int] = {}
    for k, bundle in enumerate(bundles):
        for doc in bundle.documents[:FIT_ROWS]:
            if seen.setdefault((bundle.task, doc.id), k) != k:
                return True
    return False


FIT_ROWS = 200
"""Documents up to which the panel refits its columns when scores arrive (on the GUI thread:
a fit measures every column's cells)."""
DOCUMENTS_FIT_PX = 305
"""The Documents panel widens to its scores up to this (or a fifth of the window): at 1366 px
270 cut the gain column (gui2, item 4)."""


class _SignatureLabel(QLabel):
    """The status bar's metric signature; `changed()` hears each new text (the short form
    beside a message follows it)."""

    def __init__(self, changed: Callable[[], None]):
        super().__init__("")
        self._changed = changed

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self._changed()


def _font_messages(bundles) -> list[str]:
    """Once per bundle, before anything of it is drawn: the characters no installed font
    draws, the bundled fallback font loaded for them, the fix (`llgui.gui.fonts`)."""
    from llgui.gui.fonts import check_bundle

    out = []
    for bundle in bundles:
        check, first = check_bundle(bundle)
        if first and check.message:
            out.append(f"{bundle.name}: {check.message.rstrip('.')}")
    return out
