"""Playback: the samples the player hands out are the file's region, decoded here with
`wave`; the playhead runs in real time over the region (a clock where there is no audio
device, said once; the device's own count where there is one); the workbench plays a step's listened windows and a Shift+dragged
region with real keys; missing or mismatched audio is said in the status bar and the
document opens as without it."""
from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from llgui.gui.audio import NO_DEVICE, NO_MULTIMEDIA, AudioPlayer, output_device
from llgui.io.audio import probe
from tests.gui.conftest import settle, shown_window
from tests.meeting_audio import decode, write_meeting

STEP = {"doc": "meeting", "step": 1, "initiative": "active", "kind": "same",
        "target": {"t1": 1.5, "t2": 5.0}, "answer": False}


class Recorder:
    """(wall-clock seconds since play, position) of every position signal."""

    def __init__(self, player):
        self.rows: list[tuple[float, float]] = []
        self.t0 = time.monotonic()
        player.position.connect(lambda t: self.rows.append((time.monotonic() - self.t0, t)))

    def positions(self) -> list[float]:
        return [t for _, t in self.rows if t >= 0]


def wait_stopped(qtbot, player, timeout=10000) -> None:
    qtbot.waitUntil(lambda: not player.is_playing, timeout=timeout)


def test_the_samples_played_are_the_files_region(qtbot, tmp_path):
    write_meeting(tmp_path)
    audio = probe(tmp_path / "meeting.wav")
    player = AudioPlayer()
    player.keep_samples = True
    said = []
    player.message.connect(said.append)
    rec = Recorder(player)
    assert player.play(audio, [(3.4, 4.2)])
    wait_stopped(qtbot, player)
    ((start, end, data),) = player.played
    assert (start, end) == (3.4, 4.2)
    assert data == decode(tmp_path / "meeting.wav", 3.4, 4.2)
    positions = rec.positions()
    assert positions[0] == 3.4 and positions[-1] == pytest.approx(4.2, abs=1e-9)
    assert positions == sorted(positions) and len(positions) > 10
    # real time: never ahead of the wall clock, and the region took its length to play
    for elapsed, t in rec.rows:
        if t >= 0:
            assert t - 3.4 <= elapsed + 0.01
    assert rec.rows[-1][0] >= 0.8 - 0.03
    assert rec.rows[-1][1] == -1.0          # stopped: the playhead is taken away
    device, why = output_device()
    assert said == ([] if device is not None else [why]) and why in ("", NO_DEVICE,
                                                                      NO_MULTIMEDIA)


def test_spans_play_in_order_and_the_missing_device_is_said_once(qtbot, tmp_path):
    write_meeting(tmp_path)
    audio = probe(tmp_path / "meeting.wav")
    player = AudioPlayer()
    player.keep_samples = True
    said = []
    player.message.connect(said.append)
    spans = [(10.0, 10.3), (0.5, 0.7), (19.9, 25.0)]   # the last one runs past the end
    rec = Recorder(player)
    player.play(audio, spans)
    wait_stopped(qtbot, player)
    assert [(a, b) for a, b, _ in player.played] == [(10.0, 10.3), (0.5, 0.7), (19.9, 20.0)]
    for a, b, data in player.played:
        assert data == decode(tmp_path / "meeting.wav", a, b)
    # the playhead goes through the spans in order, never outside them
    which = [next(k for k, (a, b, _) in enumerate(player.played) if a <= t <= b)
             for t in rec.positions()]
    assert which == sorted(which) and which[0] == 0 and which[-1] == 2
    player.play(audio, [(1.0, 1.1)])
    wait_stopped(qtbot, player)
    assert len(said) == (0 if output_device()[0] is not None else 1)


def test_flac_plays_the_files_region(qtbot, tmp_path):
    import soundfile

    from tests.meeting_audio import samples

    soundfile.write(tmp_path / "m.flac", samples(), 16000, subtype="PCM_16")
    player = AudioPlayer()
    player.keep_samples = True
    player.play(probe(tmp_path / "m.flac"), [(12.0, 12.4)])
    wait_stopped(qtbot, player)
    ((a, b, data),) = player.played
    want, _ = soundfile.read(tmp_path / "m.flac", start=12 * 16000, stop=int(12.4 * 16000),
                             dtype="int16")
    assert (a, b) == (12.0, 12.4) and data == want.tobytes()


def test_stop_mid_way_keeps_what_was_handed_out(qtbot, tmp_path):
    write_meeting(tmp_path)
    audio = probe(tmp_path / "meeting.wav")
    player = AudioPlayer()
    player.keep_samples = True
    player.play(audio, [(2.0, 12.0)])
    qtbot.waitUntil(lambda: player.current > 2.3, timeout=5000)
    player.stop()
    ((start, end, data),) = player.played
    assert start == 2.0 and 2.3 < end < 4.0
    assert data == decode(tmp_path / "meeting.wav", start, end)
    assert not player.is_playing and player.current == -1.0


def test_a_file_gone_since_the_load_is_said_and_nothing_plays(qtbot, tmp_path):
    write_meeting(tmp_path)
    audio = probe(tmp_path / "meeting.wav")
    (tmp_path / "meeting.wav").unlink()
    player = AudioPlayer()
    said = []
    player.message.connect(said.append)
    assert not player.play(audio, [(1.0, 2.0)])
    assert not player.is_playing and "cannot be opened any more" in said[0]


# -- the workbench ---------------------------------------------------------------------------

@pytest.fixture
def bench(qtbot):
    window = shown_window(qtbot, 1400, 900)
    yield window
    window.workbench.audio.player.stop()
    window.jobs.shutdown(2000)


def open_meeting(qtbot, window, folder, audio="meeting.wav"):
    bundle = write_meeting(folder, audio=audio, log=json.dumps(STEP) + "\n")
    assert window.open_bundles([bundle], tab="workbench")
    settle(qtbot, window)
    window.state.set_step(1)
    qtbot.waitUntil(lambda: window.workbench.diar_view.shown == ("meeting", 1), timeout=20000)
    return bundle


def test_space_plays_the_listened_windows_under_a_moving_playhead(qtbot, bench, tmp_path):
    open_meeting(qtbot, bench, tmp_path)
    bar, view = bench.workbench.audio, bench.workbench.diar_view
    assert bar.play_windows.isEnabled() and len(bar.windows) == 2
    bar.player.keep_samples = True
    bar.player.clock_speed = 4.0     # no device offscreen: the clock's pace, not the samples
    heads = []
    bar.player.position.connect(
        lambda t: heads.append(view.playhead.value() if view.playhead.isVisible() else None))
    qtbot.keyClick(bench.workbench.table, Qt.Key.Key_Space)
    assert bar.player.is_playing and bar.stop_button.isEnabled()
    wait_stopped(qtbot, bar.player)
    played = [(a, b) for a, b, _ in bar.player.played]
    assert played == [tuple(w) for w in bar.windows]
    for a, b, data in bar.player.played:
        assert data == decode(tmp_path / "meeting.wav", a, b)
    shown = [h for h in heads if h is not None]
    assert shown and all(any(a <= h <= b for a, b in bar.windows) for h in shown)
    assert not view.playhead.isVisible()            # stopped: no playhead left behind


def test_one_window_and_space_stops(qtbot, bench, tmp_path):
    open_meeting(qtbot, bench, tmp_path)
    bar = bench.workbench.audio
    bar.player.keep_samples = True
    bar.which.setCurrentIndex(2)                    # the second window alone
    qtbot.mouseClick(bar.play_windows, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bar.player.current > bar.windows[1][0] + 0.2, timeout=5000)
    qtbot.keyClick(bench.workbench.table, Qt.Key.Key_Space)
    assert not bar.player.is_playing
    ((a, b, data),) = bar.player.played
    assert a == bar.windows[1][0] and a + 0.2 < b < bar.windows[1][1]
    assert data == decode(tmp_path / "meeting.wav", a, b)


def _drag(qtbot, widget, start, end, modifiers) -> None:
    """A real mouse drag on `widget`: press, moves with the button (and `modifiers`) held,
    release. (QTest's mouseMove carries no modifiers: the moves are sent as events.)"""
    left = Qt.MouseButton.LeftButton
    qtbot.mousePress(widget, left, modifiers, start)
    for k in range(1, 11):
        pos = QPointF(start + (end - start) * k / 10)
        QApplication.sendEvent(widget, QMouseEvent(
            QEvent.Type.MouseMove, pos, QPointF(widget.mapToGlobal(pos.toPoint())),
            Qt.MouseButton.NoButton, left, modifiers))
        qtbot.wait(5)
    qtbot.mouseRelease(widget, left, modifiers, end)


def test_shift_drag_selects_a_region_that_space_plays(qtbot, bench, tmp_path):
    open_meeting(qtbot, bench, tmp_path)
    bar, view = bench.workbench.audio, bench.workbench.diar_view
    plot = view.plot
    box = plot.getPlotItem().getViewBox()
    box.setXRange(0.0, 8.0, padding=0)               # as a user would zoom
    qtbot.wait(100)
    lo, hi = 2.2, 3.2
    a = plot.mapFromScene(box.mapViewToScene(QPointF(lo, -1.0)))
    b = plot.mapFromScene(box.mapViewToScene(QPointF(hi, -1.0)))
    before = box.viewRange()[0]
    _drag(qtbot, plot.viewport(), a, b, Qt.KeyboardModifier.ShiftModifier)
    assert box.viewRange()[0] == before             # Shift+drag selects, never pans
    assert bar.selection is not None
    s, e = bar.selection
    assert s == pytest.approx(lo, abs=0.05) and e == pytest.approx(hi, abs=0.05)
    assert view.selection.isVisible() and bar.play_selection.isEnabled()
    bar.player.keep_samples = True
    qtbot.keyClick(bench.workbench.table, Qt.Key.Key_Space)
    wait_stopped(qtbot, bar.player)
    ((a0, b0, data),) = bar.player.played
    assert (a0, b0) == pytest.approx((s, e), abs=1 / 16000)
    assert data == decode(tmp_path / "meeting.wav", a0, b0)


@pytest.mark.parametrize("audio, reason", [
    ("gone.wav", "audio file 'gone.wav' not found"),
    ("short.wav", "audio file 'short.wav' lasts 5.000 s but the document's turns reach"),
    # issue 38.1: a header announcing 10x the bytes the file holds (wave: RuntimeError)
    ("lying.wav", "audio file 'lying.wav' is cut short: its header announces more bytes"),
])
def test_missing_or_mismatched_audio_is_said_and_the_window_stays(qtbot, bench, tmp_path,
                                                                   audio, reason):
    from tests.meeting_audio import samples, write_lying_wav, write_wav

    tmp_path.mkdir(exist_ok=True)
    write_wav(tmp_path / "short.wav", samples(5.0))
    write_lying_wav(tmp_path / "lying.wav")
    bundle = open_meeting(qtbot, bench, tmp_path, audio=audio)
    qtbot.waitUntil(lambda: reason in bench.statusBar().currentMessage(), timeout=5000)
    message = bench.statusBar().currentMessage()
    assert f"{bundle}:10: warning: document 'meeting': {reason}" in message
    bar = bench.workbench.audio
    assert bench.state.document().audio is None
    assert bench.workbench.diar_view.shown == ("meeting", 1)   # the document, as without audio
    assert not bar.isVisibleTo(bench) and not bar.play_windows.isEnabled()
    assert not bar.play_selection.isEnabled() and bar.where.text().startswith("no audio")
    qtbot.keyClick(bench.workbench.table, Qt.Key.Key_Space)
    assert not bar.player.is_playing


def test_space_keeps_its_meaning_on_a_focused_check_box_and_a_new_step_stops(qtbot, bench,
                                                                             tmp_path):
    from PySide6.QtWidgets import QCheckBox

    open_meeting(qtbot, bench, tmp_path)
    bar = bench.workbench.audio
    box = bench.workbench.cost_editor.findChild(QCheckBox)
    box.setFocus()
    before = box.isChecked()
    qtbot.keyClick(box, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: box.isChecked() != before, timeout=2000)
    assert not bar.player.is_playing
    bench.workbench.table.setFocus()
    qtbot.keyClick(bench.workbench.table, Qt.Key.Key_Space)
    assert bar.player.is_playing
    bench.state.set_step(0)
    assert not bar.player.is_playing



def test_split_panels_select_for_their_overview_and_show_the_playhead(qtbot, tmp_path):
    from llgui.gui.workbench.diar_view import DiarView
    from tests.gui.workbench.test_real_data import diar_walk

    result = diar_walk(tmp_path)
    view = DiarView()
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    view.show_step(result, 1, result.errors_at(1))
    assert view.split is not None and len(view.split.panels) >= 2
    first, second = view.split.panels[:2]
    got = []
    view.selection_changed.connect(got.append)
    (a0, b0), (a1, b1) = (p.plot.getPlotItem().getViewBox().viewRange()[0]
                          for p in (first, second))
    first.select(a0 + 1, a0 + 2)                  # what a Shift+drag in a panel does
    second.select(a1 + 1, a1 + 3)
    assert got == [(a0 + 1, a0 + 2), (a1 + 1, a1 + 3)]
    assert second.selection.isVisible() and not first.selection.isVisible()
    view.set_playhead(a1 + 2)
    assert all(p.playhead.isVisible() and p.playhead.value() == a1 + 2
               for p in (view, first, second))
    view.set_playhead(None)
    assert not any(p.playhead.isVisible() for p in (view, first, second))
    view.clear_selection()
    assert got[-1] is None and not second.selection.isVisible()
