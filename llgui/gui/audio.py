"""Playing regions of a document's recording, without ever blocking the event loop.

`AudioPlayer.play(audio, spans)` plays the time spans in order. The samples come from the
file (`llgui.io.audio.AudioReader`, 16-bit PCM) through `RegionSource`, a QIODevice that reads
the region in small pieces as they are asked for: Qt's `QAudioSink` pulls them in pull mode,
so nothing is decoded ahead and no call waits for the sound card.

Without an output device (a server, the offscreen tests; `QMediaDevices.defaultAudioOutput()`
is null there) or without QtMultimedia (PySide6-Addons), the player says so once through
`message` and a clock takes the sink's place: every tick it pulls from the same
`RegionSource` as many frames as real time has run, so the playhead moves as it would with
sound and the samples pulled are those a sound card would have been handed. With
`keep_samples = True` each region's samples are kept in `played` ((start, end, bytes)), so a
test decodes the file itself and compares.

Signals: `position(seconds)` about 40 times a second while playing, `playing(bool)`,
`message(str)` for the status bar.
"""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QIODevice, QObject, QTimer, Signal

from llgui.core.types import Audio
from llgui.io.audio import AudioError, AudioReader, frame_range

TICK_MS = 25
PIECE_FRAMES = 4096
"""At most this many frames are read per pull (~0.1-0.25 s): a read never takes long."""
NO_DEVICE = ("no audio output device here: the playhead moves in real time but nothing is "
             "heard")
NO_MULTIMEDIA = ("QtMultimedia is not installed (pip install PySide6-Addons): the playhead "
                 "moves in real time but nothing is heard")


class RegionSource(QIODevice):
    """Frames [first, last) of a recording as 16-bit PCM, read from the file as pulled."""

    def __init__(self, reader: AudioReader, first: int, last: int, keep: bytearray | None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.reader, self.first, self.last = reader, first, last
        self.next = first
        self.frame_bytes = 2 * reader.audio.channels
        self.keep = keep
        self.failure: str | None = None

    @property
    def done(self) -> int:
        """Frames handed out so far."""
        return self.next - self.first

    def pull(self, frames: int) -> bytes:
        frames = max(0, min(frames, PIECE_FRAMES, self.last - self.next))
        if frames == 0 or self.failure is not None:
            return b""
        try:
            data = self.reader.read(self.next, frames)
        except AudioError as exc:
            self.failure = str(exc)
            return b""
        self.next += len(data) // self.frame_bytes
        if self.keep is not None:
            self.keep.extend(data)
        return data

    # -- QIODevice ------------------------------------------------------------------------
    def readData(self, maxlen: int) -> bytes:  # noqa: N802 - Qt's name
        return self.pull(int(maxlen) // self.frame_bytes)

    def writeData(self, data) -> int:  # noqa: N802 - Qt's name
        return -1

    def bytesAvailable(self) -> int:  # noqa: N802 - Qt's name
        return (self.last - self.next) * self.frame_bytes + super().bytesAvailable()

    def isSequential(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def atEnd(self) -> bool:  # noqa: N802 - Qt's name
        return self.next >= self.last


def output_device():
    """The default audio output (a QAudioDevice), or (None, why) when there is none."""
    try:
        from PySide6.QtMultimedia import QMediaDevices
    except ImportError:
        return None, NO_MULTIMEDIA
    device = QMediaDevices.defaultAudioOutput()
    if device.isNull():
        return None, NO_DEVICE
    return device, ""


class AudioPlayer(QObject):
    """Plays spans of a recording in order (see the module text)."""

    position = Signal(float)
    playing = Signal(bool)
    message = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.keep_samples = False
        self.played: list[tuple[float, float, bytes]] = []
        self.current = -1.0          # the playhead, seconds; -1 when stopped
        self._queue: list[tuple[float, float]] = []
        self._audio: Audio | None = None
        self._reader: AudioReader | None = None
        self._source: RegionSource | None = None
        self._span: tuple[float, float] = (0.0, 0.0)
        self._sink = None
        self._said = False
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._device, self._why = (None, "")
        self._looked = False
        self._drained = False

    @property
    def is_playing(self) -> bool:
        return self._source is not None

    def play(self, audio: Audio | None, spans) -> bool:
        """Play `spans` ((start, end) seconds) of `audio` in order; False (and a message)
        when there is nothing to play."""
        self.stop()
        if audio is None:
            self.message.emit("this document has no audio")
            return False
        spans = [(max(0.0, float(a)), min(audio.duration, float(b))) for a, b in spans]
        spans = [(a, b) for a, b in spans if b > a]
        if not spans:
            self.message.emit("nothing to play: the region is outside the recording")
            return False
        try:
            self._reader = AudioReader(audio)
        except AudioError as exc:
            self.message.emit(f"audio file {audio.path}: {exc}")
            return False
        self._audio = audio
        self._queue = spans
        self.played = []
        self._next_region()
        self.playing.emit(True)
        return True

    def toggle(self, audio: Audio | None, spans) -> None:
        if self.is_playing:
            self.stop()
        else:
            self.play(audio, spans)

    def stop(self) -> None:
        self._timer.stop()
        was = self._source is not None
        self._end_region()
        self._queue = []
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self.current = -1.0
        if was:
            self.playing.emit(False)
            self.position.emit(-1.0)

    # -- one region after the other ------------------------------------------------------------
    def _next_region(self) -> None:
        if not self._queue:
            self.stop()
            return
        self._end_region()
        audio = self._audio
        start, end = self._queue.pop(0)
        first, last = frame_range(audio, start, end)
        keep = bytearray() if self.keep_samples else None
        self._span = (first / audio.rate, last / audio.rate)
        self._source = RegionSource(self._reader, first, last, keep, self)
        self._source.open(QIODevice.OpenModeFlag.ReadOnly)
        self._drained = False
        self._sink = self._open_sink(audio)
        if self._sink is not None:
            self._sink.start(self._source)
        self._clock.start()
        self.current = self._span[0]
        self.position.emit(self.current)
        self._timer.start()

    def _end_region(self) -> None:
        source = self._source
        if source is None:
            return
        if self._sink is not None:
            self._sink.stop()
            self._sink.deleteLater()
            self._sink = None
        if source.keep is not None:
            start = source.first / self._audio.rate
            self.played.append((start, start + source.done / self._audio.rate,
                                bytes(source.keep)))
        source.close()
        source.deleteLater()
        self._source = None

    def _open_sink(self, audio: Audio):
        if not self._looked:
            self._device, self._why = output_device()
            self._looked = True
        if self._device is None:
            self._say(self._why)
            return None
        from PySide6.QtMultimedia import QAudio, QAudioFormat, QAudioSink

        fmt = QAudioFormat()
        fmt.setSampleRate(audio.rate)
        fmt.setChannelCount(audio.channels)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        if not self._device.isFormatSupported(fmt):
            self._say(f"the audio output cannot play {audio.rate} Hz, {audio.channels} "
                      "channel(s): the playhead moves in real time but nothing is heard")
            return None
        sink = QAudioSink(self._device, fmt, self)
        sink.stateChanged.connect(lambda state, s=sink: self._on_sink_state(s, state, QAudio))
        return sink

    def _say(self, text: str) -> None:
        if not self._said:
            self._said = True
            self.message.emit(text)

    def _on_sink_state(self, sink, state, QAudio) -> None:  # noqa: N803 - the module
        if sink is not self._sink:
            return
        if state == QAudio.State.IdleState and self._source is not None \
                and self._source.atEnd():
            self._drained = True   # the sink played everything it was handed
        if state == QAudio.State.StoppedState and sink.error() != QAudio.Error.NoError:
            # the device went away mid-way: the clock plays on from where the sink was
            self._say(f"the audio output failed ({sink.error().name}): the playhead moves "
                      "in real time but nothing is heard")
            self._sink = None
            sink.deleteLater()

    def _tick(self) -> None:
        source, audio = self._source, self._audio
        if source is None or audio is None:
            self._timer.stop()
            return
        if source.failure is not None:
            self.message.emit(f"audio file {audio.path}: {source.failure}")
            self.stop()
            return
        start = source.first / audio.rate
        total = source.last - source.first
        if self._sink is None:
            # the clock: pull what real time has consumed since the region started
            due = min(total, int(self._clock.elapsed() * audio.rate / 1000.0))
            while source.done < due and source.failure is None:
                if not source.pull(due - source.done):
                    break
            played = source.done
            finished = played >= total
        else:
            played = min(source.done, int(self._sink.processedUSecs() * audio.rate / 1e6))
            finished = self._drained or (source.atEnd() and played >= total)
        self.current = start + played / audio.rate
        self.position.emit(self.current)
        if finished:
            self._next_region()
