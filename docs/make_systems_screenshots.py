"""The Systems tab on the 4-document demo campaign (README, "Comparing systems"): the paired
test has too few documents, so nothing is starred and the status line says why.

    QT_QPA_PLATFORM=offscreen python docs/make_systems_screenshots.py
writes docs/systems-few-units-1366x768.png and docs/systems-few-units-1920x1080.png.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication


def main() -> int:
    from llgui.gui.demo import demo_campaign
    from llgui.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    out = Path(__file__).resolve().parent
    for width, height in ((1366, 768), (1920, 1080)):
        window = MainWindow(use_session=False)
        window.resize(width, height)
        window.show()
        window.jobs.release()
        assert window.open_campaign(demo_campaign())
        window.show_tab("systems")
        view = window.systems_view
        deadline = time.monotonic() + 300
        while (view.model.comparison is None or view.model.pending) and \
                time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        for _ in range(50):
            app.processEvents()
            time.sleep(0.01)
        path = out / f"systems-few-units-{width}x{height}.png"
        window.grab().save(str(path))
        print(path)
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
