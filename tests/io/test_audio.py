"""The `audio` key of a diarization document: a playable recording is described, any other
is a warning at its line (`FILE:LINE: reason`) and the document loads without it, its scores
unchanged; the reader hands out the file's own samples; simulate runs keep the key."""
from __future__ import annotations

import os
import struct
import wave

import numpy as np
import pytest

from llgui.cli.main import main
from llgui.io.audio import AudioReader, probe
from llgui.io.bundle import load_bundle
from tests.meeting_audio import DURATION, RATE, decode, samples, write_meeting, write_wav

AUDIO_LINE = 10   # the audio key's line in the bundle write_meeting writes


def only_warning(bundle) -> str:
    assert len(bundle.warnings) == 1, bundle.warnings
    return str(bundle.warnings[0])


def test_a_playable_recording_is_described(tmp_path):
    bundle = load_bundle(write_meeting(tmp_path))
    (doc,) = bundle.documents
    assert bundle.warnings == ()
    a = doc.audio
    assert (a.format, a.rate, a.channels, a.sample_width) == ("wav", RATE, 1, 2)
    assert a.frames == int(DURATION * RATE) and a.duration == DURATION
    assert os.path.samefile(a.path, tmp_path / "meeting.wav")


def test_no_audio_key_no_audio(tmp_path):
    (doc,) = load_bundle(write_meeting(tmp_path, audio=None)).documents
    assert doc.audio is None


def _bad(tmp_path, written: str):
    """(warning text, document) of the meeting with `audio = written`; the document is the
    one without the key, scores and all."""
    bundle = load_bundle(write_meeting(tmp_path, audio=written))
    plain = load_bundle(write_meeting(tmp_path / "plain", audio=None)).documents[0]
    (doc,) = bundle.documents
    assert doc.audio is None
    assert (doc.reference, doc.hypothesis, doc.uem) == (plain.reference, plain.hypothesis,
                                                        plain.uem)
    text = only_warning(bundle)
    assert text.startswith(f"{tmp_path / 'bundle.toml'}:{AUDIO_LINE}: warning: document "
                           f"'meeting': ")
    assert text.endswith("; it opens without audio")
    return text


def test_missing_audio(tmp_path):
    assert "audio file 'gone.wav' not found" in _bad(tmp_path, "gone.wav")


def test_a_directory_a_fifo(tmp_path):
    (tmp_path / "dir.wav").mkdir(parents=True)
    assert "audio file 'dir.wav' is a directory" in _bad(tmp_path, "dir.wav")
    os.mkfifo(tmp_path / "pipe.wav")
    assert "is not a regular file (a FIFO)" in _bad(tmp_path, "pipe.wav")


def test_unsupported_formats_are_named_with_the_conversion(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "x.ogg").write_bytes(b"OggS\x00\x02" + bytes(64))
    text = _bad(tmp_path, "x.ogg")
    assert "'x.ogg' is Ogg, a format llgui does not play (PCM WAV or FLAC)" in text
    assert "ffmpeg -i IN -c:a pcm_s16le OUT.wav" in text
    (tmp_path / "x.flac").write_bytes(b"fLaC\x00\x00\x00\x22" + bytes(64))
    assert "'x.flac' is not a readable FLAC file" in _bad(tmp_path, "x.flac")
    (tmp_path / "x.txt").write_text("SPEAKER meeting 1 0 1 <NA> <NA> A <NA> <NA>\n")
    assert "is not a WAV file (no RIFF/WAVE header)" in _bad(tmp_path, "x.txt")
    # a float WAV (format code 3): a valid RIFF file, samples llgui does not play
    data = np.zeros(RATE * 20, dtype="<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, RATE, RATE * 4, 4, 32)
    riff = (b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data"
            + struct.pack("<I", len(data)) + data)
    (tmp_path / "float.wav").write_bytes(b"RIFF" + struct.pack("<I", len(riff)) + riff)
    assert "is a WAV file of IEEE float samples, which llgui does not play" in _bad(
        tmp_path, "float.wav")


def test_a_file_cut_short(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    write_wav(tmp_path / "cut.wav", samples())
    data = (tmp_path / "cut.wav").read_bytes()
    (tmp_path / "cut.wav").write_bytes(data[: len(data) // 2])
    assert "is cut short: its header announces 320000 frames (20.000 s)" in _bad(
        tmp_path, "cut.wav")


def test_another_duration_than_the_turns(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    write_wav(tmp_path / "short.wav", samples(10.0))
    assert ("audio file 'short.wav' lasts 10.000 s but the document's turns reach 19.600 s"
            in _bad(tmp_path, "short.wav"))
    write_wav(tmp_path / "long.wav", samples(60.0))
    assert ("'long.wav' lasts 60.000 s but the document's turns end at 19.600 s"
            in _bad(tmp_path, "long.wav"))


def test_a_number_is_not_a_file_name(tmp_path):
    bundle_path = write_meeting(tmp_path, audio=None)
    text = bundle_path.read_text().replace('hypothesis = "hyp.rttm"\n',
                                           'hypothesis = "hyp.rttm"\naudio = 3\n')
    bundle_path.write_text(text)
    bundle = load_bundle(bundle_path)
    assert bundle.documents[0].audio is None
    assert only_warning(bundle).endswith(
        f":{AUDIO_LINE}: warning: document 'meeting': audio must be a file name (a non-empty "
        "string), not 3; it opens without audio")


def test_the_cli_says_it_and_goes_on(tmp_path, capsys):
    bundle = write_meeting(tmp_path, audio="gone.wav")
    assert main(["replay", str(bundle), "--doc", "meeting"]) == 0
    err = capsys.readouterr().err
    assert f"bundle.toml:{AUDIO_LINE}: warning: document 'meeting': audio file 'gone.wav' " \
           "not found; it opens without audio" in err


def test_the_reader_hands_out_the_files_samples(tmp_path):
    path = write_wav(tmp_path / "m.wav", samples())
    audio = probe(path)
    with AudioReader(audio) as reader:
        assert reader.read(int(3.4 * RATE), 8000) == decode(path, 3.4, 3.9)
        assert reader.read(audio.frames - 10, 100) == decode(path, DURATION - 10 / RATE, 99)


def test_other_sample_widths_are_brought_to_16_bits(tmp_path):
    rng = np.random.default_rng(5)
    want = rng.integers(-32768, 32768, size=(1000, 2)).astype("<i2")
    # 24-bit: the 16 bits on top of a random low byte
    low = rng.integers(0, 256, size=want.shape).astype(np.uint8)
    u = want.astype("<i4").view("<u4")
    raw = np.stack([low, (u & 0xFF).astype(np.uint8), ((u >> 8) & 0xFF).astype(np.uint8)],
                   axis=-1).tobytes()
    with wave.open(str(tmp_path / "w24.wav"), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(3)
        w.setframerate(8000)
        w.writeframes(raw)
    with AudioReader(probe(tmp_path / "w24.wav")) as reader:
        assert reader.read(0, 1000) == want.tobytes()
    # 8-bit PCM is unsigned: 128 is silence
    bytes8 = rng.integers(0, 256, size=500).astype(np.uint8)
    with wave.open(str(tmp_path / "w8.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes8.tobytes())
    with AudioReader(probe(tmp_path / "w8.wav")) as reader:
        got = np.frombuffer(reader.read(0, 500), dtype="<i2")
    assert got.tolist() == [(int(b) - 128) * 256 for b in bytes8]


def test_a_simulated_run_keeps_the_audio(tmp_path):
    from llgui.sim.output import RunWriter

    bundle = load_bundle(write_meeting(tmp_path / "in"))
    doc = bundle.documents[0]
    writer = RunWriter(tmp_path / "runs" / "one", bundle)
    writer.add_hypothesis(doc, doc.hypothesis)
    writer.close()
    text = (tmp_path / "runs" / "one" / "bundle.toml").read_text()
    assert f'audio = "{(tmp_path / "in" / "meeting.wav").resolve()}"' in text   # absolute
    again = load_bundle(tmp_path / "runs" / "one" / "bundle.toml")
    assert again.warnings == ()
    assert os.path.samefile(again.documents[0].audio.path, tmp_path / "in" / "meeting.wav")


@pytest.mark.parametrize("channels", [1, 2])
def test_mono_and_stereo(tmp_path, channels):
    data = np.zeros((RATE, channels), dtype="<i2")
    audio = probe(write_wav(tmp_path / "s.wav", data, channels=channels))
    assert (audio.channels, audio.frames) == (channels, RATE)


def test_flac_is_read_sample_for_sample(tmp_path):
    import soundfile

    data = samples()
    soundfile.write(tmp_path / "m.flac", data, RATE, subtype="PCM_16")
    bundle = load_bundle(write_meeting(tmp_path, audio="m.flac"))
    assert bundle.warnings == ()
    audio = bundle.documents[0].audio
    assert (audio.format, audio.rate, audio.frames, audio.sample_width) == ("flac", RATE,
                                                                             len(data), 2)
    with AudioReader(audio) as reader:
        got = reader.read(int(3.4 * RATE), 8000)
    # decoded here by soundfile on its own, and equal to the samples written
    assert got == data[int(3.4 * RATE): int(3.4 * RATE) + 8000].tobytes()
    # 24-bit samples (data << 8) + 77, written from int32 (libsndfile keeps its top 24 bits):
    # played as their top 16 bits, the data
    wide = (data.astype(np.int32) << 16) + (77 << 8)
    soundfile.write(tmp_path / "w24.flac", wide, RATE, subtype="PCM_24", format="FLAC")
    with AudioReader(probe(tmp_path / "w24.flac")) as reader:
        assert reader.read(1000, 500) == data[1000:1500].tobytes()


def test_flac_cut_short(tmp_path):
    import soundfile

    soundfile.write(tmp_path / "m.flac", samples(), RATE, subtype="PCM_16")
    raw = (tmp_path / "m.flac").read_bytes()
    (tmp_path / "m.flac").write_bytes(raw[: len(raw) // 2])
    assert "audio file 'm.flac' is cut short or damaged: its last frame (20.000 s) cannot be " \
           "read" in _bad(tmp_path, "m.flac")


def test_a_file_too_large_is_refused_before_reading(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    with open(tmp_path / "huge.wav", "wb") as f:   # sparse: nothing is written to disk
        f.write(b"RIFF\xff\xff\xff\xffWAVE")
        f.truncate((4 << 30) + 1)
    assert "audio file 'huge.wav' is too large (4.0 GiB; files larger than 4.0 GiB are not " \
           "read)" in _bad(tmp_path, "huge.wav")


@pytest.mark.parametrize("lie", ["data", "fmt"])
def test_a_header_that_lies_is_the_warning(tmp_path, lie):
    """Issue 38.1: a chunk announcing more bytes than the file holds makes `wave` raise
    RuntimeError (neither wave.Error nor EOFError): the documented warning, not exit 1."""
    from tests.meeting_audio import write_lying_wav

    tmp_path.mkdir(exist_ok=True)
    write_lying_wav(tmp_path / "lying.wav", lie)
    assert "audio file 'lying.wav' is cut short: its header announces more bytes than the " \
           "file (625.0 KiB) holds" in _bad(tmp_path, "lying.wav")
