"""Tools › Simulate…: the run goes to a worker (the event loop never stalls > 100 ms), Cancel
ends the system's process, and the finished run opens with the numbers of `llgui replay`."""
from __future__ import annotations

import json
import sys
import time

import psutil
import pytest

from tests.gui.stall import LOADED_BUSY_LIMIT
from PySide6.QtCore import QTimer

from llgui.cli.main import main
from tests.sim.test_simulate_demo import first_document_bundle

SILENT = "import sys, time\nprint('{\"type\": \"hello\", \"name\": \"silent\"}', flush=True)\n" \
         "sys.stdin.readline(); sys.stdin.readline(); time.sleep(600)\n"


@pytest.fixture
def window(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.jobs.release()
    yield window
    window.jobs.shutdown(5000)


def _open_dialog(window):
    action = next(a for a in window.actions() if a.text() == "&Simulate…")
    action.trigger()
    return window.simulate_dialog


class GapMeter:
    """The longest gap between ticks of a 10 ms timer (how long the event loop stalled), and
    the most CPU time the main thread spent within one gap (how long it was busy, whatever
    the machine's load: with ten runnable processes on two cores a thread can wait 100 ms
    for the processor without anything blocking it)."""

    def __init__(self):
        self.last, self.last_cpu = time.perf_counter(), time.thread_time()
        self.worst = self.worst_cpu = 0.0
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self):
        now, cpu = time.perf_counter(), time.thread_time()
        self.worst = max(self.worst, now - self.last)
        self.worst_cpu = max(self.worst_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu

    def check(self, limit: float = LOADED_BUSY_LIMIT) -> None:
        # the main thread's own work only: wall-clock stalls grow with the machine's load (the
        # 1-minute load average said 'not overloaded' while two test workers ran) and are the
        # benchmarks' (tests/gui/stall.py)
        assert self.worst_cpu < limit, (f"the event loop was busy {1000 * self.worst_cpu:.0f} "
                                        f"ms (longest gap {1000 * self.worst:.0f} ms)")


def test_simulate_runs_on_a_worker_and_opens_the_run(window, qtbot, tmp_path, demo_dir, capsys):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    dialog = _open_dialog(window)
    dialog.bundle_edit.setText(str(bundle))
    dialog.systems_edit.setPlainText("mt_memory")
    dialog.oracle_boxes["worst-first"].setChecked(True)     # allies + worst-first: a panel
    dialog.budget.setValue(60.0)
    dialog.out_edit.setText(str(tmp_path / "out"))
    # the scoring libraries are imported once per session, as the window does on its first
    # bundle; loading their C extensions holds the interpreter and is not the simulation's
    import sacrebleu.metrics  # noqa: F401
    import llgui.sim.run  # noqa: F401
    meter = GapMeter()
    with qtbot.waitSignal(dialog.run_finished, timeout=120000):
        dialog.run_button.click()
    meter.timer.stop()
    meter.check()
    assert dialog.panel_table.isVisible() and dialog.panel_table.rowCount() == 3
    opened = [b.path for b in window.state.bundles]
    folder = tmp_path / "out" / "mt_memory" / "worst-first"
    assert str(folder / "bundle.toml") in [str(p) for p in opened]
    index = [str(p) for p in opened].index(str(folder / "bundle.toml"))
    doc = window.state.bundles[index].documents[0].id
    window.state.select(index, doc, step=0)
    qtbot.waitUntil(lambda: window.workbench.ready() and window.workbench.walkthrough is not None
                    and window.workbench.walkthrough.document.id == doc
                    and window.state.bundle() is window.state.bundles[index], timeout=60000)
    shown = window.workbench.walkthrough.replay
    assert main(["replay", str(folder / "bundle.toml"), "--doc", doc, "--metric", shown.metric,
                 "--format", "json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert shown.steps and [s.s_pen for s in shown.steps] == [s["s_pen"] for s in replayed["steps"]]
    assert shown.s_base == replayed["s_base"]


def test_cancel_ends_the_system(window, qtbot, tmp_path, demo_dir):
    script = tmp_path / "silent.py"
    script.write_text(SILENT, encoding="utf-8")
    dialog = _open_dialog(window)
    dialog.bundle_edit.setText(str(demo_dir / "mt" / "bundle.toml"))
    dialog.systems_edit.setPlainText(f"silent={sys.executable} {script}")
    dialog.timeout.setValue(300.0)
    dialog.out_edit.setText(str(tmp_path / "out"))
    me = psutil.Process()

    def system():
        found = []
        for p in me.children(recursive=True):
            try:
                if any("silent.py" in part for part in p.cmdline()) and \
                        p.status() != psutil.STATUS_ZOMBIE:
                    found.append(p)
            except psutil.Error:  # gone (or a zombie) while we looked
                pass
        return found

    dialog.run_button.click()
    qtbot.waitUntil(lambda: bool(system()) and (tmp_path / "out" / "bundle.toml").exists(),
                    timeout=30000)
    with qtbot.waitSignal(window.jobs.cancelled, timeout=5000):
        dialog.cancel_button.click()
    qtbot.waitUntil(lambda: not system(), timeout=5000)
    qtbot.waitUntil(lambda: not window.jobs.busy, timeout=5000)
    assert "Cancelled" in dialog.status.text()
    assert dialog.run_button.isEnabled()
