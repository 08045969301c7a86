"""The question panels of a live session: MT (the sentences, the editor) and diarization (the
timeline with the windows to listen to, the region to drag, Yes/No, the speaker name).

A panel shows a `Snapshot` and emits `submitted(kind, target, value, keystrokes)` when the
expert answers; it counts the keys typed into its editors since the question appeared.

The diarization panel plays what it asks about when the document has audio (`audio = ...` in
the bundle): the window of a `name`, windows A then B of a `same`, the purple region of a
`boundary` or of the interactive mode. ▶ Play (key P) plays or stops; a red playhead runs over
the timeline (`llgui.gui.audio.AudioPlayer`).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut, QTextCharFormat
from PySide6.QtWidgets import (
    QComboBox, QHBoxLayout, QLabel, QListWidget, QPlainTextEdit, QPushButton, QVBoxLayout,
    QWidget,
)

from llgui.core.display.palette import speaker_colours
from llgui.gui.widgets.speaker_brush import fill_brush, pattern_brush
from llgui.core.types import PointTarget, SentenceTarget

WINDOW_BRUSHES = ((255, 170, 0, 90), (0, 160, 255, 90))


MODIFIERS = {Qt.Key.Key_Shift, Qt.Key.Key_Control, Qt.Key.Key_Alt, Qt.Key.Key_Meta,
             Qt.Key.Key_AltGr}


class KeyCounter(QObject):
    """Counts key presses reaching the widgets it is installed on (a modifier alone is not a
    keystroke: Ctrl+A counts once)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.count = 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if (event.type() == QEvent.Type.KeyPress and not event.isAutoRepeat()
                and event.key() not in MODIFIERS):
            self.count += 1
        return False


class PrefixKeys(QObject):
    """Ctrl+Enter and Ctrl+Shift+Enter in the editor (interactive-predictive MT)."""

    def __init__(self, on_prefix, on_accept, parent=None):
        super().__init__(parent)
        self.on_prefix, self.on_accept = on_prefix, on_accept

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return False
        if event.key() not in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            return False
        modifiers = event.modifiers()
        if not modifiers & Qt.KeyboardModifier.ControlModifier:
            return False
        if event.type() == QEvent.Type.KeyPress and not event.isAutoRepeat():
            (self.on_accept if modifiers & Qt.KeyboardModifier.ShiftModifier
             else self.on_prefix)()
        return True


class MTPanel(QWidget):
    """The document's sentences (select one in interactive mode), its source, and an editor
    filled with the hypothesis the expert corrects or translates.

    With a system that takes the prefix interaction (interactive-predictive MT, protocol 1.2)
    the expert works at the cursor: the words before it are the validated prefix and the
    word typed last; Ctrl+Enter sends them (`prefix_submitted`), the system's completion
    fills the rest and the cursor waits after the typed word; Ctrl+Shift+Enter accepts the
    sentence as the editor holds it."""

    submitted = Signal(str, object, object, int)
    prefix_submitted = Signal(int, str, str, int)   # sentence, prefix, typed ("" = accept), keys

    def __init__(self, parent=None):
        super().__init__(parent)
        self.snapshot = None
        self.sentences = QListWidget()
        self.sentences.setAlternatingRowColors(True)
        self.sentences.currentRowChanged.connect(self._on_row)
        self.source = QLabel()
        self.source.setWordWrap(True)
        self.source.setStyleSheet("color: #555;")
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        font = self.prompt.font()
        font.setBold(True)
        self.prompt.setFont(font)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFont("DejaVu Sans", 11))
        self.editor.setMaximumHeight(90)
        self.keys = KeyCounter(self)
        self.editor.installEventFilter(self.keys)
        self.send = QPushButton("Send translation")
        self.send.setDefault(True)
        self.send.clicked.connect(self._on_send)
        self.send_prefix = QPushButton("Send prefix and word (Ctrl+Enter)")
        self.send_prefix.setToolTip("the words before the cursor are right, the last one "
                                    "typed by you: the system completes the sentence")
        self.send_prefix.clicked.connect(self._on_prefix)
        self.accept = QPushButton("Accept sentence (Ctrl+Shift+Enter)")
        self.accept.clicked.connect(self._on_accept)
        # the editor's own keys, ahead of its text control (which would take Ctrl+Return)
        self.prefix_keys = PrefixKeys(self._on_prefix, self._on_accept, self)
        self.editor.installEventFilter(self.prefix_keys)
        self._cursor_at: tuple[int, int] | None = None   # (sentence, position) after a reply
        layout = QVBoxLayout(self)
        layout.addWidget(self.sentences, 1)
        layout.addWidget(self.prompt)
        layout.addWidget(self.source)
        layout.addWidget(self.editor)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.send_prefix)
        row.addWidget(self.accept)
        row.addWidget(self.send)
        layout.addLayout(row)

    def show_snapshot(self, snap) -> None:
        self.snapshot = snap
        kept = self.sentences.currentRow() if self.prefix_mode else -1
        self.sentences.blockSignals(True)
        self.sentences.clear()
        accepted = getattr(snap, "accepted", frozenset())
        for i, line in enumerate(snap.hypothesis, 1):
            mark = "\u2713" if i in accepted else " "
            self.sentences.addItem(f"{i:>3} {mark} {line}")
            if i in accepted:   # finished by the expert (interactive-predictive MT)
                self.sentences.item(i - 1).setBackground(QColor(214, 240, 214))
        if 0 <= kept < len(snap.hypothesis):   # the sentence the expert is completing
            self.sentences.setCurrentRow(kept)
        self.sentences.blockSignals(False)
        q = snap.question
        interactive = snap.mode == "interactive"
        # active: the list is read, not chosen from; the asked sentence stands out
        self.sentences.setSelectionMode(
            QListWidget.SelectionMode.SingleSelection if interactive
            else QListWidget.SelectionMode.NoSelection)
        if q is not None:
            n = q.target.sentence
            item = self.sentences.item(n - 1)
            item.setBackground(QColor(255, 214, 102))
            font = item.font()
            font.setBold(True)
            item.setFont(font)
            self.sentences.setCurrentRow(n - 1)
            self.sentences.scrollToItem(item, QListWidget.ScrollHint.PositionAtCenter)
            self.prompt.setText(f"The system asks for the translation of sentence {n}: "
                                "type it over its hypothesis.")
            self._fill(n)
            self.send.setText("Send translation")
        elif interactive:
            self.prompt.setText(
                "Pick a sentence. Put the cursor after the last right word, type the next "
                "word, Ctrl+Enter: the system completes the sentence; Ctrl+Shift+Enter "
                "accepts it." if self.prefix_mode else
                "Pick a sentence, correct it, send the post-edit.")
            self.send.setText("Send post-edit")
            row = self.sentences.currentRow()
            self._fill(row + 1 if row >= 0 else None)
        for button in (self.send_prefix, self.accept):
            button.setVisible(self.prefix_mode)
        self.keys.count = 0
        self.editor.setFocus()

    def _fill(self, n: int | None) -> None:
        snap = self.snapshot
        if n is None or not 1 <= n <= len(snap.hypothesis):
            self.editor.setPlainText("")
            self.source.setText("")
            return
        self.editor.setCurrentCharFormat(QTextCharFormat())   # no colour carried over
        self.editor.setPlainText(snap.hypothesis[n - 1])
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        if self._cursor_at is not None and self._cursor_at[0] == n:   # after the typed word
            line, position = snap.hypothesis[n - 1], self._cursor_at[1]
            position += line[position:position + 1] == " "   # and the completion's space
            cursor.setPosition(min(position, len(line)))
            done = self.editor.textCursor()   # what the expert fixed: prefix and typed word
            done.setPosition(0)
            done.setPosition(cursor.position(), done.MoveMode.KeepAnchor)
            fixed = QTextCharFormat()
            fixed.setForeground(QColor(0, 110, 0))
            fixed.setFontWeight(QFont.Weight.Bold)
            done.mergeCharFormat(fixed)
        self._cursor_at = None
        self.editor.setTextCursor(cursor)
        self.editor.setCurrentCharFormat(QTextCharFormat())   # what is typed next is plain
        if snap.source:
            self.source.setText(f"source: {snap.source[n - 1]}")

    @property
    def prefix_mode(self) -> bool:
        snap = self.snapshot
        return bool(snap is not None and snap.mode == "interactive"
                    and getattr(snap, "prefix_ok", False))

    def _on_prefix(self) -> None:
        row = self.sentences.currentRow()
        if not self.prefix_mode or row < 0:
            return
        before = self.editor.toPlainText()[:self.editor.textCursor().position()].split()
        if not before:
            return
        prefix = "".join(word + " " for word in before[:-1])
        typed = before[-1]
        self._cursor_at = (row + 1, len(prefix) + len(typed))   # after the typed word
        self.prefix_submitted.emit(row + 1, prefix, typed, self.keys.count)

    def _on_accept(self) -> None:
        row = self.sentences.currentRow()
        if not self.prefix_mode or row < 0:
            return
        text = " ".join(self.editor.toPlainText().split())
        if text:
            self.prefix_submitted.emit(row + 1, text, "", self.keys.count)

    def _on_row(self, row: int) -> None:
        if self.snapshot is not None and self.snapshot.mode == "interactive" and row >= 0:
            self._fill(row + 1)
            self.keys.count = 0

    def _on_send(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        text = " ".join(self.editor.toPlainText().split())
        if not text:
            return
        if snap.question is not None:
            self.submitted.emit("reference", snap.question.target, text, self.keys.count)
        elif snap.mode == "interactive" and self.sentences.currentRow() >= 0:
            target = SentenceTarget(self.sentences.currentRow() + 1)
            self.submitted.emit("post_edit", target, text, self.keys.count)


class DiarPanel(QWidget):
    """The timeline: the hypothesis' turns, one row per speaker; the windows of a `same` in
    colour; a region whose two edges the expert drags (`boundary`, interactive selection)."""

    submitted = Signal(str, object, object, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.snapshot = None
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        font = self.prompt.font()
        font.setBold(True)
        self.prompt.setFont(font)
        from llgui.gui.workbench.diar_axes import TimeAxis

        # the document's clock, as the workbench's timeline and the question ("t = 8:50.1")
        # write it, not raw seconds
        self.plot = pg.PlotWidget(background="w",
                                  axisItems={"bottom": TimeAxis(orientation="bottom")})
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.getAxis("bottom").setLabel("time (m:ss)")
        self.plot.setMinimumHeight(220)
        self.windows: list = []
        self.region = pg.LinearRegionItem(values=(0, 1), movable=True,
                                          brush=pg.mkBrush(150, 90, 220, 45))
        for line in self.region.lines:
            line.setPen(pg.mkPen((110, 40, 190), width=3))
            line.setHoverPen(pg.mkPen((200, 40, 40), width=5))
        self.region.setZValue(10)
        self.plot.addItem(self.region)
        self.region.setVisible(False)
        self.region.sigRegionChanged.connect(self._on_region)
        self.edges = QLabel()
        self.yes = QPushButton("&Yes, same speaker")
        self.no = QPushButton("&No, different")
        self.send_boundary = QPushButton("Send the turn's edges")
        self.speaker_label = QLabel("speaker:")
        self.name = QComboBox()
        self.name.setEditable(True)
        self.name.setMinimumWidth(140)
        self.send_name = QPushButton("Send the speaker's name")
        from llgui.gui.audio import AudioPlayer

        self.player = AudioPlayer(self)
        self.play = QPushButton("\u25b6 Play (P)")
        self.play.setToolTip("play what the question is about: the window, windows A then B, "
                             "or the purple region (P plays and stops)")
        self.play.clicked.connect(self.toggle_play)
        self.audio_note = QLabel("")
        self.audio_note.setStyleSheet("color: #555;")
        self.play_key = QShortcut(QKeySequence("P"), self)
        # the window's: P works wherever the focus is (a text field keeps its typed p)
        self.play_key.setContext(Qt.ShortcutContext.WindowShortcut)
        self.play_key.activated.connect(self.toggle_play)
        self.playhead = pg.InfiniteLine(0.0, angle=90, pen=pg.mkPen("#d00000", width=2))
        self.playhead.setZValue(30)
        self.playhead.setVisible(False)
        self.plot.addItem(self.playhead, ignoreBounds=True)
        self.player.position.connect(self._on_position)
        self.player.message.connect(self.audio_note.setText)
        self.player.playing.connect(
            lambda on: self.play.setText("\u25a0 Stop (P)" if on else "\u25b6 Play (P)"))
        self.keys = KeyCounter(self)
        self.name.installEventFilter(self.keys)
        self.name.lineEdit().installEventFilter(self.keys)
        self.yes.clicked.connect(lambda: self._emit("same", True))
        self.no.clicked.connect(lambda: self._emit("same", False))
        self.send_boundary.clicked.connect(self._on_boundary)
        self.send_name.clicked.connect(self._on_name)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addWidget(self.plot, 1)
        row = QHBoxLayout()
        for w in (self.play, self.yes, self.no, self.send_boundary, self.edges,
                  self.speaker_label, self.name, self.send_name):
            row.addWidget(w)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.audio_note)

    # -- listening ------------------------------------------------------------------------------

    def listen_spans(self) -> list[tuple[float, float]]:
        """What ▶ Play plays: the question's window(s), else the purple region."""
        snap = self.snapshot
        if snap is None:
            return []
        q, w = snap.question, snap.window
        if q is not None and q.kind == "same":
            spans = [(q.target.t1 - w / 2, q.target.t1 + w / 2)]
            if q.target.doc2 in (None, snap.doc):
                spans.append((q.target.t2 - w / 2, q.target.t2 + w / 2))
            return spans
        if q is not None and q.kind == "name":
            return [(q.target.t - w / 2, q.target.t + w / 2)]
        if self.region.isVisible():
            return [tuple(self.region.getRegion())]
        return []

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        self.player.stop()

    def toggle_play(self) -> None:
        if self.player.is_playing:
            self.player.stop()
        elif self.snapshot is not None:
            self.player.play(self.snapshot.audio, self.listen_spans())

    def _on_position(self, t: float) -> None:
        self.playhead.setVisible(t >= 0)
        if t >= 0:
            self.playhead.setValue(t)

    # -- drawing --------------------------------------------------------------------------------

    def show_snapshot(self, snap) -> None:
        self.player.stop()
        self.snapshot = snap
        has_audio = getattr(snap, "audio", None) is not None
        self.play.setEnabled(has_audio)
        self.play_key.setEnabled(has_audio)
        if not has_audio:
            self.audio_note.setText("no audio for this document (audio = \"file.wav\" in "
                                    "the bundle plays what you are asked about)")
        elif not self.player.is_playing:
            a = snap.audio
            self.audio_note.setText(f"audio: {a.duration:.1f} s, {a.rate} Hz · P plays "
                                    "what you are asked about")
        bottom = self.plot.getAxis("bottom")
        hours = snap.extent[1] >= 3600
        if bottom.hours != hours:   # an hour's recording: h:mm:ss at every zoom
            bottom.hours = hours
            bottom.setLabel("time (h:mm:ss)" if hours else "time (m:ss)")
        for item in self.windows:
            self.plot.removeItem(item)
        self.windows = []
        labels = list(snap.labels)
        rows = {label: i for i, label in enumerate(labels)}
        colors = speaker_colours(labels)
        for label in labels:
            turns = [t for t in snap.hypothesis if t.speaker == label]
            for brush in (fill_brush(colors[label]), pattern_brush(colors[label])):
                if brush is None:
                    continue   # a plain speaker: its colour only
                bars = pg.BarGraphItem(x0=[t.start for t in turns],
                                       width=[t.end - t.start for t in turns],
                                       y0=[rows[label] + 0.15] * len(turns), height=0.7,
                                       brush=brush, pen=pg.mkPen(None))
                self.plot.addItem(bars)
                self.windows.append(bars)
        axis = self.plot.getAxis("left")
        axis.setTicks([[(i + 0.5, label) for label, i in rows.items()]])
        self.plot.setYRange(0, max(1, len(labels)), padding=0.05)
        self.name.clear()
        self.name.addItems(labels)
        q = snap.question
        kind = q.kind if q is not None else None
        for w in (self.yes, self.no):
            w.setVisible(kind == "same")
        interactive = snap.mode == "interactive"
        self.send_boundary.setVisible(kind == "boundary" or interactive)
        self.edges.setVisible(kind == "boundary" or interactive)
        for w in (self.speaker_label, self.name, self.send_name):
            w.setVisible(kind == "name" or interactive)
        w = snap.window
        if kind == "same":
            t1, t2 = q.target.t1, q.target.t2
            other = q.target.doc2 not in (None, snap.doc)
            self._window(t1, w, 0, "A")
            if not other:
                self._window(t2, w, 1, "B")
            self.region.setVisible(False)
            where = f" in show {q.target.doc2}" if other else ""
            self.prompt.setText(f"Listen to A ({_clock(t1)}) and B ({_clock(t2)}{where}): is it "
                                "the same speaker?")
            a, b = (min(t1, t2), max(t1, t2)) if not other else (t1, t1)
            self._zoom(a, b, max(3 * w, 0.06 * (b - a)))
        elif kind == "boundary":
            start, end = self._turn_around(q.target.t, w)
            self.region.setRegion((start, end))
            self.region.setVisible(True)
            self._window(q.target.t, 0.05, 0, "")
            self.prompt.setText(f"Where does the turn at {_clock(q.target.t)} start and end? "
                                "Drag the two purple edges onto them, then send.")
            self._zoom(start, end, 3 * w)
        elif kind == "name":
            self._window(q.target.t, w, 0, "?")
            self.region.setVisible(False)
            self.prompt.setText(f"Who speaks at {_clock(q.target.t)}? Pick or type a name.")
            self._zoom(q.target.t, q.target.t, 3 * w)
        else:
            lo, hi = snap.extent
            mid = lo + (hi - lo) / 2 if hi > lo else 0.0
            if not self.region.isVisible():
                self.region.setRegion((mid - w, mid + w))
            self.region.setVisible(interactive)
            self.prompt.setText("Drag the purple region's two edges onto a turn's start and "
                                "end and send them, or name who speaks there."
                                if interactive else "")
            if interactive:
                a, b = self.region.getRegion()
                self._zoom(a, b, 6 * w)
        self.keys.count = 0

    def _window(self, t: float, w: float, which: int, text: str) -> None:
        item = pg.LinearRegionItem(values=(t - w / 2, t + w / 2), movable=False,
                                   brush=pg.mkBrush(*WINDOW_BRUSHES[which]))
        for line in item.lines:
            line.setPen(pg.mkPen(WINDOW_BRUSHES[which][:3], width=2))
        self.plot.addItem(item)
        self.windows.append(item)
        if text:
            label = pg.TextItem(text, color=(255, 255, 255), anchor=(0.5, 0),
                                fill=pg.mkBrush(*WINDOW_BRUSHES[which][:3]))
            label.setFont(QFont("DejaVu Sans", 12, QFont.Weight.Bold))
            label.setPos(t, max(1, len(self.snapshot.labels)) - 0.02)
            label.setZValue(20)
            self.plot.addItem(label)
            self.windows.append(label)

    def _on_region(self) -> None:
        a, b = self.region.getRegion()
        self.edges.setText(f"{_clock(a, 2)} – {_clock(b, 2)} ({b - a:.2f} s)")

    def _zoom(self, a: float, b: float, margin: float) -> None:
        self.plot.setXRange(a - margin, b + margin, padding=0)

    def _turn_around(self, t: float, w: float) -> tuple[float, float]:
        for turn in self.snapshot.hypothesis:
            if turn.start <= t < turn.end:
                return turn.start, turn.end
        return t - w, t + w

    # -- answers --------------------------------------------------------------------------------

    def _emit(self, kind: str, value) -> None:
        snap = self.snapshot
        if snap is None:
            return
        self.player.stop()
        if snap.question is not None:
            self.submitted.emit(kind, snap.question.target, value, self.keys.count)
            return
        a, b = self.region.getRegion()
        self.submitted.emit(kind, PointTarget((a + b) / 2), value, self.keys.count)

    def _on_boundary(self) -> None:
        a, b = self.region.getRegion()
        if b > a:
            self._emit("boundary", [float(a), float(b)])

    def _on_name(self) -> None:
        label = self.name.currentText().strip()
        if label:
            self._emit("name", label)


def _clock(seconds: float, decimals: int = 1) -> str:
    """A time as the workbench writes it: m:ss.s (h:mm:ss.s from an hour), not raw seconds
    ("A (96.0 s)" read as nothing next to the workbench's 1:36.0)."""
    from llgui.core.display.layout import format_time

    return format_time(seconds, decimals)
