"""A live session answered by listening: on a meeting with audio (one tone per speaker, made
here), each question's window is played with the P key, the samples the player handed out
are compared with the file's region (decoded here), the speaker is recognised from them (the
pitch), and the answer is given with real keys; the playhead ran over the windows; the log
replays (`llgui replay`) to the numbers the window showed, and the run keeps the audio."""
from __future__ import annotations

import os

import numpy as np
from PySide6.QtCore import Qt

from llgui.io.bundle import load_bundle
from llgui.sim.live import read_log
from tests.gui.live.test_window import assert_replays, live, start, wait_idle  # noqa: F401
from tests.meeting_audio import PITCH, RATE, REFERENCE, decode, write_meeting

BY_PITCH = {pitch: name for name, pitch in PITCH.items()}


def who(samples: bytes) -> str | None:
    """The speaker whose pitch dominates the middle second of `samples` (16-bit mono)."""
    x = np.frombuffer(samples, dtype="<i2").astype(float)
    mid = len(x) // 2
    x = x[max(0, mid - RATE // 2): mid + RATE // 2]
    if len(x) == 0 or np.abs(x).max() < 100:
        return None
    spectrum = np.abs(np.fft.rfft(x))
    freqs = np.fft.rfftfreq(len(x), 1 / RATE)
    peak = freqs[int(np.argmax(spectrum))]
    pitch = min(PITCH.values(), key=lambda p: abs(p - peak))
    return BY_PITCH[pitch]


def truth(t: float) -> str | None:
    """The reference speaker at `t` (the latest to start, where two overlap)."""
    speaking = [(s, name) for s, e, name in REFERENCE if s <= t < e]
    return max(speaking)[1] if speaking else None


def listen(qtbot, window) -> list[tuple[float, float, bytes]]:
    """Press P in the panel and wait for the end: the spans played and their samples, each
    checked against the file and the playhead's positions."""
    panel = window.diar_panel
    panel.player.keep_samples = True
    # no output device offscreen: the clock hands out the samples, here at 32x real time (the
    # samples and the playhead's course are the same, each 25 ms tick hands out 0.8 s of a
    # window; with a device the sound sets the pace)
    panel.player.clock_speed = 32.0
    positions: list[float] = []
    panel.player.position.connect(positions.append)
    panel.play.setFocus()
    qtbot.keyClick(panel.play, Qt.Key.Key_P)
    assert panel.player.is_playing
    qtbot.waitUntil(lambda: not panel.player.is_playing, timeout=20000)
    panel.player.position.disconnect(positions.append)
    played = panel.player.played
    wanted = [(max(0.0, a), min(panel.snapshot.audio.duration, b))
              for a, b in panel.listen_spans()]
    assert [(a, b) for a, b, _ in played] == [
        (round(a * RATE) / RATE, round(b * RATE) / RATE) for a, b in wanted]
    for a, b, data in played:
        assert data == decode(panel.snapshot.audio.path, a, b)
    heads = [t for t in positions if t >= 0]
    assert heads and all(any(a <= t <= b for a, b, _ in played) for t in heads)
    assert heads[-1] == played[-1][1] and not panel.playhead.isVisible()
    return played


def test_a_live_session_answered_by_listening(live, qtbot, tmp_path, capsys):  # noqa: F811
    bundle = write_meeting(tmp_path / "in")
    start(qtbot, live, bundle, "diar_clusters", "active", 30, tmp_path / "out")
    live.activateWindow()
    panel = live.diar_panel
    assert panel.play.isEnabled() and "P plays" in panel.audio_note.text()
    answers = []
    while not live.snap.finished and len(answers) < 5:
        asked = live.snap
        q = asked.question
        played = listen(qtbot, live)
        heard = [who(data) for _, _, data in played]
        if q.kind == "same":
            a, b = heard
            assert (a, b) == (truth(q.target.t1), truth(q.target.t2))   # the right regions
            key = Qt.Key.Key_Y if a == b else Qt.Key.Key_N
            qtbot.keyClick(panel, key, Qt.KeyboardModifier.AltModifier)   # &Yes / &No
            answers.append(("same", a == b))
        elif q.kind == "name":
            (name,) = heard
            assert name == truth(q.target.t)
            edit = panel.name.lineEdit()
            qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(edit, name)
            panel.send_name.setFocus()
            qtbot.keyClick(panel.send_name, Qt.Key.Key_Space)
            answers.append(("name", name))
        else:
            raise AssertionError(f"diar_clusters asked {q.kind}")
        # a mnemonic clicks 100 ms after its key (QAbstractButton::animateClick)
        qtbot.waitUntil(lambda: live.snap is not asked and not live.busy, timeout=60000)
    if not live.snap.finished:
        live.finish_button.click()
        wait_idle(qtbot, live)
    assert len(answers) >= 2 and {k for k, _ in answers} >= {"same"}
    log = read_log(tmp_path / "out")
    assert [(r["kind"], r["answer"]) for r in log] == answers
    assert_replays(capsys, live, tmp_path / "out")
    # the run's bundle keeps the recording, relative to its folder
    run = load_bundle(tmp_path / "out" / "bundle.toml")
    assert os.path.samefile(run.documents[0].audio.path, tmp_path / "in" / "meeting.wav")


def test_interactive_mode_plays_the_purple_region(live, qtbot, tmp_path):  # noqa: F811
    bundle = write_meeting(tmp_path / "in")
    start(qtbot, live, bundle, "diar_clusters", "interactive", 30, tmp_path / "out")
    live.activateWindow()
    panel = live.diar_panel
    assert panel.region.isVisible()
    panel.region.setRegion((10.6, 11.4))
    (played,) = listen(qtbot, live)
    assert played[:2] == (10.6, 11.4) and who(played[2]) == truth(11.0) == "B"
    # P again stops, wherever the focus is; typed into the name field, p is a letter
    live.pause_button.setFocus()
    qtbot.keyClick(live.pause_button, Qt.Key.Key_P)
    assert panel.player.is_playing
    qtbot.keyClick(live.pause_button, Qt.Key.Key_P)
    assert not panel.player.is_playing and not panel.playhead.isVisible()
    edit = panel.name.lineEdit()
    edit.setFocus()
    edit.clear()
    qtbot.keyClicks(edit, "pp")
    assert edit.text() == "pp" and not panel.player.is_playing


def test_missing_audio_is_said_and_the_session_runs_without_it(live, qtbot, tmp_path):  # noqa: F811
    bundle = write_meeting(tmp_path / "in", audio="gone.wav")
    start(qtbot, live, bundle, "diar_clusters", "active", 30, tmp_path / "out")
    assert (f"{bundle}:10: warning: document 'meeting': audio file 'gone.wav' not found; it "
            "opens without audio") in live.status.text()
    panel = live.diar_panel
    assert live.snap.question is not None and panel.isVisible()
    assert not panel.play.isEnabled() and panel.audio_note.text().startswith("no audio")
    panel.play.setFocus()
    qtbot.keyClick(panel.play, Qt.Key.Key_P)
    assert not panel.player.is_playing


def test_the_demo_meeting_answered_by_listening(live, qtbot, tmp_path, capsys):  # noqa: F811
    """The demo meeting (real synthetic voices) with the system that hears it: each window is
    played (P) and checked against the recording; the answer is who speaks in what was
    played, as the reference says (the listener's ear); the log replays to the window's
    numbers."""
    from llgui.io.rttm import load_turns
    from llgui.resources import demo_dir

    meeting = demo_dir() / "meeting"
    reference = load_turns(str(meeting / "meeting.rttm"))["meeting"]

    def speaker(t: float) -> str | None:
        speaking = [(turn.start, turn.speaker) for turn in reference
                    if turn.start <= t < turn.end]
        return max(speaking)[1] if speaking else None

    start(qtbot, live, meeting / "bundle.toml", "diar_audio", "active", 20, tmp_path / "out")
    live.activateWindow()
    panel = live.diar_panel
    assert live.command()[1] == "diar_audio" and panel.play.isEnabled()
    answers = []
    while not live.snap.finished and len(answers) < 3:
        asked = live.snap
        q = asked.question
        played = listen(qtbot, live)                  # the samples are the file's regions
        heard = [speaker(0.5 * (a + b)) for a, b, _ in played]
        if q.kind == "same":
            same = heard[0] is not None and heard[0] == heard[1]
            qtbot.keyClick(panel, Qt.Key.Key_Y if same else Qt.Key.Key_N,
                           Qt.KeyboardModifier.AltModifier)
            answers.append(("same", same))
        else:
            assert q.kind == "name" and heard[0] is not None
            edit = panel.name.lineEdit()
            qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(edit, heard[0])
            panel.send_name.setFocus()
            qtbot.keyClick(panel.send_name, Qt.Key.Key_Space)
            answers.append(("name", heard[0]))
        qtbot.waitUntil(lambda: live.snap is not asked and not live.busy, timeout=120000)
    if not live.snap.finished:
        live.finish_button.click()
        wait_idle(qtbot, live, timeout=120000)
    log = read_log(tmp_path / "out")
    assert [(r["kind"], r["answer"]) for r in log] == answers and len(answers) >= 2
    assert_replays(capsys, live, tmp_path / "out")


def test_a_lying_header_is_the_warning_and_the_session_runs(live, qtbot, tmp_path):  # noqa: F811
    """Issue 38.1: a WAV whose data chunk announces 10x its bytes (wave raises RuntimeError,
    once an internal error) is the documented warning in the live session too."""
    from tests.meeting_audio import write_lying_wav

    bundle = write_meeting(tmp_path / "in", audio="lying.wav")
    write_lying_wav(tmp_path / "in" / "lying.wav")
    start(qtbot, live, bundle, "diar_clusters", "active", 30, tmp_path / "out")
    assert (f"{bundle}:10: warning: document 'meeting': audio file 'lying.wav' is cut short: "
            "its header announces more bytes") in live.status.text()
    assert live.snap.question is not None
    assert not live.diar_panel.play.isEnabled()
