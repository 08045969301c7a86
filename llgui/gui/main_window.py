"""The main window: documents dock, workbench / across-time / detection tabs, status bar.

The window wires views to the session state and starts background jobs; it computes nothing
itself. Bundles opened from the menu, by drag and drop or on the command line load on a
worker (progress and Cancel in the status bar; the window stays live however big the bundle),
and whole-collection scoring runs on workers too.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QDockWidget, QHeaderView, QLabel, QMainWindow, QMessageBox,
    QProgressBar, QTableView, QTabWidget, QToolButton, QWidget,
)

from llgui.gui.documents_dock import fit_documents_dock
from llgui.gui.table_models import SORT_ROLE, DocumentsModel
from llgui.gui.widgets.after_paint import after_paint, paint_later
from llgui.gui.widgets.column_fit import fit_columns
from llgui.gui.state import SessionState
from llgui.gui.window.menus import Menus
from llgui.gui.window.opening import Opening
from llgui.gui.window.session import SessionActions
from llgui.gui.workers import JobRunner, refusal


class MainWindow(Opening, Menus, SessionActions, QMainWindow):
    """The window; opening, the menus and the session are its mixins' (llgui.gui.window)."""

    def __init__(self, use_session: bool = True, parent: QWidget | None = None):
        super().__init__(parent)
        from llgui.gui.window.import_check import quicken

        quicken()   # (`llgui.gui.app` does it first; a window made elsewhere, a worker's
        # later imports of sacrebleu or pyannote, get it here)
        from llgui.gui.widgets import quick_style
        from llgui.utils.heap import keep_freed_memory

        quick_style.install()   # scroll bar grooves drawn once per look, then copied

        keep_freed_memory()   # a job's next run on the pages its last one had (before the
        # window's worker threads start: each would have its own arena)
        self.setWindowTitle("llgui — lifelong-learning evaluation")
        self.setAcceptDrops(True)
        self.use_session = use_session
        self.state = SessionState(self)
        self.jobs = JobRunner(self)
        self.jobs.hold()   # released after the first paint (or shortly after start, unseen)
        QTimer.singleShot(1500, self.jobs.release)
        self.errors: list[str] = []          # every error shown, newest last (for tests, logs)
        self.job_failures: list[str] = []    # the background jobs' among them (llgui's own)
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
        from llgui.gui.window.huge_pages import HeapCollapse

        # what the loads leave in memory, moved onto huge pages while the user reads
        self.huge_pages = HeapCollapse(self)
        for signal in (self.state.bundles_changed, self.state.selection_changed,
                       self.jobs.busy_changed):
            signal.connect(self.huge_pages.poke)
        from llgui.gui.window.warm_tabs import TabWarmer

        # the Across time tab made ahead of its first show, and what the Detection tab's
        # imports, while the user reads
        self.tab_warmer = TabWarmer(self, [self.time_tab, self.detection_tab])
        state = self.state
        for signal in (state.bundles_changed, state.selection_changed, state.step_changed,
                       state.metric_changed, state.cost_model_changed, state.policy_changed,
                       state.policy_dragging, self.jobs.busy_changed, self.jobs.result_ready,
                       self.tabs.currentChanged):
            signal.connect(self.tab_warmer.poke)

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
        from llgui.gui.widgets.cut_columns import EdgeColumns, ElideMiddle

        columns = self.documents_model.COLUMNS
        # numbers end in "…" (the view's mode: no delegate of Python on the many number
        # cells of every paint); a long id or system name is cut in the middle (WMT24's
        # "test-en-news_brisbanetimes.com.au.228963", issue 35)
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        middle = ElideMiddle(view)
        for name in ("document", "system"):
            view.setItemDelegateForColumn(columns.index(name), middle)
        # a number the panel's edge crosses ends in "…" (27.13 read "27.1" at 1366 px)
        self.documents_edge = EdgeColumns(view, [columns.index(n) for n in (
            "S_pen", "gain", "S_base", "steps")] + [len(columns) - 1])
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
        self._opening: str | None = None   # an opening's stage of paints (`_show_documents`)

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
        # the signature is the workbench document's metric's: said on that tab only (under
        # the Detection tab, "BLEU: nrefs:1|..." read as the DET's)
        tabs = getattr(self, "tabs", None)
        if tabs is not None and tabs.currentWidget() is not self.workbench:
            self.signature_label.setVisible(False)
            self.signature_short.setVisible(False)
            return
        self.signature_label.setVisible(not message)
        short = ""
        if message:
            name, _, signature = self.signature_label.text().partition(": ")
            short = " ".join(f"{name} {part}" for part in signature.split("|")
                             if part.startswith("tok:"))
        self.signature_short.setText(short)
        self.signature_short.setToolTip(self.signature_label.text())
        self.signature_short.setVisible(bool(short))

    # -- opening (the rest: llgui.gui.window.opening) ---------------------------------------

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
        box.show()   # (QDialog.open() would make it window-modal: keys no longer reached the
        # window behind it, which stayed inactive once the box closed)
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
        # showed the id, time and steps, the scores off to the right, issue 35); S_pen and
        # its gain first: a 1366-px panel beside a document with steps cut the gain in half
        # (then the steps, before the time: a panel whose columns did not fit showed the
        # time and left the steps, "13" or "0 (cut short)", past its edge, outsider helper-40)
        first = (["document", "system", columns[-1], "S_pen", "S_base"] if comparing
                 else ["document", "S_pen", "gain", "S_base", "steps"])
        order = first + [c for c in columns if c not in first]
        for place, name in enumerate(order):
            header.moveSection(header.visualIndex(columns.index(name)), place)
        if self._opening in ("window", "fit"):   # (an opening: once the rest of the window
            self._opening = "fit"                  # has painted, `_show_documents`)
        else:
            self._fit_documents_columns()
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
            # the window's first paint of the bundles on a turn of the event loop of its own:
            # after the models are filled and laid out (27 ms with 1,000 documents), painting
            # them (about 40 ms) in the same turn held the event loop for 80-110 ms (gate 9)
            # and the Documents panel on a turn after that: its columns fitted and its cells
            # drawn, 30 ms with 1,000 documents, were the rest of that paint's 40-50 ms
            self._opening = "window"
            self.documents_view.setUpdatesEnabled(False)
            try:
                with paint_later(self):
                    self._finish_open(result, **getattr(self, "_pending_open", {}))
            finally:   # (the panel comes back whatever the opening did)
                after_paint(self, self._show_documents)
            then, self._pending_then = getattr(self, "_pending_then", None), None
            if then is not None:
                then()
        if key.startswith("collection:"):
            index = int(key.split(":")[1])
            if index < len(self.state.bundles):
                with paint_later(self):   # (the scores of 1,000 documents: 20 ms, then
                    # their paint 30 ms, in one turn before)
                    self.documents_model.set_result(index, result)
                    self.workbench.show_collection(index, result)
                    self._fit_documents_dock()

    def _fit_documents_columns(self) -> None:
        fit_columns(self.documents_view)   # (resizeColumnsToContents: 37-46 ms at 1,000)
        self._cap_system_column()
        self.documents_edge.sized()

    def _cap_system_column(self) -> None:
        """The system column at most 6 ems wide (the whole name is in its tooltip); the
        document column at most 7, its long ids cut in the middle (WMT24's
        "test-en-news_brisbanetimes.com.au.228963" hid every score column at 1366, issue 35)."""
        view = self.documents_view
        system = self.documents_model.COLUMNS.index("system")
        view.setColumnWidth(system, min(view.columnWidth(system),
                                        6 * self.fontMetrics().height()))
        document = self.documents_model.COLUMNS.index("document")
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
        fit_columns(view)   # a sampled fit (ResizeContentsPrecision)
        self._cap_system_column()
        wanted = sum(header.sectionSize(k) for k in range(header.count())
                     if not header.isSectionHidden(k))
        wanted += view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth() + 4
        # a laptop's 1366 px keep the workbench's two columns usable: a fifth there
        share = 5 if self.width() < 1500 else 4
        # 305 px keep the gain column whole; at 1366 px only while the document shown has no
        # steps (its cost model and steps column fold away: the room is there), else 270, so
        # the per-speaker table and the score bars keep theirs
        walk = getattr(self.workbench, "walkthrough", None)
        roomy = self.width() >= 1500 or (walk is not None and not walk.steps)
        width = min(wanted, max(DOCUMENTS_FIT_PX if roomy else 270, self.width() // share))
        if width > self.documents_dock.width():
            self.resizeDocks([self.documents_dock], [width], Qt.Orientation.Horizontal)
        self._fit_document_column(max(width, self.documents_dock.width())
                                  - (wanted - sum(header.sectionSize(k)
                                                  for k in range(header.count())
                                                  if not header.isSectionHidden(k))))
        self.documents_edge.sized()

    def _fit_document_column(self, room: int) -> None:
        """One system's columns up to its steps wider than `room` (the panel's pixels for
        columns): the document column gives up the difference (its id cut in the middle, at
        least 4 ems kept), so that the scores and the steps ("0 (cut short)") stay in sight
        rather than past the panel's edge; when even that would not bring them in (a
        1366-px window's 270-px panel), the ids keep their width. (Two systems compared keep
        their ids whole: the document and the system tell their rows apart.)"""
        view, columns = self.documents_view, self.documents_model.COLUMNS
        if not view.isColumnHidden(columns.index("system")):
            return
        header = view.horizontalHeader()
        last = header.visualIndex(columns.index("steps"))
        needed = sum(header.sectionSize(header.logicalIndex(v)) for v in range(last + 1)
                     if not header.isSectionHidden(header.logicalIndex(v)))
        document = columns.index("document")
        floor = 4 * self.fontMetrics().height()
        if needed <= room or needed - room > view.columnWidth(document) - floor:
            return   # (all in sight already, or not even then: the ids stay as they were)
        view.setColumnWidth(document, view.columnWidth(document) - (needed - room))

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        fit_documents_dock(self)   # no empty panel beside a campaign's tables
        self._on_status_message(self.statusBar().currentMessage())   # (the signature's tab)
        if self._pending_campaign and self.tabs.currentWidget() in (self.systems_view,
                                                                    self.time_tab):
            self.open_campaign(self._pending_campaign, show=self._campaign_show)

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, message: str) -> None:
        self.errors.append(f"{key}: {message}")
        said = refusal(message)
        if said is not None:   # a child refused the campaign's files: the input's problem,
            # not llgui's (`--screenshot` exits 2 on it, not 1)
            self.open_problems = [*getattr(self, "open_problems", []), f"{key}: {said}"]
        else:
            self.job_failures.append(f"{key}: {message}")
        if key == "load":
            self.cancel_load_button.setVisible(False)
        if key == "walk":  # ("walk:METRIC", a metric shown meanwhile, is not the view's)
            self.workbench.step_label.setText(f"could not replay the document: {message}")
        self.statusBar().showMessage(
            f"Not computed ({key}): {said}" if said is not None
            else f"Background job failed ({key}): {message}", 20000)

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
        # the bar shows once a job has run PROGRESS_AFTER_MS (or says how far it is): the
        # next step made ahead on a worker at every key press showed and hid it, laying the
        # status bar out and repainting it twice a step
        timer = getattr(self, "_progress_timer", None)
        if timer is None:
            timer = self._progress_timer = QTimer(self)
            timer.setSingleShot(True)
            timer.setInterval(PROGRESS_AFTER_MS)
            timer.timeout.connect(self._show_busy)
        if busy:
            timer.start()
        else:
            timer.stop()
            self.progress.setVisible(False)
            self.job_label.setText("")

    def _show_busy(self) -> None:
        if self.jobs.busy and not self.progress.isVisible():
            self.progress.setVisible(True)
            self._set_progress(0)

    # -- navigation helpers -----------------------------------------------------------------

    def step_by(self, delta: int) -> None:
        self.state.set_step(self.state.step + delta)

    def show_tab(self, name: str) -> None:
        widget = {"workbench": self.workbench, "time": self.time_tab,
                  "detection": self.detection_tab, "systems": self.systems_view}.get(name)
        if widget is not None:
            self.tabs.setCurrentWidget(widget)

    # -- session (restore and save: llgui.gui.window.session) -------------------------------

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.save_session()
        self.huge_pages.stop()
        self.jobs.shutdown(1500)
        super().closeEvent(event)

    # -- offscreen rendering ----------------------------------------------------------------

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._docks_sized:
            self._docks_sized = True
            self.resizeDocks([self.documents_dock], [max(270, self.width() // 6)],
                             Qt.Orientation.Horizontal)

    def _show_documents(self) -> None:
        """The Documents panel of an opening, after the window's first paint of it."""
        fit, self._opening = self._opening == "fit", "documents"
        if fit:
            self._fit_documents_columns()
        self.documents_view.setUpdatesEnabled(True)
        after_paint(self.documents_view.viewport(), self._opened)

    def _opened(self) -> None:
        """The opening painted, its Documents panel too: the jobs its paints held back go."""
        self._opening = None
        self._shown_loaded()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if self.state.bundles and self._opening is None:   # (in an opening, the Documents
            self._shown_loaded()                           # panel is still to come)

    def _shown_loaded(self) -> None:
        """Loaded bundles are on screen: the jobs held for their paint go, and
        `on_first_loaded_paint` is told."""
        QTimer.singleShot(0, self.jobs.release)
        hook = getattr(self, "_first_paint_hook", None)
        if hook is not None:
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
270 cut the gain column."""


PROGRESS_AFTER_MS = 300
"""A job's progress bar shows once it has run this long (or reports how far it is)."""


class _SignatureLabel(QLabel):
    """The status bar's metric signature; `changed()` hears each new text (the short form
    beside a message follows it)."""

    def __init__(self, changed: Callable[[], None]):
        super().__init__("")
        self._changed = changed

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self._changed()


