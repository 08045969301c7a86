"""The audio controls (docs/window.md, docs/live.md): the workbench playing a step's listened
windows under its playhead, a region selected; the live session playing a `same` question.

    QT_QPA_PLATFORM=offscreen python docs/make_audio_screenshots.py
writes docs/audio-workbench-WxH.png and docs/audio-live-WxH.png at 1366x768 and 1920x1080.

The meeting is the demo meeting (llgui/resources/demo/meeting/bundle.toml) when there is one, else
the tone meeting of the tests (one pitch per speaker, made here); `diar_clusters` is
simulated on it under the allies oracle for the workbench's steps.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's llgui (and the tests' meeting), not another

from PySide6.QtWidgets import QApplication  # noqa: E402

SIZES = ((1366, 768), (1920, 1080))


def pump(app, seconds: float, until=None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        if until is not None and until():
            return
        time.sleep(0.01)


def meeting(folder: Path) -> Path:
    from llgui.resources import demo_dir

    demo = demo_dir() / "meeting" / "bundle.toml"
    if demo.is_file():
        return demo
    from tests.meeting_audio import write_meeting

    return write_meeting(folder / "in")


def workbench(app, run: Path, out: Path, width: int, height: int) -> None:
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    window.resize(width, height)
    window.show()
    window.jobs.release()
    assert window.open_bundles([run], step=1, tab="workbench")
    bench = window.workbench
    pump(app, 60, lambda: not window.jobs.busy and bench.ready()
         and bench.diar_view.shown[1:] == (1,))
    bar = bench.audio
    a, b = bar.windows[0]
    bench.diar_view.select(a + 0.3 * (b - a), a + 0.7 * (b - a))   # as a Shift+drag does
    bar.play_listened()
    pump(app, 8, lambda: bar.player.current >= a + 0.5 * (b - a))   # the playhead mid-window
    path = out / f"audio-workbench-{width}x{height}.png"
    window.grab().save(str(path))
    print(path)
    bar.player.stop()
    window.jobs.shutdown(2000)
    window.close()


def live(app, bundle: Path, folder: Path, out: Path, width: int, height: int) -> None:
    from llgui.gui.live.window import LiveSessionWindow

    window = LiveSessionWindow()
    window.resize(width, height)
    window.show()
    window.bundle_edit.setText(str(bundle))
    window.system.setEditText("diar_clusters")
    window.mode.setCurrentText("active")
    window.budget.setValue(30)
    window.out_edit.setText(str(folder / f"live-{width}"))
    window.start_button.click()
    pump(app, 120, lambda: window.snap is not None and not window.busy)
    panel = window.diar_panel
    panel.toggle_play()
    a, b = panel.listen_spans()[0]
    pump(app, 8, lambda: panel.player.current >= a + 0.3 * (b - a))
    path = out / f"audio-live-{width}x{height}.png"
    window.grab().save(str(path))
    print(path)
    window.diar_panel.player.stop()
    window.close()
    window.jobs.shutdown(5000)


def main() -> int:
    from llgui.cli.main import main as cli

    app = QApplication.instance() or QApplication(sys.argv)
    out = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bundle = meeting(folder)
        assert cli(["simulate", str(bundle), "--system", "diar_clusters", "--oracle", "allies",
                    "--budget", "30", "--out", str(folder / "run"), "--quiet"]) == 0
        for width, height in SIZES:
            workbench(app, folder / "run" / "bundle.toml", out, width, height)
            live(app, bundle, folder, out, width, height)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
