"""Session › Start live session…: the expert at the keyboard is the oracle (DESIGN.md §8).

`LiveSessionWindow` sets up a session (bundle, system, mode, budget, output folder), then
shows each question of the system (or, interactive, the document to correct) in a panel;
every exchange with the system runs on the `JobRunner` (a spinner while it thinks, Cancel
always), so the window never waits. The numbers shown after each step are kept in `shown`
as (doc, step, S_adapt, S_pen) of the bundle's first metric. Pause saves and ends the system;
Resume replays the recorded answers to a restarted one. If the system fails, the window says
so and offers to continue with `static` or to stop; the run opens in the workbench at the end.
"""
from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
    QProgressBar, QPushButton, QStackedWidget, QVBoxLayout, QWidget,
)

from llgui.gui.jobs import live as J
from llgui.gui.live.panels import DiarPanel, MTPanel
from llgui.gui.workers import JobRunner
from llgui.sim.live import Effort

KEY = "live-session"
PRELOAD = ("llgui.io.bundle", "llgui.sim.run", "llgui.core.mt.track", "llgui.core.diarization.track",
           "llgui.core.mt.stats_cache", "sacrebleu", "llgui.io.rttm", "llgui.core.mt.ter_fast",
           "llgui.core.diarization.der", "llgui.core.diarization.edit", "scipy.optimize", "llgui.io.interactions",
           "llgui.core.mt.stats", "llgui.core.mt.textdiff", "rapidfuzz.distance",
           "sacrebleu.tokenizers.tokenizer_13a", "zoneinfo", "sortedcontainers")
"""Imported with the window: a first import on the worker holds the GIL while it compiles
and would stall the window for a third of a second."""
SYSTEMS = ("mt_memory", "diar_clusters", "diar_audio", "static", "mt_complete")
HEARING_SYSTEM = "diar_audio"
"""The default system for a diarization bundle whose documents name their recording."""


def names_audio(bundle: str) -> bool:
    """Does the bundle file at `bundle` hold a diarization document with a playable `audio`?
    (A bounded read of the small TOML file, and of the recordings' headers; anything
    unreadable is simply "no": the load then says why, and the system chosen stays.)"""
    import tomllib

    from llgui.io._read import LIBRARY_ERRORS
    from llgui.io.audio import AudioError, probe
    from llgui.utils.regular import read_regular

    try:
        data = tomllib.loads(read_regular(bundle, limit=1 << 20).decode("utf-8"))
    except LIBRARY_ERRORS:   # unreadable, not TOML, nested too deep: simply "no"
        return False
    documents = data.get("documents")
    if not (isinstance(data.get("bundle"), dict) and data["bundle"].get("task") == "diarization"
            and isinstance(documents, list)):
        return False
    for d in documents:
        if isinstance(d, dict) and isinstance(d.get("audio"), str):
            try:
                probe(Path(bundle).parent / d["audio"])
            except (AudioError, ValueError):
                continue
            return True
    return False


class LiveSessionWindow(QWidget):
    """The live session (see the module text)."""

    finished = Signal(object)          # the final Snapshot

    def __init__(self, jobs: JobRunner | None = None,
                 add_bundles: Callable[[list], object] | None = None,
                 bundle_path: str | None = None, parent=None):
        super().__init__(parent, Qt.WindowType.Window)
        import importlib

        for name in PRELOAD:
            importlib.import_module(name)
        from importlib.metadata import version

        from llgui.core.mt import ter_fast

        version("sacrebleu")          # the statistics cache names its folder with it (~0.1 s)

        if ter_fast.available():      # load the compiled TER kernels (numba imports lazily)
            ter_fast.translation_edit_rate(["a", "b"], ["b", "a"])
        # A full collection walks every object the imports made (Qt, numpy, numba, scipy...)
        # while holding the GIL: triggered by the worker's scoring it stalled the loop for
        # 0.1-0.3 s. Frozen, those objects are never walked again.
        gc.collect()
        gc.freeze()
        self.setWindowTitle("llgui: live session")
        self.resize(980, 640)
        self.jobs = jobs or JobRunner(self)
        self._add_bundles = add_bundles
        self.live = None
        self.snap = None
        self.shown: list[tuple] = []
        self.font_notes: set[str] = set()   # font messages said this session
        self.failure: str | None = None
        self.asked_at = time.monotonic()
        self._job = None
        self._job_cancelled: str | None = None
        self._submission = None   # the last answer sent to a job: (kind, target, value, effort)

        # -- setup --------------------------------------------------------------------------
        self.bundle_edit = QLineEdit(bundle_path or "")
        self.system = QComboBox()
        self.system.setEditable(True)
        self.system.addItems(SYSTEMS)
        self.bundle_edit.editingFinished.connect(self._default_system)
        self._default_system()
        self.mode = QComboBox()
        self.mode.addItems(["active", "interactive"])
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0, 1e6)
        self.budget.setSpecialValueText("default (60 % of the words / 60 s)")
        self.budget.setValue(0)
        self.out_edit = QLineEdit()
        self.start_button = QPushButton("&Start")
        self.start_button.clicked.connect(self._on_start)
        self.resume_button = QPushButton("&Resume a paused session…")
        self.resume_button.clicked.connect(self._on_resume_clicked)
        form = QFormLayout()
        form.addRow("Bundle", self.bundle_edit)
        form.addRow("System (name or command)", self.system)
        form.addRow("Mode", self.mode)
        form.addRow("Budget per document", self.budget)
        form.addRow("Output folder", self.out_edit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.resume_button)
        buttons.addStretch(1)
        self.setup = QWidget()
        setup_layout = QVBoxLayout(self.setup)
        setup_layout.addLayout(form)
        setup_layout.addLayout(buttons)

        # -- status, scores, the question ---------------------------------------------------
        self.spinner = QProgressBar()
        self.spinner.setRange(0, 0)           # busy: the system is thinking
        self.spinner.setMaximumWidth(120)
        self.spinner.setVisible(False)
        self.status = QLabel("Choose a bundle and a system, then Start.")
        self.status.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self._on_cancel)
        self.cancel_button.setEnabled(False)
        status_row = QHBoxLayout()
        status_row.addWidget(self.spinner)
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.cancel_button)
        self.scores = QLabel("")
        self.scores.setTextFormat(Qt.TextFormat.RichText)
        self.mt_panel = MTPanel()
        self.diar_panel = DiarPanel()
        self.mt_panel.submitted.connect(self._on_submitted)
        self.diar_panel.submitted.connect(self._on_submitted)
        self.mt_panel.prefix_submitted.connect(self._on_prefix)
        self.panels = QStackedWidget()
        self.panels.addWidget(QWidget())
        self.panels.addWidget(self.mt_panel)
        self.panels.addWidget(self.diar_panel)
        self.pause_button = QPushButton("&Pause and save")
        self.next_button = QPushButton("Next &document")
        self.finish_button = QPushButton("&Finish")
        self.static_button = QPushButton("Continue with &static")
        self.stop_button = QPushButton("S&top the session")
        self.pause_button.clicked.connect(self._on_pause)
        self.next_button.clicked.connect(lambda: self._run("next", J.next_document, self.live))
        self.finish_button.clicked.connect(lambda: self._run("finish", J.finish, self.live))
        self.static_button.clicked.connect(self._on_static)
        self.stop_button.clicked.connect(
            lambda: self._run("stop", J.stop, self.live, self.failure or "stopped"))
        actions = QHBoxLayout()
        for b in (self.pause_button, self.next_button, self.finish_button, self.static_button,
                  self.stop_button):
            actions.addWidget(b)
        actions.addStretch(1)

        layout = QVBoxLayout(self)
        layout.addWidget(self.setup)
        layout.addLayout(status_row)
        layout.addWidget(self.scores)
        layout.addWidget(self.panels, 1)
        layout.addLayout(actions)

        self.jobs.result_ready.connect(self._on_result)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(self._on_cancelled)
        self._idle()

    # -- jobs ---------------------------------------------------------------------------------

    def _run(self, what: str, fn, *args) -> None:
        if self.jobs.is_running(KEY):
            return
        self._job = what
        self.spinner.setVisible(True)
        self.cancel_button.setEnabled(True)
        for w in (self.mt_panel, self.diar_panel, self.setup):
            w.setEnabled(False)
        for b in (self.pause_button, self.next_button, self.finish_button, self.static_button,
                  self.stop_button):
            b.setEnabled(False)
        self.status.setText({"start": "Starting the system…", "resume":
                             "Restarting the system and replaying your answers…",
                             "pause": "Saving…"}.get(what, "The system is thinking…"))
        self.jobs.submit(KEY, fn, *args)

    @property
    def busy(self) -> bool:
        return self.jobs.is_running(KEY)

    def _idle(self) -> None:
        self.spinner.setVisible(False)
        self.cancel_button.setEnabled(False)
        running = self.live is not None and self.failure is None and not (
            self.snap is not None and self.snap.finished)
        self.setup.setEnabled(self.live is None or not running)
        self.setup.setVisible(self.live is None)
        for w in (self.mt_panel, self.diar_panel):
            w.setEnabled(running)
        self.pause_button.setEnabled(running)
        self.next_button.setEnabled(running)
        self.finish_button.setEnabled(running)
        self.static_button.setVisible(self.failure is not None)
        self.stop_button.setVisible(self.failure is not None)
        self.static_button.setEnabled(self.failure is not None)
        self.stop_button.setEnabled(self.failure is not None)

    @Slot(str, object)
    def _on_result(self, key: str, result: object) -> None:
        if key != KEY:
            return
        what, self._job = self._job, None
        if what == "pause":
            self.live = None
            self.snap = None
            self.panels.setCurrentIndex(0)
            self.out_edit.setText(str(result))
            self.status.setText(f"Paused and saved in {result}. Resume it from there at any "
                                "time: the system is restarted and your answers replayed.")
            self._idle()
            return
        if what in ("start", "resume"):
            self.live, result = result
        if what in ("static", "stop"):
            self.failure = None
        self._show(result)
        self._idle()

    @Slot(str, str)
    def _on_failed(self, key: str, message: str) -> None:
        if key != KEY:
            return
        what, self._job = self._job, None
        for prefix in ("ProtocolFault: ", "ResumeMismatch: ", "SystemFailed: ", "WriteFailed: "):
            message = message.removeprefix(prefix)      # the type says nothing to the expert
        if what in ("start", "resume") or self.live is None:
            self.status.setText(f"Could not {what}: {message}")
            self.live = None
            self._idle()
            return
        self.failure = message
        done = len(self.shown)
        self.status.setText(
            f"<b>The system failed</b>: {message}<br>Your {done} answered step(s) are on disk "
            f"in {self.live.out}; an answer it did not take is kept in live.json. Continue "
            "with the static system, or stop the session.")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self._idle()

    @Slot(str)
    def _on_cancelled(self, key: str) -> None:
        if key != KEY or self._job == "pause":
            return
        self._job_cancelled, self._job = self._job, None
        if self.live is not None:
            # the exchange was cut mid-way: the folder becomes the paused session (the
            # system is ended on a worker; the cancelled job notices within 50 ms)
            # what the expert sent is kept even when the cancel came before the session took it
            submission = self._submission if self._job_cancelled in ("answer", "correct") \
                else None
            self._run("pause", J.pause, self.live, submission)
            self.status.setText("Cancelled: pausing and saving the session…")
        else:
            self.status.setText("Cancelled.")
            self._idle()

    # -- showing ------------------------------------------------------------------------------

    def _show(self, snap) -> None:
        self.snap = snap
        if snap.record is not None:
            s = snap.record.scores[snap.metric]
            self.shown.append((snap.record.step.doc, snap.record.step.step, s[2], s[3]))
        if snap.finished:
            self.panels.setCurrentIndex(0)
            self.status.setText(f"The session is over: the run is in {snap.out} and opens in "
                                "the workbench." + (f" ({snap.note})" if snap.note else ""))
            self.scores.setText(self._history())
            if self._add_bundles is not None and snap.loaded is not None:
                self._add_bundles([snap.loaded])
            self.finished.emit(snap)
            return
        self.panels.setCurrentIndex(1 if snap.task == "mt" else 2)
        panel = self.mt_panel if snap.task == "mt" else self.diar_panel
        font_note = self._check_fonts(snap)
        panel.show_snapshot(snap)
        self.asked_at = time.monotonic()
        last = ""
        if snap.record is not None:
            s = snap.record.scores[snap.metric]
            last = (f" · step {snap.record.step.step}: S_adapt {s[2]:.2f}, S_pen {s[3]:.2f}")
        self.scores.setText(
            f"<b>{snap.doc}</b> ({snap.index + 1}/{snap.n_docs}, {snap.mode}) · "
            f"{snap.steps} step(s) · cost {snap.spent:g} of {snap.budget:g} · "
            f"{snap.metric}" + (f" ({snap.tokenizer})" if snap.tokenizer else "")
            + f": S_base {snap.s_base:.2f}, S_adapt <b>{snap.s_adapt:.2f}</b>, "
            f"S_pen <b>{snap.s_pen:.2f}</b>{last}{self._effort_text(snap)}")
        q = snap.question
        self.status.setTextFormat(Qt.TextFormat.AutoText)
        asks = {"reference": "for the translation of a sentence", "same": "whether two "
                "windows have the same speaker", "boundary": "where a turn starts and ends",
                "name": "who speaks"}
        self.status.setText((snap.note[:1].upper() + snap.note[1:] + ". " if snap.note else "")
                            + (f"Question {q.step}: the system asks {asks.get(q.kind, q.kind)}."
                               if q is not None else
                               "Your turn: correct what you see, or go to the next document.")
                            + (f" {font_note}" if font_note else ""))

    def _check_fonts(self, snap) -> str | None:
        """The fonts for the text this snapshot brings (`llgui.gui.fonts.prepare`, before it
        is painted): the fallbacks registered for what no font draws; the note said once per
        session for what is still missing."""
        from llgui.gui.fonts import prepare

        texts = [snap.doc or "", *snap.hypothesis, *(snap.source or ()), *snap.labels]
        message = prepare(texts).message
        if message is None or message in self.font_notes:
            return None
        self.font_notes.add(message)
        return message

    @staticmethod
    def _effort_text(snap) -> str:
        """Interactive-predictive MT: the effort of the sentences accepted so far."""
        effort = snap.ipmt
        if not effort or not effort.get("sentences"):
            return (" · prefix interaction: Ctrl+Enter sends, Ctrl+Shift+Enter accepts"
                    if snap.prefix_ok and snap.mode == "interactive" else "")
        shown = ", ".join(f"{title} {effort[key]:.1f} %" for key, title in
                          (("wsr", "WSR"), ("ksr", "KSR"), ("mar", "MAR"), ("ksmr", "KSMR"))
                          if effort.get(key) is not None)
        return (f"<br>effort of the {effort['sentences']} sentence(s) accepted "
                f"(Barrachina et al. 2009): {shown}")

    def _history(self) -> str:
        return "<br>".join(f"{d} step {s}: S_adapt {a:.2f}, S_pen {p:.2f}"
                           for d, s, a, p in self.shown[-6:])

    # -- the expert's actions -------------------------------------------------------------------

    def command(self) -> tuple[list[str], str]:
        from llgui.sim.run import parse_system

        spec = parse_system(self.system.currentText(), sys.executable)
        return list(spec.command), spec.name

    def _default_system(self) -> None:
        """A bundle with audio: the system that hears it (unless a command was typed)."""
        bundle = self.bundle_edit.text().strip()
        if bundle and self.system.currentText() in SYSTEMS and names_audio(bundle):
            self.system.setCurrentText(HEARING_SYSTEM)

    def _on_start(self) -> None:
        self._default_system()
        bundle = self.bundle_edit.text().strip()
        if not bundle:
            self.status.setText("Choose a bundle first.")
            return
        out = self.out_edit.text().strip() or str(Path(bundle).resolve().parent / "live-session")
        self.out_edit.setText(out)
        try:
            command, name = self.command()
        except ValueError as error:
            self.status.setText(str(error))
            return
        budget = self.budget.value() or None
        self.shown.clear()
        self.failure = None
        self._run("start", J.start, bundle, command, out, self.mode.currentText(), budget, name)

    def resume_folder(self, folder: str) -> None:
        self.failure = None
        self._run("resume", J.resume, folder)

    def _on_resume_clicked(self) -> None:
        folder = self.out_edit.text().strip()
        if not folder or not (Path(folder) / "live.json").is_file():
            folder = QFileDialog.getExistingDirectory(self, "A paused live session")
        if folder:
            self.resume_folder(folder)

    def _on_submitted(self, kind: str, target, value, keystrokes: int) -> None:
        if self.live is None or self.busy:
            return
        effort = Effort(max(1e-3, time.monotonic() - self.asked_at), keystrokes)
        if self.snap is not None and self.snap.question is not None:
            self._submission = (None, None, value, effort)
            self._run("answer", J.answer, self.live, value, effort)
        else:
            self._submission = (kind, target, value, effort)
            self._run("correct", J.correct, self.live, kind, target, value, effort)

    def _on_prefix(self, sentence: int, prefix: str, typed: str, keystrokes: int) -> None:
        """Interactive-predictive MT: the validated prefix and the typed word (or, typed "",
        the accepted sentence) to the system."""
        if self.live is None or self.busy:
            return
        effort = Effort(max(1e-3, time.monotonic() - self.asked_at), keystrokes)
        self._run("prefix", J.prefix, self.live, sentence, prefix, typed, "word", effort)

    def _on_pause(self) -> None:
        if self.live is not None:
            self._run("pause", J.pause, self.live)

    def _on_static(self) -> None:
        from llgui.sim.run import parse_system

        spec = parse_system("static", sys.executable)
        self._run("static", J.switch, self.live, list(spec.command), "static")

    def _on_cancel(self) -> None:
        self.jobs.cancel(KEY)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Quit = pause: the folder keeps the session for a later Resume."""
        if self.jobs.is_running(KEY):
            self.jobs.cancel(KEY)
        elif self.live is not None and not (self.snap and self.snap.finished):
            self.live.pause()
            self.live = None
        super().closeEvent(event)
