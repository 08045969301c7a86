"""The workbench's audio bar: hear what the human listened to at a step, or any region.

Above the diarization timeline: Play the step's listened windows (all in order, or the one
picked in the list), Play the region Shift+dragged on the timeline, Stop, and where the
playhead is. Key: Space plays the selection if there is one, else the listened windows, and
stops when playing (Esc stays Cancel background jobs). The playhead is drawn over
the timeline (`DiarView.set_playhead`). A document without usable audio keeps the bar
disabled with the reason; the player's messages (no output device, a file that changed) go
to the status bar. The bar is shown only for a document with a recording.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractButton, QApplication, QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy,
    QStyle, QWidget,
)

from llgui.core.display.layout import format_time
from llgui.gui.audio import AudioPlayer

NO_AUDIO = "no audio for this document"
NO_AUDIO_TIP = ("give the document its recording with audio = \"recording.wav\" in the bundle "
                "(PCM WAV or FLAC); a file that cannot be played is named in the status bar "
                "when the bundle opens")


class AudioBar(QWidget):
    """The controls (see the module text); `show_step(walk, step)` follows the workbench."""

    def __init__(self, view, say=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        self.say = say or (lambda text: None)
        self.player = AudioPlayer(self)
        self.player.position.connect(self._on_position)
        self.player.playing.connect(self._on_playing)
        self.player.message.connect(lambda text: self.say(text))
        self.audio = None
        self.windows: tuple = ()
        self.selection: tuple[float, float] | None = None
        self._doc = None
        self._shown: tuple = ()
        icons = QStyle.StandardPixmap
        self.play_windows = QPushButton(self.style().standardIcon(icons.SP_MediaPlay),
                                        "Listened windows")
        self.play_windows.setToolTip("play the windows the human listened to at this step "
                                     "(Space when nothing is selected)")
        self.which = QComboBox()
        self.which.setToolTip("all the step's windows in order, or one of them")
        self.play_selection = QPushButton(self.style().standardIcon(icons.SP_MediaPlay),
                                          "Selection")
        self.play_selection.setToolTip("play the region Shift+dragged on the timeline (Space)")
        self.stop_button = QPushButton(self.style().standardIcon(icons.SP_MediaStop), "")
        self.stop_button.setToolTip("stop (Space)")
        self.stop_button.setFixedWidth(34)
        self.where = QLabel(NO_AUDIO)
        # the label never widens the window: a long text is cut at the bar's right edge
        self.where.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for b in (self.play_windows, self.which, self.play_selection, self.stop_button):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.play_windows.clicked.connect(self.play_listened)
        self.play_selection.clicked.connect(self.play_selected)
        self.stop_button.clicked.connect(self.player.stop)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("audio"))
        for w in (self.play_windows, self.which, self.play_selection, self.stop_button):
            layout.addWidget(w)
        layout.addWidget(self.where, 1)
        view.selection_changed.connect(self._on_selection)
        self.shortcuts = []
        for key, slot in (("Space", self.toggle),):   # (Esc is Cancel background jobs)
            shortcut = QShortcut(QKeySequence(key), view)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)
            self.shortcuts.append(shortcut)
        self._enable()

    # -- following the workbench ------------------------------------------------------------
    def show_step(self, walk, step: int) -> None:
        doc = walk.document
        if (doc, step) != self._shown:   # another step: what was playing was about the last one
            self.player.stop()
            self._shown = (doc, step)
        if doc is not self._doc:
            self.player.stop()
            self._doc = doc
            self.audio = getattr(doc, "audio", None)
            self.view.clear_selection()
            # only a document with a recording gives the bar a line of the timeline's height
            self.setVisible(self.audio is not None)
        view = walk.steps[step - 1] if step > 0 else None
        windows = tuple(view.windows) if view is not None else ()
        if windows != self.windows:
            self.windows = windows
            self.which.clear()
            if windows:
                self.which.addItem(f"all {len(windows)} in order" if len(windows) > 1
                                   else "the window")
                if len(windows) > 1:
                    for k, (a, b) in enumerate(windows, 1):
                        self.which.addItem(f"{k}: {format_time(a)}–{format_time(b)}")
        self._enable()

    def _enable(self) -> None:
        has = self.audio is not None
        self.play_windows.setEnabled(has and bool(self.windows))
        self.which.setEnabled(has and len(self.windows) > 1)
        self.which.setVisible(len(self.windows) > 1)
        self.play_selection.setEnabled(has and self.selection is not None)
        self.stop_button.setEnabled(self.player.is_playing)
        for shortcut in self.shortcuts:
            shortcut.setEnabled(has and self.isVisible())
        if not self.player.is_playing:
            self.where.setText(self._idle_text())
        self.where.setToolTip(NO_AUDIO_TIP if self.audio is None else "")

    def _idle_text(self) -> str:
        if self.audio is None:
            return NO_AUDIO
        a = self.audio
        text = (f"{a.duration:.1f} s, {a.rate} Hz, {a.channels} ch · Space: play/stop, "
                "Shift+drag: select")
        if self.selection is not None:
            s, e = self.selection
            text = f"selected {format_time(s, 1)}–{format_time(e, 1)} · " + text
        return text

    # -- playing -----------------------------------------------------------------------------
    def spans_listened(self) -> list[tuple[float, float]]:
        k = self.which.currentIndex()
        if k <= 0 or len(self.windows) <= 1:
            return list(self.windows)
        return [self.windows[k - 1]]

    def play_listened(self) -> bool:
        return self.player.play(self.audio, self.spans_listened()) if self.windows else False

    def play_selected(self) -> bool:
        return self.player.play(self.audio, [self.selection]) if self.selection else False

    def toggle(self) -> None:
        """Space: play or stop. A focused button, check box or list keeps its own Space (the
        shortcut is the window's, so it reaches them first)."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QAbstractButton) and focus.isVisible() and focus.isEnabled():
            focus.animateClick()
            return
        if isinstance(focus, QComboBox) and focus.isVisible():
            focus.showPopup()
            return
        if self.player.is_playing:
            self.player.stop()
        elif self.selection is not None:
            self.play_selected()
        else:
            self.play_listened()

    def _on_selection(self, region) -> None:
        self.selection = tuple(region) if region and region[1] > region[0] else None
        self._enable()

    def _on_position(self, t: float) -> None:
        self.view.set_playhead(t if t >= 0 else None)
        if t >= 0:
            self.where.setText(f"▶ {format_time(t, 1)}")

    def _on_playing(self, playing: bool) -> None:
        self._enable()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._enable()

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        self.player.stop()
        self._enable()
