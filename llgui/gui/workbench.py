"""The step-through workbench: one document, its corrections, the scores moving with each step.

A document's walkthrough (every step's scores, hypotheses and error regions) is computed once
on a worker when the document, metric or cost model changes, and cached; stepping then only
redraws from it, so a step never waits on a worker. Whole-collection aggregates and the exact
re-check with the reference libraries run on workers too.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSplitter,
    QStackedWidget, QStyle, QTableView, QVBoxLayout, QWidget,
)

from llgui.core.types import KNOWN_METRICS
from llgui.core.walkthrough import Walkthrough, walk
from llgui.gui.cost_editor import CostModelEditor
from llgui.gui.diar_view import DiarView
from llgui.gui.models import CorrectionsModel, describe_step
from llgui.gui.mt_view import MTView
from llgui.gui.score_panel import ScorePanel
from llgui.io.export import display_name


class Workbench(QWidget):
    def __init__(self, state, jobs, window, parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.jobs, self.window_ = state, jobs, window
        self._cache: dict[tuple, Walkthrough] = {}
        self._wanted: tuple | None = None
        self.walkthrough: Walkthrough | None = None

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
        self.step_label = QLabel("no document")
        self.step_label.setTextFormat(Qt.TextFormat.RichText)
        self.step_label.setWordWrap(True)
        nav.addWidget(self.step_label, 1)
        self.verify_button = QPushButton("Verify with libraries")
        self.verify_button.setToolTip("recompute every step of this document with sacrebleu / "
                                      "jiwer / pyannote.metrics on a worker (Ctrl+R)")
        self.verify_button.clicked.connect(self.verify)
        nav.addWidget(self.verify_button)

        # -- corrections table, score panel, cost model
        self.model = CorrectionsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        self.table.selectionModel().currentRowChanged.connect(self._on_table_current_changed)
        self.scores = ScorePanel()
        self.cost_editor = CostModelEditor()
        self.cost_editor.edited.connect(self._on_cost_editor_edited)
        self.cost_editor.setEnabled(False)   # until a document is open
        self.aggregates = QLabel("")
        from llgui.gui.aggregate_intervals import AggregateIntervals   # issue 15

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
        side_layout.addWidget(self.cost_editor)
        side_layout.addWidget(self.aggregates, 1)
        from llgui.gui.side_by_side import SecondSystem   # issue 15

        self.second = SecondSystem(self)
        side_layout.addWidget(self.second.label)
        left.addWidget(side)
        left.setSizes([480, 300])
        left.setMinimumWidth(520)

        # -- the document at the step
        self.mt_view = MTView()
        self.diar_view = DiarView()
        self.empty = QLabel("Open a bundle (File › Open bundle…, Ctrl+O) or the demo "
                            "(File › Open the demo).")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        for w in (self.empty, self.mt_view, self.diar_view):
            self.stack.addWidget(w)

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.scores)
        right.addWidget(self.stack)
        right.setSizes([330, 520])

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
        jobs.result_ready.connect(self._on_jobs_result_ready)

    # -- recomputing ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Recompute the current document's walkthrough (cached) and redraw everything."""
        state = self.state
        bundle, document = state.bundle(), state.document()
        if bundle is None or document is None or bundle.task == "detection":
            self.walkthrough = None
            self._wanted = None
            self.cost_editor.setEnabled(False)
            self.model.set_walkthrough(None)
            self.stack.setCurrentWidget(self.empty)
            self.step_label.setText("no document")
            return
        self._fill_metric_box(bundle.task)
        metric = state.metric(bundle.task) or bundle.metrics[0]
        cost = state.cost_model()
        self.cost_editor.set_model(cost)
        self.cost_editor.setEnabled(True)
        key = (state.selection.bundle, document.id, metric, cost)
        self._wanted = key
        result = self._cache.get(key)
        if result is None:
            # The first walkthrough of a document runs on a worker: it may import sacrebleu or
            # pyannote (seconds, the first time), and the window must not freeze meanwhile.
            self.step_label.setText(f"<b>{html.escape(document.id)}</b> · computing "
                                    f"{display_name(metric)} for every step…")
            self.jobs.submit("walk", _walk_job, key, document, bundle.steps_of(document.id),
                             metric, bundle.settings, cost, bundle.documents)
            return
        self._show_walkthrough(result)

    def _show_walkthrough(self, result: Walkthrough) -> None:
        document = result.document
        bundle = self.state.bundle()
        self.walkthrough = result
        self.model.set_walkthrough(result)
        self.window_.signature_label.setText(
            f"{display_name(result.replay.metric)}: {result.replay.signature}")
        self.stack.setCurrentWidget(self.mt_view if document.task == "mt" else self.diar_view)
        if document.task == "diarization" and bundle is not None:
            self.diar_view.set_speakers(t.speaker for d in bundle.documents for t in d.reference)
        self.show_step(self.state.step)

    def ready(self) -> bool:
        """True when the current document's walkthrough is on screen (tests wait on this)."""
        return self.walkthrough is not None and self._cache.get(self._wanted) is self.walkthrough

    def show_step(self, step: int) -> None:
        result = self.walkthrough
        if result is None:
            return
        step = max(0, min(step, len(result.steps)))
        if self.table.currentIndex().row() != step:
            self.table.selectRow(step)
        if result.document.task == "mt":
            self.mt_view.show_step(result, step)
        else:
            self.diar_view.show_step(result, step, result.errors_at(step))
        self.scores.show_step(result, step)
        n = len(result.steps)
        what = describe_step(result.steps[step - 1].step) if step else "the system's first hypothesis"
        self.step_label.setText(f"<b>{html.escape(result.document.id)}</b> · step {step} of {n} "
                                f"· {html.escape(what)}")
        self.buttons["first"].setEnabled(step > 0)
        self.buttons["prev"].setEnabled(step > 0)
        self.buttons["next"].setEnabled(step < n)
        self.buttons["last"].setEnabled(step < n)

    def _fill_metric_box(self, task: str) -> None:
        metrics = KNOWN_METRICS.get(task, ())
        current = self.state.metric(task)
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        for m in metrics:
            self.metric_box.addItem(display_name(m), m)
        if current in metrics:
            self.metric_box.setCurrentIndex(metrics.index(current))
        self.metric_box.blockSignals(False)

    # -- reactions --------------------------------------------------------------------------

    @Slot()
    def _on_state_bundles_changed(self) -> None:
        self._cache.clear()

    @Slot()
    def _on_state_selection_changed(self) -> None:
        self.refresh()

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
        if index != self.state.selection.bundle:
            return
        name = display_name(result.metric)
        found = getattr(self, "_intervals", None)
        interval_row = ("<tr><td>95 % CI (±)</td>"
                        + "<td align='right'>…</td>" * 3 + "</tr>")
        self.shown_intervals = {}
        if found is not None and found[0] is result:
            _result, estimates, signature = found
            self.shown_intervals = dict(estimates)
            interval_row = (f"<tr><td title='{signature}'>95 % CI (±)</td>" + "".join(
                f"<td align='right'>{estimates[m].mean:.2f} ± {estimates[m].ci:.2f}</td>"
                for m in ("s_base", "s_adapt", "s_pen")) + "</tr>")
        rows = "".join(
            f"<tr><td>{label}</td><td align='right'>{a:.2f}</td><td align='right'>{b:.2f}</td>"
            f"<td align='right'>{c:.2f}</td></tr>"
            for label, (a, b, c) in (
                ("pooled", (result.pooled_base, result.pooled_adapt, result.pooled_pen)),
                ("mean of documents", (result.mean("s_base"), result.mean("s_adapt"),
                                       result.mean("s_pen"))),
            )) + interval_row
        self.aggregates.setText(
            f"<b>{name}, all {len(result.replays)} documents</b><table cellspacing='4'>"
            "<tr><th></th><th>S_base</th><th>S_adapt</th><th>S_pen</th></tr>" + rows
            + "</table><small>pooled: statistics summed over documents (corpus "
              "score / duration-weighted); mean: unweighted mean of per-document scores; "
              "95 % CI: bootstrap mean ± half-width of the pooled scores, documents "
              "resampled (bs:1000|seed:12345|unit:document).</small>")

    # -- verification with the reference libraries -----------------------------------------

    def verify(self) -> None:
        result = self.walkthrough
        bundle = self.state.bundle()
        if result is None or bundle is None:
            return
        from llgui.core.verify import verify_walkthrough

        self.window_.statusBar().showMessage("verifying with the reference libraries…")
        self.jobs.submit("verify", verify_walkthrough, result, bundle.settings)

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key == "walk":
            wanted, walkthrough = result
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[wanted] = walkthrough
            if wanted == self._wanted:
                self._show_walkthrough(walkthrough)
        elif key == "verify":
            self.last_verification = result
            self.window_.statusBar().showMessage(result.summary(), 30000)

    # -- export -----------------------------------------------------------------------------

    def export_table(self, path: str, fmt: str) -> None:
        from llgui.io.export import replay_csv, replay_report, to_json, write_atomic

        if self.walkthrough is None:
            return
        report = replay_report(self.walkthrough.replay)
        write_atomic(path, to_json(report) if fmt == "json" else replay_csv(report))

    def export_plot(self, path: str) -> None:
        from llgui.gui.plot_export import export_widget

        on_timeline = self.stack.currentWidget() is self.diar_view
        export_widget(self.diar_view.plot if on_timeline else self.scores, path,
                      "llgui: diarization timeline" if on_timeline else "llgui: scores")


def _walk_job(key, document, steps, metric, settings, cost, documents, progress=None,
              should_stop=None):
    """Worker job: the walkthrough of one document, returned with the key it answers."""
    return key, walk(document, steps, metric, settings, cost, should_stop=should_stop,
                     documents=documents)
