"""The recording of a diarization document: its header checked at load, a region read to play.

`probe(path)` looks at a file the bundle names with `audio = "..."` and returns its `Audio`
(rate, channels, sample width, frames) or raises `AudioError` whose message is the reason:
missing, not a regular file, too large, unreadable, not a format llgui plays, a header that
does not hold, a file cut short. Only the header and the last frame are read: a two-hour
meeting is checked in microseconds.

`AudioReader(audio)` reads frames from it to play: `read(first, count)` returns signed 16-bit
little-endian PCM, channels interleaved, the format handed to the sound card. 16-bit files
are returned as they are, bit for bit; 8-bit (unsigned) and 24/32-bit files are brought to 16
bits (shifted, never rescaled otherwise).

Formats: WAV with PCM samples (1 to 4 bytes), read with the standard library's `wave`; FLAC
(lossless, a third of the size), read with `soundfile` (libsndfile, imported only for a FLAC
file). Other formats (float WAV, WAVE_FORMAT_EXTENSIBLE, MP3, Ogg) are named in the message
with the command that converts them (`ffmpeg -i IN -c:a pcm_s16le OUT.wav`).
"""
from __future__ import annotations

import struct
import wave
from pathlib import Path

import numpy as np

from llgui.core.types import Audio
from llgui.io._read import LIBRARY_ERRORS, library_reason
from llgui.utils.regular import NotRegularFile, check_regular, size_text

MAX_AUDIO_BYTES = 4 << 30
"""4 GiB: the largest WAV there can be (RIFF sizes are 32-bit)."""
MAX_RATE = 768_000
MAX_CHANNELS = 64

CONVERT = "convert it to PCM WAV, e.g. ffmpeg -i IN -c:a pcm_s16le OUT.wav"

_MAGIC = (
    (b"OggS", "Ogg"), (b"ID3", "MP3"), (b"\xff\xfb", "MP3"),
    (b"\xff\xf3", "MP3"), (b"\xff\xf2", "MP3"), (b"FORM", "AIFF"), (b"RIFX", "big-endian RIFF"),
    (b"caff", "CAF"), (b".snd", "Sun audio"),
)
_WAV_CODES = {3: "IEEE float samples", 6: "A-law samples", 7: "mu-law samples",
              0xFFFE: "WAVE_FORMAT_EXTENSIBLE header", 0x55: "MP3 data", 2: "ADPCM samples"}


class AudioError(ValueError):
    """An audio file llgui cannot play; the message is the reason (no file name)."""


def probe(path: str | Path) -> Audio:
    """The `Audio` of the file at `path`, or AudioError (see the module text)."""
    try:
        size = check_regular(path, MAX_AUDIO_BYTES)
    except FileNotFoundError:
        raise AudioError("not found") from None
    except IsADirectoryError:
        raise AudioError("is a directory, not a file") from None
    except NotRegularFile as exc:
        raise AudioError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise AudioError(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if size == 0:
        raise AudioError("is empty")
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as exc:
        raise AudioError(f"cannot be read ({exc.strerror or exc})") from None
    if head.startswith(b"fLaC"):
        return _probe_flac(path, size)
    if not (head[:4] == b"RIFF" and head[8:12] == b"WAVE"):
        kind = next((name for magic, name in _MAGIC if head.startswith(magic)), None)
        what = f"is {kind}" if kind else "is not a WAV file (no RIFF/WAVE header)"
        raise AudioError(f"{what}, a format llgui does not play (PCM WAV or FLAC); {CONVERT}")
    try:
        with wave.open(str(path), "rb") as w:
            rate, channels = w.getframerate(), w.getnchannels()
            width, frames = w.getsampwidth(), w.getnframes()
            if frames > 0 and channels > 0 and width > 0:
                w.setpos(frames - 1)
                last = w.readframes(1)
            else:
                last = b""
    except wave.Error as exc:
        raise AudioError(_wave_reason(str(exc), head)) from None
    except EOFError:
        raise AudioError("is cut short inside its header") from None
    except LIBRARY_ERRORS as exc:   # e.g. RuntimeError: a chunk's size runs past the file
        raise AudioError(_lying_header(exc, size)) from None
    if not 1 <= channels <= MAX_CHANNELS:
        raise AudioError(f"has {channels} channels in its header (1 to {MAX_CHANNELS} are played)")
    if not 1 <= rate <= MAX_RATE:
        raise AudioError(f"has a sample rate of {rate} Hz in its header (1 to {MAX_RATE})")
    if not 1 <= width <= 4:
        raise AudioError(f"has {8 * width}-bit samples (8, 16, 24 or 32-bit PCM are played)")
    if frames == 0:
        raise AudioError("holds no samples")
    if len(last) != width * channels:
        raise AudioError(f"is cut short: its header announces {frames} frames "
                         f"({frames / rate:.3f} s) but the file ({size_text(size)}) ends before")
    return Audio(str(path), "wav", rate, channels, width, frames)


_FLAC_WIDTHS = {"PCM_S8": 1, "PCM_16": 2, "PCM_24": 3, "PCM_32": 4}


def _soundfile():
    try:
        import soundfile
    except (ImportError, OSError):   # OSError: the package without its libsndfile
        raise AudioError("is FLAC, which needs the Python package soundfile (pip install "
                         f"soundfile); or {CONVERT}") from None
    return soundfile


def _probe_flac(path, size: int) -> Audio:
    sf = _soundfile()
    errors = (sf.LibsndfileError, *LIBRARY_ERRORS)
    try:
        f = sf.SoundFile(str(path))
    except errors as exc:
        raise AudioError(f"is not a readable FLAC file ({exc})") from None
    with f:
        rate, channels, frames, subtype = f.samplerate, f.channels, f.frames, f.subtype
        last = b""
        try:
            if frames > 0:
                f.seek(frames - 1)
                last = f.read(1, dtype="int16", always_2d=True).tobytes()
        except errors as exc:
            raise AudioError(f"is cut short or damaged: its last frame ({frames / rate:.3f} s) "
                             f"cannot be read (libsndfile: {exc})") from None
    width = _FLAC_WIDTHS.get(subtype, 0)
    if not 1 <= channels <= MAX_CHANNELS:
        raise AudioError(f"has {channels} channels (1 to {MAX_CHANNELS} are played)")
    if not 1 <= rate <= MAX_RATE:
        raise AudioError(f"has a sample rate of {rate} Hz (1 to {MAX_RATE})")
    if width == 0:
        raise AudioError(f"is FLAC of {subtype} samples, which llgui does not play")
    if frames == 0:
        raise AudioError("holds no samples")
    if len(last) != 2 * channels:
        raise AudioError(f"is cut short: its header announces {frames} frames "
                         f"({frames / rate:.3f} s) but the file ({size_text(size)}) ends before")
    return Audio(str(path), "flac", rate, channels, width, frames)


def _lying_header(exc: BaseException, size: int) -> str:
    """The reason of a WAV whose header does not hold: a chunk announcing more bytes than the
    file has (wave raises RuntimeError from its chunk reader), a size field it cannot use."""
    if isinstance(exc, (RuntimeError, EOFError, struct.error, MemoryError, OverflowError)):
        detail = str(exc) if not isinstance(exc, RuntimeError) else ""
        return (f"is cut short: its header announces more bytes than the file "
                f"({size_text(size)}) holds" + (f" ({detail})" if detail else ""))
    return f"cannot be read ({library_reason(exc)})"


def _wave_reason(message: str, head: bytes) -> str:
    if message.startswith("unknown format"):
        try:
            code = int(message.rsplit(":", 1)[1])
        except (ValueError, IndexError):
            code = -1
        what = _WAV_CODES.get(code, f"format code {code}")
        return f"is a WAV file of {what}, which llgui does not play (PCM only); {CONVERT}"
    return f"is not a readable WAV file ({message})"


class AudioReader:
    """Frames of one `Audio`, read on demand as 16-bit PCM (see the module text). Raises
    AudioError when the file changed or vanished since it was probed."""

    def __init__(self, audio: Audio):
        self.audio = audio
        self._wave = self._flac = None
        try:
            check_regular(audio.path, MAX_AUDIO_BYTES)
            if audio.format == "flac":
                sf = _soundfile()
                self._flac = sf.SoundFile(audio.path)
                found = (self._flac.frames, self._flac.samplerate, self._flac.channels,
                         _FLAC_WIDTHS.get(self._flac.subtype, 0))
            else:
                self._wave = wave.open(audio.path, "rb")
                found = (self._wave.getnframes(), self._wave.getframerate(),
                         self._wave.getnchannels(), self._wave.getsampwidth())
        except AudioError:
            raise
        except (wave.Error, *LIBRARY_ERRORS) as exc:
            raise AudioError(f"cannot be opened any more ({library_reason(exc)})") from None
        if found != (audio.frames, audio.rate, audio.channels, audio.sample_width):
            self.close()
            raise AudioError("changed since the bundle was opened (reopen the bundle)")

    def read(self, first: int, count: int) -> bytes:
        """Frames [first, first + count) (clipped to the file) as int16 little-endian bytes."""
        a = self.audio
        first = max(0, min(int(first), a.frames))
        count = max(0, min(int(count), a.frames - first))
        if count == 0:
            return b""
        try:
            if self._flac is not None:
                self._flac.seek(first)
                return self._flac.read(count, dtype="int16", always_2d=True).astype(
                    "<i2", copy=False).tobytes()
            self._wave.setpos(first)
            raw = self._wave.readframes(count)
        except (wave.Error, *LIBRARY_ERRORS) as exc:
            raise AudioError(f"cannot be read any more ({library_reason(exc)})") from None
        return to_int16(raw, a.sample_width).tobytes()

    def close(self) -> None:
        for f in (self._wave, self._flac):
            if f is not None:
                f.close()

    def __enter__(self) -> "AudioReader":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def to_int16(raw: bytes, width: int) -> np.ndarray:
    """PCM bytes of `width` bytes per sample as int16 samples (little-endian)."""
    raw = raw[: len(raw) - len(raw) % width]
    if width == 2:
        return np.frombuffer(raw, dtype="<i2").astype("<i2", copy=False)
    if width == 1:   # unsigned 8-bit
        return ((np.frombuffer(raw, dtype=np.uint8).astype(np.int16) - 128) << 8).astype("<i2")
    if width == 3:   # the two most significant bytes of each little-endian 24-bit sample
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        return (b[:, 1].astype(np.uint16) | (b[:, 2].astype(np.uint16) << 8)).view("<i2")
    return (np.frombuffer(raw, dtype="<i4") >> 16).astype("<i2")


def frame_range(audio: Audio, start: float, end: float) -> tuple[int, int]:
    """The frames [first, last) of the time span [start, end) seconds, inside the file."""
    first = max(0, min(audio.frames, int(round(start * audio.rate))))
    last = max(first, min(audio.frames, int(round(end * audio.rate))))
    return first, last


def duration_mismatch(audio: Audio, extent_end: float, short: float = 0.5,
                      long_s: float = 30.0, long_fraction: float = 0.25) -> str | None:
    """Why `audio` is not the recording of a document whose turns (and UEM) end at
    `extent_end` seconds, or None. Shorter than that end by more than `short` s: turns would
    lie after the sound. Longer by more than `long_s` s and `long_fraction` of it: another
    recording (a recording may run on after its last annotated turn, within those bounds)."""
    duration = audio.duration
    if duration < extent_end - short:
        return (f"lasts {duration:.3f} s but the document's turns reach {extent_end:.3f} s "
                f"(more than {short:g} s later): is it the recording of this document?")
    if duration > extent_end + max(long_s, long_fraction * extent_end):
        return (f"lasts {duration:.3f} s but the document's turns end at {extent_end:.3f} s "
                f"(over {long_s:g} s and {long_fraction:.0%} longer): is it the recording of "
                "this document?")
    return None
