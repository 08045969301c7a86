"""Playing regions of a document's recording, without ever blocking the event loop.

`AudioPlayer.play(audio, spans)` plays the time spans in order. The samples come from the
file (`llgui.io.audio.AudioReader`, 16-bit PCM) through `RegionSource`, a QIODevice that reads
the spans one after the other in small pieces as they are asked for: one `QAudioSink` pulls
them in pull mode, so nothing is decoded ahead, no call waits for the sound card, and the
spans follow each other without a new device start between them.

Without an output device (a server, the offscreen tests; `QMediaDevices.defaultAudioOutput()`
is null there) or without QtMultimedia (PySide6-Addons), the player says so once through
`message` and a clock takes the sink's place: every tick it pulls from the same
`RegionSource` as many frames as real time has run, so the playhead moves as it would with
sound and the samples pulled are those a sound card would have been handed. With
`keep_samples = True` each span's samples are kept in `played` ((start, end, bytes)), so a
test decodes the file itself and compares. `clock_speed` (1.0: real time) is how fast the clock
runs; the tests run it faster, since without a device nothing is heard. The playhead is where the frames the device has
taken (`processedUSecs`), or the clock, fall in the spans.

Signals: `position(seconds)` about 40 times a second while playing, `playing(bool)`,
`message(str)` for the status bar.
"""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QIODevice, QObject, QTimer, Signal

from llgui.core.types import Audio
from llgui.io.audio import AudioError, AudioReader, frame_range

TICK_MS = 25
BUFFER_S = 0.2
PIECE_FRAMES = 4096
"""At most this many frames are read per pull (~0.1-0.25 s): a read never takes long."""
NO_DEVICE = ("no audio output device here: the playhead moves in real time but nothing is "
             "heard")
NO_MULTIMEDIA = ("QtMultimedia is not installed (pip install PySide6-Addons): the playhead "
                 "moves in real time but nothing is heard")


class RegionSource(QIODevice):
    """The frames of `spans` ([(first, last)] frame ranges) of a recording, one span after
    the other, as 16-bit PCM read from the file as pulled. With `keep`, what is handed out
    is recorded in `keep`, one bytearray per span (else `keep` is None)."""

    def __init__(self, reader: AudioReader, spans: list[tuple[int, int]], keep: bool,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.reader, self.spans = reader, spans
        self.total = sum(last - first for first, last in spans)
        self.done = 0                 # frames handed out so far, all spans together
        self._span, self._next = 0, spans[0][0]
        self.frame_bytes = 2 * reader.audio.channels
        self.keep = [bytearray() for _ in spans] if keep else None
        self.failure: str | None = None

    def where(self, frames: int) -> float:
        """The time in the recording (seconds) of the `frames`-th frame handed out."""
        rate = self.reader.audio.rate
        for first, last in self.spans:
            if frames < last - first:
                return (first + frames) / rate
            frames -= last - first
        return self.spans[-1][1] / rate

    def pull(self, frames: int) -> bytes:
        """Up to `frames` frames of the current span (fewer at its end)."""
        if self.failure is not None or self._span >= len(self.spans):
            return b""
        last = self.spans[self._span][1]
        frames = max(0, min(frames, PIECE_FRAMES, last - self._next))
        if frames == 0:
            return b""
        try:
            data = self.reader.read(self._next, frames)
        except AudioError as exc:
            self.failure = str(exc)
            return b""
        got = len(data) // self.frame_bytes
        if self.keep is not None:
            self.keep[self._span].extend(data)
        self._next += got
        self.done += got
        if self._next >= last or got == 0:
            self._span += 1
            if self._span < len(self.spans):
                self._next = self.spans[self._span][0]
        return data

    # -- QIODevice ------------------------------------------------------------------------
    def readData(self, maxlen: int) -> bytes:  # noqa: N802 - Qt's name
        return self.pull(int(maxlen) // self.frame_bytes)

    def writeData(self, data) -> int:  # noqa: N802 - Qt's name
        return -1

    def bytesAvailable(self) -> int:  # noqa: N802 - Qt's name
        return (self.total - self.done) * self.frame_bytes + super().bytesAvailable()

    def isSequential(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def atEnd(self) -> bool:  # noqa: N802 - Qt's name
        return self.done >= self.total or self.failure is not None


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
        self.clock_speed = 1.0       # the clock's pace, without a device (1.0: real time)
        self.played: list[tuple[float, float, bytes]] = []
        self.current = -1.0          # the playhead, seconds; -1 when stopped
        self._audio: Audio | None = None
        self._reader: AudioReader | None = None
        self._source: RegionSource | None = None
        self._sink = None
        self._said = False
        self._drained = False
        self._clock = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._device, self._why = (None, "")
        self._looked = False
        self._clock_base = 0

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
        frames = [frame_range(audio, float(a), float(b)) for a, b in spans]
        frames = [(first, last) for first, last in frames if last > first]
        if not frames:
            self.message.emit("nothing to play: the region is outside the recording")
            return False
        try:
            self._reader = AudioReader(audio)
        except AudioError as exc:
            self.message.emit(f"audio file {audio.path}: {exc}")
            return False
        self._audio = audio
        self.played = []
        self._source = RegionSource(self._reader, frames, self.keep_samples, self)
        self._source.open(QIODevice.OpenModeFlag.ReadOnly)
        self._drained = False
        self._clock_base = 0          # frames handed out when the clock took over
        self._sink = self._open_sink(audio)
        if self._sink is not None:
            self._sink.start(self._source)
            error = self._sink.error()
            if error != type(error).NoError:   # refused at once: the clock plays
                self._say(f"the audio output failed ({error.name}): the playhead moves in "
                          "real time but nothing is heard")
                self._sink.deleteLater()
                self._sink = None
        self._clock.start()
        self.current = frames[0][0] / audio.rate
        self.position.emit(self.current)
        self._timer.start()
        self.playing.emit(True)
        return True

    def toggle(self, audio: Audio | None, spans) -> None:
        if self.is_playing:
            self.stop()
        else:
            self.play(audio, spans)

    def stop(self) -> None:
        self._timer.stop()
        source = self._source
        if source is not None:
            if self._sink is not None:
                self._sink.stop()
                self._sink.deleteLater()
                self._sink = None
            if source.keep is not None:
                rate = self._audio.rate
                for (first, _last), data in zip(source.spans, source.keep):
                    if data:
                        n = len(data) // source.frame_bytes
                        self.played.append((first / rate, (first + n) / rate, bytes(data)))
            source.close()
            source.deleteLater()
            self._source = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self.current = -1.0
        if source is not None:
            self.playing.emit(False)
            self.position.emit(-1.0)

    # -- the device, or the clock ------------------------------------------------------------
    def _open_sink(self, audio: Audio):
        if not self._looked:
            self._device, self._why = output_device()
            self._looked = True
        if self._device is None:
            self._say(self._why)
            return None
        from PySide6.QtMultimedia import QAudioFormat, QAudioSink

        fmt = QAudioFormat()
        fmt.setSampleRate(audio.rate)
        fmt.setChannelCount(audio.channels)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        if not self._device.isFormatSupported(fmt):
            self._say(f"the audio output cannot play {audio.rate} Hz, {audio.channels} "
                      "channel(s): the playhead moves in real time but nothing is heard")
            return None
        # its state is polled by the tick: PySide6 6.11 cannot hand stateChanged's
        # QAudio::State to a Python slot ("cannot be converted")
        sink = QAudioSink(self._device, fmt, self)
        # a short buffer: the playhead (what the device has taken) stays close to the sound
        sink.setBufferSize(int(BUFFER_S * audio.rate) * 2 * audio.channels)
        return sink

    def _say(self, text: str) -> None:
        if not self._said:
            self._said = True
            self.message.emit(text)

    def _poll_sink(self) -> None:
        """The sink's state: drained (all it was handed is played), or failed (the clock
        plays on from where it was). The enums are QtAudio's from Qt 6.7, QAudio's before:
        each is compared with its own type."""
        sink = self._sink
        state, error = sink.state(), sink.error()
        if state == type(state).IdleState and self._source.atEnd():
            self._drained = True
        elif state == type(state).StoppedState and error != type(error).NoError:
            self._say(f"the audio output failed ({error.name}): the playhead moves "
                      "in real time but nothing is heard")
            self._sink = None
            sink.deleteLater()
            self._clock.restart()
            self._clock_base = self._source.done

    def _tick(self) -> None:
        source, audio = self._source, self._audio
        if source is None or audio is None:
            self._timer.stop()
            return
        if source.failure is not None:
            self.message.emit(f"audio file {audio.path}: {source.failure}")
            self.stop()
            return
        if self._sink is not None:
            self._poll_sink()
        if self._sink is None:
            # the clock: pull what real time has consumed since playing started
            due = min(source.total, self._clock_base
                      + int(self._clock.elapsed() * self.clock_speed * audio.rate / 1000.0))
            while source.done < due and source.failure is None:
                if not source.pull(due - source.done) and source.atEnd():
                    break
            played = source.done
            finished = played >= source.total
        else:
            played = min(source.done, int(self._sink.processedUSecs() * audio.rate / 1e6))
            finished = self._drained or played >= source.total
        if finished:
            self.current = source.spans[-1][1] / audio.rate
            self.position.emit(self.current)
            self.stop()
            return
        self.current = source.where(played)
        self.position.emit(self.current)
