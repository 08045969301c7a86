"""The step-through workbench: one document, its corrections, the scores moving with each step.

A document's walkthrough (every step's scores, and what it takes to rebuild any step's
hypotheses) is computed once on a worker when the document, metric or cost model changes, and
a few are cached. Stepping redraws the numbers at once; a step's view of the document is
built on demand (MT: the visible segments only) or, for diarization, where it needs full DER
sweeps of the show, on a worker, the timeline following when it is ready. Whole-collection
aggregates and the exact re-check with the reference libraries run on workers too.
"""
from __future__ import annotations

import gc
import html
import time

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QPushButton, QSplitter,
    QStackedWidget, QStyle, QTableView, QVBoxLayout, QWidget,
)

from llgui.core.metrics import WORD_METRICS, display_name, replay_metrics
from llgui.core.walkthrough import Walkthrough
from llgui.gui.jobs import workbench as work
from llgui.gui.jobs.workbench import LLMT, SYNC_TURNS
from llgui.gui.workbench.cost_editor import CostModelEditor
from llgui.gui.workbench.diar_view import DiarView
from llgui.gui.table_models import CorrectionsModel, describe_step
from llgui.gui.widgets.after_paint import after_paint, defer_paint, paint_later
from llgui.gui.widgets.column_fit import fit_columns
from llgui.gui.widgets.doc_label import DocLabel
from llgui.gui.widgets.plot_range import set_tip
from llgui.gui.widgets.quiet_label import lay_out
from llgui.gui.workbench import question_column
from llgui.gui.workbench.mt_view import MTView
from llgui.gui.workbench.score_panel import ScorePanel
from llgui.gui.workbench.texts import OPEN_A_BUNDLE, collection_html, empty_text, script_notes

HUSH_STEP_MS = 60
HUSH_DOCUMENT_MS = 250
"""How long background jobs (other documents' scores, intervals, the next step's view) wait
at their checkpoints when a step or a document is drawn: their Python would halve the event
loop's speed (one interpreter lock) just when the user waits for the view."""

AHEAD_DELAY_MS = 40
"""After a step of a long show is drawn, the wait before its next step's view is built."""

WALK_CACHE = 8
"""Walkthroughs kept (documents x metrics x cost models); each is about the size of its log."""

_QUICK = ("bleu", "chrf")
"""Metrics computed at once (a second for thousands of segments), shown while a slower one of
the same document (TER, WER) is still on its way."""


class Workbench(QWidget):
    def __init__(self, state, jobs, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.jobs, self.window_ = state, jobs, window
        self._cache: dict[tuple, Walkthrough] = {}
        self._wanted: tuple | None = None
        self._waiting_for: str | None = None
        self.walkthrough: Walkthrough | None = None
        # a new walkthrough is drawn in slices, each after the last one's paint: the steps
        # table, then the document's text (MT), the score bars, the curve (`_draw_pending`)
        self._view_pending: Walkthrough | None = None
        self._scores_pending: Walkthrough | None = None
        self._curve_pending: Walkthrough | None = None   # the learning curve, last
        self._marks_pending: Walkthrough | None = None   # the questions' marks on it, later
        self._questions_pending: Walkthrough | None = None   # asked after the curve's paint

        # -- top bar: metric, navigation, what the step was
        self.metric_box = QComboBox()
        self.metric_box.setToolTip("metric of the workbench for this task")
        self.metric_box.activated.connect(self._on_metric_box_activated)
        self.buttons = {}
        nav = QHBoxLayout()
        nav.addWidget(QLabel("metric"))
        nav.addWidget(self.metric_box)
        icons = QStyle.StandardPixmap
        for name, icon, tip, slot in (
            ("first", icons.SP_MediaSkipBackward, "base hypothesis (Home)",
             lambda: state.set_step(0)),
            ("prev", icons.SP_MediaSeekBackward, "previous step (←)",
             lambda: state.set_step(state.step - 1)),
            ("next", icons.SP_MediaSeekForward, "next step (→)",
             lambda: state.set_step(state.step + 1)),
            ("last", icons.SP_MediaSkipForward, "last step (End)",
             lambda: state.set_step(state.n_steps())),
        ):
            button = QPushButton(self.style().standardIcon(icon), "")
            button.setToolTip(tip)
            button.setFixedWidth(34)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            nav.addWidget(button)
            self.buttons[name] = button
        self.step_label = DocLabel("no document")   # laid out ahead (`_prepare_texts`)
        # two lines, fixed: a new text never relayouts (and repaints) the whole window
        self.step_label.setFixedHeight(2 * self.step_label.fontMetrics().lineSpacing() + 6)
        from llgui.gui.widgets.quiet_label import QuietBox

        nav.addWidget(QuietBox(self.step_label), 1)   # its text never relayouts the window
        self.verify_button = QPushButton("Verify with libraries")
        self.verify_button.setToolTip("recompute every step of this document with sacrebleu / "
                                      "jiwer / pyannote.metrics on a worker (Ctrl+R)")
        self.verify_button.clicked.connect(self.verify)
        nav.addWidget(self.verify_button)

        # -- corrections table, score panel, cost model
        self.model = CorrectionsModel(self)
        self.table = QTableView()
        from llgui.gui.widgets.quiet_header import quiet_header

        quiet_header(self.table)   # the header is not repainted as the step's row moves
        self.table.setModel(self.model)
        from llgui.gui.widgets.cell_pictures import cell_pictures

        # each cell painted once per state, the next key's rows ahead (`_prepare_table`)
        self.table_pictures = cell_pictures(self.table)
        self._table_ahead = QTimer(self)
        self._texts_ahead: tuple | None = None   # (id of the walkthrough, step) shown, whose
        # next step's texts are laid out (reset at each step: the walkthrough is alive)
        self._table_ahead.setSingleShot(True)
        self._table_ahead.setInterval(AHEAD_DELAY_MS)
        self._table_ahead.timeout.connect(self._prepare_table)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        # columns sized once per document from a sample of rows (`_show_walkthrough`), never
        # by measuring 1,000 steps on each change
        self.table.horizontalHeader().setResizeContentsPrecision(16)
        self.table.setAlternatingRowColors(True)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        # the table's height settles after the step is shown (layout, resizes): keep the
        # selected step in view whenever the scroll range changes
        self.table.verticalScrollBar().rangeChanged.connect(self._keep_step_in_view)
        self.scores = ScorePanel()
        self.cost_editor = CostModelEditor()
        self.cost_editor.edited.connect(self._on_cost_editor_edited)
        self.cost_editor.setEnabled(False)   # until a document is open
        self.aggregates = QLabel("")
        from llgui.gui.workbench.aggregate_intervals import AggregateIntervals   # issue 15

        self.intervals = AggregateIntervals(self)
        self.shown_intervals: dict[str, object] = {}   # measure -> Estimate on screen (tests)
        self.aggregates.setTextFormat(Qt.TextFormat.RichText)
        self.aggregates.setWordWrap(True)
        self.aggregates.setAlignment(Qt.AlignmentFlag.AlignTop)
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.table)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        # the cost fields keep their height when a second system's rows join below (they
        # were squashed to 10 px with two bundles open at 1366x768, issue 35): the splitter
        # takes the room from the steps table instead
        self.cost_editor.setMinimumHeight(self.cost_editor.sizeHint().height())
        side_layout.addWidget(self.cost_editor)
        side_layout.addWidget(self.aggregates, 1)
        from llgui.gui.workbench.side_by_side import SecondSystem   # issue 15

        self.second = SecondSystem(self)
        side_layout.addWidget(self.second.label)
        # what does not fit scrolls, never overlaps (a second system's rows below the
        # aggregates drew over the cost fields)
        from PySide6.QtWidgets import QFrame, QScrollArea

        scroll = QScrollArea()
        scroll.setWidget(side)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        left.addWidget(scroll)
        left.setSizes([330, 450])
        left.setMinimumWidth(520)

        # -- the document at the step
        self.mt_view = MTView()
        self.diar_view = DiarView()
        # its next step made ahead once no worker builds that step's view (`diar_ahead`)
        self.diar_view.ahead_ready = lambda: not self.jobs.is_running("step-view")
        self.empty = QLabel(OPEN_A_BUNDLE)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        from llgui.gui.detection.doc_view import DetDocView

        self.det_view = DetDocView()
        from llgui.gui.workbench.diar_audio import AudioBar   # issue 26

        self.audio = AudioBar(self.diar_view, lambda text: window.statusBar().showMessage(
            text, 15000))
        self.diar_page = diar_page = QWidget()
        diar_layout = QVBoxLayout(diar_page)
        diar_layout.setContentsMargins(0, 0, 0, 0)
        diar_layout.addWidget(self.audio)
        diar_layout.addWidget(self.diar_view, 1)
        self.stack = QStackedWidget()
        for w in (self.empty, self.mt_view, diar_page, self.det_view):
            self.stack.addWidget(w)

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.scores)
        right.addWidget(self.stack)
        right.setSizes([330, 520])
        self.right_split = right
        self._timeline_sized = False

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 0)   # the table keeps its width, the document takes the rest
        split.setStretchFactor(1, 1)
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.addLayout(nav)
        layout.addWidget(split, 1)

        state.selection_changed.connect(self._on_state_selection_changed)
        state.step_changed.connect(self._on_state_step_changed)
        state.metric_changed.connect(self._on_state_metric_changed)
        state.cost_model_changed.connect(self._on_state_cost_model_changed)
        state.bundles_changed.connect(self._on_state_bundles_changed)
        state.policy_changed.connect(self._on_state_policy_changed)
        jobs.result_ready.connect(self._on_jobs_result_ready)
        jobs.progressed.connect(self._on_jobs_progressed)
        jobs.cancelled.connect(self._on_jobs_stopped)
        jobs.failed.connect(self._on_jobs_failed)
        self._verify_started = 0.0
        self._collection: tuple[int, object] | None = None   # the aggregates on screen
        self._collections: dict[int, object] = {}   # every bundle's, shown when it is selected
        self._show_empty(True)   # until a document is open

    # -- recomputing ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Recompute the current document's walkthrough (cached) and redraw everything."""
        state = self.state
        bundle, document = state.bundle(), state.document()
        if bundle is None or document is None:
            self.walkthrough = None
            self._wanted = None
            self.cost_editor.setEnabled(False)
            self.model.set_walkthrough(None)
            self.empty.setText(empty_text(state.bundles))
            self.stack.setCurrentWidget(self.empty)
            self.step_label.setText("no document")
            self._show_empty(True)
            return
        self._show_empty(False)
        self._fill_metric_box(bundle.task)
        metric = work.track_metric(bundle, state.metric(bundle.task))
        cost = state.cost_model()
        self.cost_editor.set_model(cost)
        if self.cost_editor.shown_task != bundle.task:   # only what prices its steps
            self.cost_editor.set_task(bundle.task)
            self.cost_editor.setMinimumHeight(self.cost_editor.sizeHint().height())
        self.cost_editor.setEnabled(True)
        key = (state.selection.bundle, document.id, metric, cost)
        self._wanted = key
        result = self._cache.get(key)
        if result is None:
            # The first walkthrough of a document runs on a worker: it may import sacrebleu or
            # pyannote (seconds, the first time), and the window must not freeze meanwhile.
            self.jobs.submit("walk", work.walk_job, key, document, bundle.steps_of(document.id),
                             metric, bundle.settings, cost, bundle.documents,
                             kernels=work.needs_kernels(bundle))
            # Meanwhile show what is ready: the document under another of the bundle's
            # metrics (BLEU and chrF come at once, TER may take longer), computing those
            # too if needed; the wanted metric replaces it when it arrives.
            interim = None
            quick = [m for m in _QUICK if m in bundle.metrics] if metric not in _QUICK else []
            for other in quick:
                other_key = (key[0], key[1], other, key[3])
                if other_key in self._cache:
                    interim = interim or self._cache[other_key]
                else:  # (supersedes a quick walk still running for another document)
                    self.jobs.submit(f"walk:{other}", work.walk_job, other_key, document,
                                     bundle.steps_of(document.id), other, bundle.settings,
                                     cost, bundle.documents, kernels=False)
            if interim is not None:
                self._show_walkthrough(interim, waiting_for=metric)
            else:
                self.step_label.setText(f"<b>{html.escape(document.id)}</b> · computing "
                                        f"{display_name(metric)} for every step…")
            return
        self._show_walkthrough(result)

    def _show_walkthrough(self, result: Walkthrough, waiting_for: str | None = None) -> None:
        """Show `result`; `waiting_for` names the wanted metric when `result` is another
        metric's walkthrough shown until it arrives."""
        document = result.document
        bundle = self.state.bundle()
        self.jobs.hush(HUSH_DOCUMENT_MS)
        self._waiting_for = waiting_for
        self.walkthrough = result
        # the reference libraries verify MT and diarization; detection scores are counts
        self.verify_button.setEnabled(document.task in ("mt", "diarization"))
        self.model.set_walkthrough(result)
        fit_columns(self.table)   # (Qt's resizeColumnsToContents: 10-13 ms, `column_fit`)
        # the answer (last) at most 16 ems, the target at most 7: the scores stay in view
        # (a diarization target, "5:51.5 ~ 3:50.4 (show-2023-03-20)", pushed S_pen and the
        # question value out of it at 1366x768); the tooltips have them whole
        em = self.table.fontMetrics().height()
        for name, most in (("answer", 16), ("target", 7)):
            column = self.model.COLUMNS.index(name)
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), most * em))
        question_column.reserve(self.table, self.model.COLUMNS.index("question"), result)
        self._fit_table()
        self.window_.signature_label.setText(
            f"{display_name(result.replay.metric)}: {result.replay.signature}")
        self.stack.setCurrentWidget({"mt": self.mt_view, "detection": self.det_view,
                                     "classification": self.det_view}.get(
            document.task, self.diar_page))
        if document.task == "mt" and bundle is not None:
            self.mt_view.set_notes(script_notes(bundle, result.replay.metric))
            self.cost_editor.set_unit(result.replay.cost_unit)
        if document.task == "diarization" and bundle is not None:
            self.diar_view.set_speakers(t.speaker for t in document.reference)  # per meeting
            zones = work.zones_of(bundle.settings)
            self.diar_view.collar = zones["collar"]
            self.diar_view.skip_overlap = zones["skip_overlap"]
            self._size_timeline()
        # the steps table paints first, then the document's text (an MT screen's cells laid
        # out anew), then the score panel (its learning curve is built anew: thousands of
        # points, axes laid out), each on a turn of its own after the last one's paint:
        # drawn together they held the event loop for 80-140 ms (issue 36)
        self._view_pending = result if document.task == "mt" else None
        self._scores_pending = self._curve_pending = result
        self.show_step(self.state.step)
        after_paint(self.table.viewport(), self._draw_pending)

    TABLE_SHARE = 0.545
    """At most this share of the workbench's width goes to the corrections table."""

    def _fit_table(self) -> None:
        """Widen the table's side of the splitter (up to TABLE_SHARE of it) so every column up
        to the question value shows without scrolling sideways, with a little of the answer
        (issue 35: the question column was off-screen at 1366x768 and 1920x1080)."""
        total = self.splitter.width()
        sizes = self.splitter.sizes()
        if total <= 0 or len(sizes) != 2 or self.walkthrough is None:
            return
        if not self.walkthrough.steps:   # no steps: the document takes the room (empty_panels)
            return
        answer = self.model.COLUMNS.index("answer")
        table = self.table
        need = (sum(table.columnWidth(c) for c in range(answer))
                + 4 * table.fontMetrics().height()              # a glimpse of the answer
                + table.verticalScrollBar().sizeHint().width() + 2 * table.frameWidth()
                + (sizes[0] - table.width()))                   # the left side's margins
        left = min(need, int(self.TABLE_SHARE * sum(sizes)))
        if left > sizes[0]:
            self.splitter.setSizes([left, sum(sizes) - left])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_table()

    def _ask_questions(self, result: Walkthrough, bundle) -> None:
        """Issue 34: the value of the document's questions, on a worker after the walkthrough
        is shown (`walkthrough.questions`: None until computed, {} when there is none)."""
        if result.questions is not None or bundle is None:
            return
        if not any(s.initiative == "active" for s in result.log):
            result.questions = {}
            return
        # not in the background: a paused job stretched over the steps that follow made
        # every one of them share the interpreter with it
        self.jobs.submit("questions", work.questions_job, result, result.replay.metric,
                         bundle.settings, self.state.cost_model(), bundle.documents)

    def ready(self) -> bool:
        """True when the current document's walkthrough is on screen (tests wait on this)."""
        return (self._wanted_shown() and self._view_pending is None
                and self._scores_pending is None and self._curve_pending is None
                and self._marks_pending is None
                and self._questions_pending is not self.walkthrough)

    def _wanted_shown(self) -> bool:
        """True when the walkthrough on screen is the one wanted (its score panel may follow
        its first paint: `_draw_pending`)."""
        return self.walkthrough is not None and self._cache.get(self._wanted) is self.walkthrough

    def settled(self) -> bool:
        """True unless a document is open whose wanted metric is not on screen yet
        (`--screenshot` waits on this)."""
        return self._wanted is None or self.ready()

    def show_step(self, step: int) -> None:
        result = self.walkthrough
        if result is None:
            return
        step = max(0, min(step, len(result.steps)))
        self.jobs.hush(HUSH_STEP_MS)   # background jobs wait while this step is drawn
        if self.table.currentIndex().row() != step:
            self.table.selectRow(step)
        # selectRow does not scroll: step 30 of 30 stayed below the fold. Centred when it
        # comes near an edge (two steps of context each side), else the table stands still:
        # centring it at every key press shifted every row under the eye and repainted the
        # whole table at every step (a step then repaints the two rows it changed)
        if not self._step_row_inside(step):
            self.table.scrollTo(self.table.model().index(step, 0),
                                QAbstractItemView.ScrollHint.PositionAtCenter)
        self._table_ahead.start()   # the rows the next key shows, painted while the user reads
        self._texts_ahead = None    # (and its captions: `_prepare_texts`, once this step)
        if result.document.task == "mt":
            if self._view_pending is not result:
                self.mt_view.show_step(result, step)
        elif result.document.task == "detection":
            self.det_view.show_step(result, step, self._decision_threshold(result))
        elif result.document.task == "classification":
            self.det_view.show_class_step(result, step)
        elif work.turns(result.document) <= SYNC_TURNS:
            self._show_timeline(result, step)
            # the next step's geometry, verdict and breakdown on a worker while the user
            # looks at this one: on an hour's meeting they were half of the step
            QTimer.singleShot(AHEAD_DELAY_MS, self, lambda: self._prepare_ahead(result, step))
        elif self._view_ready(result, step):
            self._show_timeline(result, step)
            if self.diar_view._split_fill is not None:   # the step that opened the split view
                defer_paint(self.window())   # (40 ms, then a paint of 35: one stretch)
            # the next step's view, built ahead of the user once this one is painted (a
            # worker's Python competes with the paint for the interpreter)
            QTimer.singleShot(AHEAD_DELAY_MS, self, lambda: self._prepare_ahead(result, step))
        else:
            # a long show's view takes several DER sweeps (~10 ms each per 1,000 turns): built
            # on a worker, the timeline follows when it is ready
            self.jobs.submit("step-view", work.view_job, result, step, **self._zones())
        if self._scores_pending is not result:
            self.scores.show_step(result, step, curve=self._curve_pending is not result)
        self._set_step_text(result, step)
        n = len(result.steps)
        from llgui.gui.workbench.empty_panels import fit_empty_panels

        fit_empty_panels(self, n)   # no steps: the document gets the cost model's room
        self.buttons["first"].setEnabled(step > 0)
        self.buttons["prev"].setEnabled(step > 0)
        self.buttons["next"].setEnabled(step < n)
        self.buttons["last"].setEnabled(step < n)

    def _prepare_table(self) -> None:
        """The steps table's rows the next key shows, painted ahead (`CellPictures`): its
        neighbours in their new states, and the rows a centring scroll would bring in; a
        slice per turn of the event loop."""
        current = self.table.currentIndex()
        if not current.isValid():
            return
        self._prepare_texts()
        rows = self.table.viewport().height() // max(self.table.rowHeight(current.row()), 1)
        around = (current.row() - rows // 2 - 2, current.row() + rows // 2 + 2)
        if not self.table_pictures.prepare(current.row(), current.column(), around):
            QTimer.singleShot(0, self, self._prepare_table_more)

    def _prepare_table_more(self) -> None:
        if not self._table_ahead.isActive():   # (a new step restarts from its own rows)
            self._prepare_table()

    def _step_row_inside(self, step: int) -> bool:
        """True when the steps table shows row `step` with two rows of context above and
        below it (no scroll is needed)."""
        rect = self.table.visualRect(self.table.model().index(step, 0))
        margin = 2 * self.table.verticalHeader().defaultSectionSize()
        height = self.table.viewport().height()
        return (rect.isValid() and height >= 5 * rect.height()
                and rect.top() >= margin and rect.bottom() <= height - margin)

    def _draw_marks(self) -> None:
        """The questions' marks on the learning curve (`ScorePanel.add_questions`)."""
        pending, self._marks_pending = self._marks_pending, None
        if pending is not None and pending is self.walkthrough:
            step = max(0, min(self.state.step, len(pending.steps)))
            self.scores.add_questions(pending, step)

    def _draw_pending(self) -> None:
        """The next slice of a new walkthrough (`_show_walkthrough`), after the last one's
        paint: its document's view, its score numbers and bars, its learning curve."""
        result = self.walkthrough
        step = max(0, min(self.state.step, len(result.steps))) if result is not None else 0
        # each slice and its paint hushed: a long document's slices outlast one hush, and a
        # background job's Python beside them doubled their turns (the GIL, shared)
        self.jobs.hush(HUSH_DOCUMENT_MS)
        if self._view_pending is not None:
            pending, self._view_pending = self._view_pending, None
            if pending is result:
                self.mt_view.show_step(result, step)
            after_paint(self.mt_view.table.viewport(), self._draw_pending)
            return
        if self._scores_pending is not None:
            pending, self._scores_pending = self._scores_pending, None
            if pending is result:
                self.scores.show_step(result, step, curve=self._curve_pending is not result)
            after_paint(self.scores.bars, self._draw_pending)
            return
        pending, self._curve_pending = self._curve_pending, None
        if pending is not None and pending is result:
            self.scores.draw_curve(result, step)
            # the questions' values once the document is drawn, the curve's paint too (their
            # marks join the curve when they come): started beside the curve's paint, their
            # Python stretched that turn of 27 ms to 59 on a 100,000-sentence document
            bundle = self.state.bundle()
            self._questions_pending = result   # (not ready until they are asked)
            after_paint(self.scores.curve.viewport(),
                        lambda: self._ask_pending_questions(result, bundle))

    def _ask_pending_questions(self, result: Walkthrough, bundle) -> None:
        if self._questions_pending is result:
            self._questions_pending = None
            if result is self.walkthrough:
                self._ask_questions(result, bundle)

    def _size_timeline(self) -> None:
        """Once, on a short screen (1366x768): the timeline, its per-speaker table and its
        zoomed panels get two thirds of the right column (the score panel the rest); with the
        usual 40 % the panels' six lanes overlapped."""
        total = sum(self.right_split.sizes())
        if self._timeline_sized or total < 200 or total > 760:
            return
        self._timeline_sized = True
        top = int(0.33 * total)
        self.right_split.setSizes([top, total - top])

    def _set_step_text(self, result: Walkthrough, step: int) -> None:
        """The line above the table (`_step_text`)."""
        text, tip = self._step_text(result, step)
        set_tip(self.step_label, tip)
        self.step_label.setText(text)
        lay_out(self.step_label)   # (laid out in its paint, it was painted twice a step)

    def _step_text(self, result: Walkthrough, step: int,
                   ahead: bool = False) -> tuple[str, str]:
        """The line above the table and its tooltip: the document, the step, what the human
        was asked or gave (diarization: in the document's clock format, a named cluster's
        reference speaker once the step's view, and so its mapping, is built). `ahead`: for
        a step not shown yet, whose view is not built for it (a worker builds it)."""
        n = len(result.steps)
        hours = mapping = None
        known: dict = {}
        if step and result.document.task == "diarization":
            from llgui.core.display.diar_text import long_document
            from llgui.core.display.lanes import lane_geometry

            hours = long_document(result.document.extent)
            if result.is_cached(step) or (
                    not ahead and work.turns(result.document) <= SYNC_TURNS):
                view = result.steps[step - 1]
                mapping = view.mapping
                known = {"reference_labels": lane_geometry(result.document.reference)["labels"],
                         "seen_labels": lane_geometry(view.seen)["labels"]}
        what = (describe_step(result.log[step - 1], hours, mapping, **known) if step
                else "the system's first hypothesis")
        waiting = self._waiting_for
        note = (f" · <i>{display_name(waiting)} on its way, showing "
                f"{display_name(result.replay.metric)}</i>" if waiting else "")
        # a long post-edit (a WMT paragraph) is cut here and whole in the tooltip: it ran past
        # the label's two lines
        short = what if len(what) <= STEP_TEXT else what[:STEP_TEXT - 1].rstrip() + "…"
        return (f"<b>{html.escape(result.document.id)}</b> · step {step} of {n} "
                f"· {html.escape(short)}{note}", what if short != what else "")

    def _prepare_texts(self) -> None:
        """The next step's captions and numbers laid out while the user reads this one (a
        rich-text label's layout was ~1 ms of each step, three of them a step)."""
        result, step = self.walkthrough, self.state.step
        if result is None or not 0 <= step < len(result.steps) or \
                self._texts_ahead == (id(result), step):
            return
        self._texts_ahead = (id(result), step)
        self.step_label.prepare(self._step_text(result, step + 1, ahead=True)[0])
        if self._scores_pending is not result:
            self.scores.prepare(result, step + 1)
        if result.document.task == "mt" and self._view_pending is not result:
            self.mt_view.prepare_caption(result, step + 1)

    def _decision_threshold(self, walk: Walkthrough) -> float:
        from llgui.core.detection.track import make_det_metric

        bundle = self.state.bundle()
        settings = bundle.settings if bundle is not None else {}
        return make_det_metric(walk.replay.metric, settings).decision_threshold

    def _prepare_ahead(self, result: Walkthrough, step: int) -> None:
        if (result is self.walkthrough and step == self.state.step
                and step < len(result.steps) and not self._view_ready(result, step + 1)):
            self.jobs.submit("step-view", work.view_job, result, step + 1, True, background=True,
                             **self._zones())

    def _zones(self) -> dict:
        """The DER's collar and overlap settings the per-speaker breakdown is computed with."""
        return {"collar": self.diar_view.collar, "skip_overlap": self.diar_view.skip_overlap}

    def _view_ready(self, result: Walkthrough, step: int) -> bool:
        """True when step `step`'s timeline and per-speaker rows are built (a long show's
        are built on a worker)."""
        from llgui.gui.workbench.diar_speakers import breakdown_ready

        if not result.is_cached(step):
            return False
        view = result.view(step) if step > 0 else None
        adapted = view.adapted if view else result.base
        mapping = view.adapted_mapping if view else result.base_mapping
        return breakdown_ready(result.document, adapted, mapping, **self._zones())

    def _show_timeline(self, result: Walkthrough, step: int) -> None:
        self.diar_view.show_step(result, step, result.errors_at(step))
        self.audio.show_step(result, step)
        if step and result.log[step - 1].kind == "name":
            self._set_step_text(result, step)   # the view's mapping: the reference speaker

    def _fill_metric_box(self, task: str) -> None:
        # the word metrics (cpWER, tcpWER, WDER) are scored by `llgui score` / `replay`: the
        # walkthrough draws turns, not words
        metrics = [m for m in replay_metrics(task) if m not in WORD_METRICS]
        current = self.state.metric(task)
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        for m in metrics:
            self.metric_box.addItem(display_name(m), m)
        if task == "mt":   # the WMT LLMT scorer's penalised BLEU, beside the paper's
            metrics.append(LLMT)
            self.metric_box.addItem("BLEU (llmt)", LLMT)
            self.metric_box.setItemData(len(metrics) - 1, "S_pen by the WMT 2020/21 lifelong "
                                        "MT scorer (DESIGN.md 1.1), pooled over the stream",
                                        Qt.ItemDataRole.ToolTipRole)
        if current in metrics:
            self.metric_box.setCurrentIndex(metrics.index(current))
        self.metric_box.blockSignals(False)

    # -- reactions --------------------------------------------------------------------------

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        self._cache.clear()
        self._collections.clear()
        self.empty.setText(empty_text(self.state.bundles))
        self._show_empty(self.state.document() is None)

    @Slot()
    def _on_state_selection_changed(self) -> None:
        self.refresh()
        # another bundle (system): its own aggregates, never the previous one's
        index = self.state.selection.bundle
        shown = self._collection[0] if self._collection is not None else None
        if index != shown and index in self._collections:
            self.show_collection(index, self._collections[index])

    @Slot(int)
    def _on_state_step_changed(self, step: int) -> None:
        self.show_step(step)

    @Slot(str, str)
    def _on_state_metric_changed(self, task: str, metric: str) -> None:
        bundle = self.state.bundle()
        if bundle is not None and bundle.task == task:
            self.refresh()

    @Slot(int)
    def _on_state_cost_model_changed(self, index: int) -> None:
        if index == self.state.selection.bundle:
            self.refresh()

    def _on_metric_box_activated(self, index: int) -> None:
        bundle = self.state.bundle()
        if bundle is not None:
            self.state.set_metric(bundle.task, self.metric_box.itemData(index))

    def _keep_step_in_view(self, *_range) -> None:
        current = self.table.currentIndex()
        if current.isValid():
            self.table.scrollTo(current)

    def _on_table_current_changed(self, current, _previous) -> None:
        if current.isValid() and current.row() != self.state.step:
            self.state.set_step(current.row())

    def _on_cost_editor_edited(self, model) -> None:
        self.state.edit_cost_model(self.state.selection.bundle, model)

    def show_intervals(self, index: int, result, estimates: dict, signature: str) -> None:
        """The bootstrap intervals of the pooled aggregates arrived (`AggregateIntervals`)."""
        self._intervals = (result, estimates, signature)
        self.show_collection(index, result)

    def show_collection(self, index: int, result) -> None:
        """Aggregates of a bundle (pooled, mean, policy) when its collection job is done."""
        self._collections[index] = result
        if index != self.state.selection.bundle:
            return
        self._collection = (index, result)
        found = getattr(self, "_intervals", None)
        if found is None or found[0] is not result:
            kept = self.intervals.estimates.get(index)
            if kept is not None and kept[0] is result:
                found = (result, kept[1], self.intervals.signature)
        bundles = self.state.bundles
        text, self.shown_intervals = collection_html(
            result, bundles[index] if index < len(bundles) else None, self.state.policy,
            self.state.policy_name, found[1:] if found is not None and found[0] is result
            else None)
        self.aggregates.setText(text)

    def _show_empty(self, empty: bool) -> None:
        """No document: the words alone, no empty table, plots or cost model around them."""
        for widget in (self.splitter.widget(0), self.scores):
            widget.setVisible(not empty)
        for button in self.buttons.values():
            button.setEnabled(not empty)

    def _on_state_policy_changed(self) -> None:
        if self._collection is not None:
            self.show_collection(*self._collection)

    # -- verification with the reference libraries -----------------------------------------

    def verify(self) -> None:
        result = self.walkthrough
        bundle = self.state.bundle()
        if result is None or bundle is None:
            return
        from llgui.core.verify import verify_walkthrough

        if self.jobs.is_running("verify"):   # the button reads "Cancel" while it runs
            self.jobs.cancel("verify")
            return
        self.window_.statusBar().showMessage("verifying with the reference libraries…")
        self._verify_started = time.monotonic()
        self.verify_button.setText("Cancel verify")
        self.verify_button.setToolTip("stop the verification (Ctrl+R again)")
        self.jobs.submit("verify", verify_walkthrough, result, bundle.settings)

    def _verify_done(self) -> None:
        self.verify_button.setText("Verify with libraries")
        self.verify_button.setToolTip("recompute every step of this document with sacrebleu / "
                                      "jiwer / pyannote.metrics on a worker (Ctrl+R)")

    @Slot(str, float)
    def _on_jobs_progressed(self, key: str, fraction: float) -> None:
        """Verify's progress and time left on its button (it is also the Cancel button)."""
        if key != "verify":
            return
        from llgui.core.display.layout import format_time
        from llgui.core.jobs import time_left

        left = time_left(time.monotonic() - self._verify_started, fraction)
        text = f"Cancel verify · {100 * fraction:.0f} %"
        if left is not None:
            text += f" · {format_time(left)} left"
        self.verify_button.setText(text)

    @Slot(str, str)
    def _on_jobs_failed(self, key: str, _message: str) -> None:
        if key == "walk":   # the document's replay failed (the window says why): nothing
            self._wanted = None   # more is coming for it, `settled` (a --screenshot waited
            # ten minutes for it)
        self._on_jobs_stopped(key)

    @Slot(str)
    def _on_jobs_stopped(self, key: str, *_message) -> None:
        if key == "verify":
            self._verify_done()

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key == "walk" or key.startswith("walk:"):
            wanted, walkthrough = result
            # a walkthrough is hundreds of thousands of objects that live while it is cached:
            # out of the collector's way, or every full collection (on whichever thread,
            # workers' included, holding the interpreter) re-scans them, 40-70 ms each.
            # Nothing in it refers back to itself: refcounting frees it when evicted.
            gc.freeze()
            if len(self._cache) >= WALK_CACHE:
                self._cache.pop(next(iter(self._cache)))   # the oldest
            self._cache[wanted] = walkthrough
            if wanted == self._wanted:
                with paint_later(self.window()):   # (its first slice, 25-35 ms on a 10-hour
                    self._show_walkthrough(walkthrough)   # show, then its paint: one stretch)
            elif (self._wanted is not None and wanted[:2] == self._wanted[:2]
                  and wanted[3] == self._wanted[3] and not self._wanted_shown()
                  and self._waiting_for is None):
                # another metric of the document arrived first: show it until ours comes
                self._show_walkthrough(walkthrough, waiting_for=self._wanted[2])
        elif key == "questions":
            walkthrough, values = result
            walkthrough.questions = values or {}
            if walkthrough is self.walkthrough and values:
                column = self.model.COLUMNS.index("question")
                self.model.dataChanged.emit(self.model.index(0, column),
                                            self.model.index(self.model.rowCount() - 1, column))
                if question_column.widen_for(self.table, column):   # (never narrower)
                    self._fit_table()
                # the questions' marks on the curve, after the column's paint (or with the
                # curve, the last slice of the document's drawing, when that is still going on)
                if self._curve_pending is None:
                    self._marks_pending = walkthrough
                    after_paint(self.table.viewport(), self._draw_marks)
        elif key == "step-view":
            walkthrough, step = result
            if walkthrough is self.walkthrough and step == self.state.step:
                self.jobs.hush(HUSH_STEP_MS)   # (and its overview, panels and paints after)
                with paint_later(self.window()):   # (a 10-hour show's first split view:
                    self._show_timeline(walkthrough, step)   # 25-40 ms, then its paint)
                # the next step's view, ahead of the user, once this one is painted
                QTimer.singleShot(AHEAD_DELAY_MS, self,
                                  lambda: self._prepare_ahead(walkthrough, step))
        elif key == "verify":
            self._verify_done()
            self.last_verification = result
            self.window_.statusBar().showMessage(result.summary(), 30000)

    # -- export -----------------------------------------------------------------------------

    def export_table(self, path: str, fmt: str) -> None:
        from llgui.gui.workbench.table_export import write_corrections

        if self.walkthrough is not None:
            write_corrections(self.walkthrough, path, fmt)

    def export_plot(self, path: str) -> None:
        from llgui.gui.widgets.plot_export import export_widget

        on_timeline = self.stack.currentWidget() is self.diar_page
        export_widget(self.diar_view.plot if on_timeline else self.scores, path,
                      "llgui: diarization timeline" if on_timeline else "llgui: scores")


STEP_TEXT = 110   # characters of the step's description shown beside the buttons
