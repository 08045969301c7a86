"""The demo meeting in resources/demo/meeting: its audio, reference RTTM and words agree.

Read with the standard library and numpy only (never with llgui's loaders, except the check
that the bundle loads): the WAV's length against the RTTM's extent and meeting.json; every
word inside a turn of its speaker, every turn made of words; the recording loud where the
reference says someone speaks and near silent where nobody does; the checksums meeting.json
records; and, where libespeak-ng of the recorded version is installed, `make_meeting.py`
regenerating the same files.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import subprocess
import sys
import warnings
import wave
from pathlib import Path

import numpy as np
import pytest

MEETING = Path(__file__).resolve().parent.parent / "resources" / "demo" / "meeting"
SEGLST_KEYS = {"session_id", "speaker", "start_time", "end_time", "words"}


def _about() -> dict:
    return json.loads((MEETING / "meeting.json").read_text(encoding="utf-8"))


def _audio() -> tuple[np.ndarray, int]:
    with wave.open(str(MEETING / "meeting.wav"), "rb") as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getcomptype()) == (1, 2, "NONE")
        rate = w.getframerate()
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return samples.astype(float) / 32768.0, rate


def _turns() -> list[tuple[float, float, str]]:
    turns = []
    for line in (MEETING / "meeting.rttm").read_text(encoding="utf-8").splitlines():
        f = line.split()
        assert len(f) == 10 and f[0] == "SPEAKER" and f[1] == "meeting"
        # times in milliseconds, as written: the end is start + duration to the millisecond
        turns.append((float(f[3]), round(float(f[3]) + float(f[4]), 3), f[7]))
    return turns


def _words() -> list[dict]:
    return json.loads((MEETING / "meeting.words.json").read_text(encoding="utf-8"))


def test_audio_is_16k_mono_pcm_and_as_long_as_the_reference():
    samples, rate = _audio()
    assert rate == 16_000
    duration = len(samples) / rate
    turns = _turns()
    first, last = min(s for s, _, _ in turns), max(e for _, e, _ in turns)
    assert 0.0 < first and last <= duration <= last + 2.0, (first, last, duration)
    assert 150.0 <= duration <= 300.0, "a few minutes"
    assert duration == pytest.approx(_about()["duration_s"], abs=1e-3)
    assert (MEETING / "meeting.wav").stat().st_size < 7_000_000


def test_a_meeting_four_voices_turn_taking_overlaps_and_pauses():
    turns = sorted(_turns())
    speakers = {spk for _, _, spk in turns}
    assert len(speakers) == 4
    overlaps = sum(1 for a, b in zip(turns, turns[1:]) if b[0] < a[1] and b[2] != a[2])
    pauses = sum(1 for a, b in zip(turns, turns[1:]) if b[0] > a[1] + 1.5)
    changes = sum(1 for a, b in zip(turns, turns[1:]) if b[2] != a[2])
    assert overlaps >= 5 and pauses >= 3 and changes >= 30, (overlaps, pauses, changes)


def test_every_word_lies_inside_a_turn_of_its_speaker_and_every_turn_is_words():
    words, turns = _words(), _turns()
    assert len(words) >= 300
    for w in words:
        assert set(w) == SEGLST_KEYS and w["session_id"] == "meeting"
        assert isinstance(w["words"], str) and w["words"] and " " not in w["words"]
        assert 0 <= w["start_time"] < w["end_time"]
        assert any(s <= w["start_time"] and w["end_time"] <= e and spk == w["speaker"]
                   for s, e, spk in turns), w
    for s, e, spk in turns:   # a turn runs from its first word's start to its last word's end
        mine = [w for w in words if w["speaker"] == spk and s <= w["start_time"]
                and w["end_time"] <= e]
        assert mine, (s, e, spk)
        assert min(w["start_time"] for w in mine) == s
        assert max(w["end_time"] for w in mine) == e


def test_the_recording_is_loud_in_turns_and_near_silent_between_them():
    samples, rate = _audio()
    turns = _turns()
    speech = np.zeros(len(samples), dtype=bool)
    for s, e, _ in turns:
        speech[int(s * rate):int(e * rate)] = True

    def db(x):
        return 10 * np.log10(np.mean(x ** 2) + 1e-12)

    # nobody speaks: a margin of 50 ms from every turn
    margin = int(0.05 * rate)
    near = np.convolve(speech, np.ones(2 * margin + 1), mode="same") > 0
    assert db(samples[~near]) < -55.0
    for s, e, spk in turns:
        assert db(samples[int(s * rate):int(e * rate)]) > -35.0, (s, e, spk)


def test_checksums_recorded_by_the_script_hold():
    about = _about()
    assert about["espeak_ng"] and about["tool"].startswith("espeak-ng")
    for name, digest in about["sha256"].items():
        assert hashlib.sha256((MEETING / name).read_bytes()).hexdigest() == digest, name


def _espeak_version() -> str | None:
    try:
        lib = ctypes.CDLL("libespeak-ng.so.1")
    except OSError:
        return None
    lib.espeak_Info.restype = ctypes.c_char_p
    return lib.espeak_Info(None).decode()


def test_make_meeting_regenerates_the_same_files(tmp_path):
    version = _espeak_version()
    if version is None:
        pytest.skip("libespeak-ng is not installed (Debian: apt-get install espeak-ng)")
    if version != _about()["espeak_ng"]:
        pytest.skip(f"espeak-ng {version} here, the files were made with "
                    f"{_about()['espeak_ng']}")
    run = subprocess.run([sys.executable, str(MEETING / "make_meeting.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    for name in ("meeting.rttm", "meeting.words.json", "meeting.wav"):
        assert (tmp_path / name).read_bytes() == (MEETING / name).read_bytes(), name


def test_bundle_loads_with_the_recording():
    from llgui.io.bundle import load_bundle

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bundle = load_bundle(MEETING / "bundle.toml")
    (doc,) = bundle.documents
    assert doc.id == "meeting" and Path(doc.audio) == MEETING / "meeting.wav"
    assert {t.speaker for t in doc.hypothesis}.isdisjoint({t.speaker for t in doc.reference})
