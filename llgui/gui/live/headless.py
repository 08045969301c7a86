"""`llgui BUNDLE --live [--system NAME] [--live-out DIR] [--screenshot PNG]`: the live session
on a bundle, started from the command line (Session › Start live session… without the menu).

With --screenshot the session starts, waits for the system's first question (or its failure),
renders the window to the picture and exits: the live session can be looked at headless
(offscreen) like the workbench. Without it the window stays open for the expert."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

WAIT_MS = 600_000
"""How long a --screenshot run waits for the system's first question before rendering what
it has (a slow system says "The system is thinking…")."""
POLL_MS = 100


def run_live(app, args, width: int, height: int) -> int:
    """Open the live session on `args.bundles[0]` with `args.system`, start it, and with
    `args.screenshot` render it once the first question is shown (exit 0; 2 when the session
    could not start, the picture showing why)."""
    from PySide6.QtCore import QElapsedTimer, QTimer

    from llgui.gui.live.window import LiveSessionWindow

    if len(args.bundles) != 1 or args.demo:
        print("llgui: --live opens one bundle: llgui BUNDLE --live [--system NAME]",
              file=sys.stderr)
        return 2
    bundle = args.bundles[0]
    if not bundle.is_file():
        print(f"llgui: {bundle}: no such bundle file", file=sys.stderr)
        return 2
    window = LiveSessionWindow(bundle_path=str(bundle))
    window.resize(width, height)
    if args.system:
        window.system.setCurrentText(args.system)
    if args.live_out:
        window.out_edit.setText(str(args.live_out))
    elif args.screenshot:   # a picture only: the session's files go to a scratch folder
        window.out_edit.setText(str(Path(tempfile.mkdtemp(prefix="llgui-live-")) / "session"))
    window.show()
    QTimer.singleShot(0, window._on_start)
    if not args.screenshot:
        return app.exec()

    target = args.screenshot
    clock = QElapsedTimer()
    clock.start()
    timer = QTimer()
    timer.setInterval(POLL_MS)

    def poll() -> None:
        started = window.snap is not None or window.live is not None
        if window.busy or not (started or window.status.text().startswith("Could not")):
            if clock.elapsed() < WAIT_MS:
                return
        timer.stop()
        app.processEvents()
        try:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            saved = window.grab().save(str(target))
        except OSError:
            saved = False
        code = 0 if saved else 2
        if not saved:   # (main checked the folder: a full disk, or not an image suffix)
            print(f"llgui: --screenshot {target}: the picture could not be written",
                  file=sys.stderr)
        if window.live is None:   # it did not start: the picture and the exit say why
            print(f"llgui: {window.status.text()}", file=sys.stderr)
            code = 2
        window.close()            # closing pauses: the folder keeps what was asked
        window.jobs.shutdown(2000)
        app.exit(code)

    timer.timeout.connect(poll)
    QTimer.singleShot(POLL_MS, timer.start)
    return app.exec()
