"""A small meeting with real audio, made in the test: one tone per speaker (numpy), its RTTM.

Three speakers take turns with pauses and one overlap; each speaker's turns are a sine at
their own pitch, so a region's samples say who speaks there. The hypothesis confuses
speaker B with A in two turns, so a system has something to ask about. The WAV is 16-bit PCM
mono at 16 kHz, written with the standard library's `wave` (the test decodes it the same way).
"""
from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 16000
PITCH = {"A": 220.0, "B": 330.0, "C": 495.0}
REFERENCE = [  # start, end, speaker
    (0.5, 3.0, "A"), (3.4, 6.0, "B"), (6.2, 8.5, "A"), (8.2, 10.0, "C"), (10.5, 13.0, "B"),
    (13.3, 15.5, "C"), (15.8, 18.0, "A"), (18.3, 19.6, "B"),
]
HYPOTHESIS = [  # B's first and last turns given to A, C's first turn split off late
    (0.5, 3.0, "s1"), (3.4, 6.0, "s1"), (6.2, 8.5, "s1"), (8.6, 10.0, "s3"), (10.5, 13.0, "s2"),
    (13.3, 15.5, "s3"), (15.8, 18.0, "s1"), (18.3, 19.6, "s1"),
]
DURATION = 20.0


def samples(duration: float = DURATION, rate: int = RATE) -> np.ndarray:
    """The meeting's int16 samples."""
    t = np.arange(int(round(duration * rate))) / rate
    signal = np.zeros_like(t)
    for start, end, speaker in REFERENCE:
        inside = (t >= start) & (t < end)
        signal[inside] += 0.3 * np.sin(2 * np.pi * PITCH[speaker] * t[inside])
    return np.round(signal * 32767).astype("<i2")


def write_wav(path: Path, data: np.ndarray, rate: int = RATE, channels: int = 1) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data.astype("<i2").tobytes())
    return path


def rttm(turns, uri: str = "meeting") -> str:
    return "".join(f"SPEAKER {uri} 1 {s:.3f} {e - s:.3f} <NA> <NA> {who} <NA> <NA>\n"
                   for s, e, who in turns)


def write_meeting(folder: Path, audio: str | None = "meeting.wav", log: str | None = None,
                  duration: float = DURATION) -> Path:
    """A diarization bundle of the meeting in `folder` (its path returned); `audio` is the
    bundle's audio key (None: no key), `log` an interaction log's text."""
    folder.mkdir(parents=True, exist_ok=True)
    write_wav(folder / "meeting.wav", samples(duration))
    (folder / "ref.rttm").write_text(rttm(REFERENCE))
    (folder / "hyp.rttm").write_text(rttm(HYPOTHESIS))
    lines = ["[bundle]", 'task = "diarization"', 'name = "tone meeting"', "",
             "[[documents]]", 'id = "meeting"', "time = 1", 'references = "ref.rttm"',
             'hypothesis = "hyp.rttm"']
    if audio is not None:
        lines.append(f"audio = {audio!r}".replace("'", '"'))
    if log is not None:
        (folder / "log.jsonl").write_text(log)
        lines += ["", "[interactions]", 'log = "log.jsonl"']
    (folder / "bundle.toml").write_text("\n".join(lines) + "\n")
    return folder / "bundle.toml"


def decode(path: Path, start: float, end: float) -> bytes:
    """The test's own decoding of [start, end) seconds of a 16-bit WAV, as bytes."""
    with wave.open(str(path), "rb") as w:
        rate, channels = w.getframerate(), w.getnchannels()
        first, last = int(round(start * rate)), int(round(end * rate))
        last = min(last, w.getnframes())
        w.setpos(first)
        return w.readframes(last - first)


def write_lying_wav(path: Path, lie: str = "data") -> Path:
    """A 16-bit WAV whose header lies (issue 38.1): `data`, its data chunk announces 10 times
    the bytes it holds; `fmt`, its fmt chunk announces 0xFFFFFFF0 bytes. Python's `wave` raises
    RuntimeError (not wave.Error) reading either."""
    import struct

    body = samples().tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, RATE, 2 * RATE, 2, 16)
    if lie == "data":
        payload = (b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data"
                   + struct.pack("<I", 10 * len(body)) + body)
    else:
        payload = (b"WAVE" + b"fmt " + struct.pack("<I", 0xFFFFFFF0) + fmt + b"data"
                   + struct.pack("<I", len(body)) + body)
    path.write_bytes(b"RIFF" + struct.pack("<I", len(payload)) + payload)
    return path
