"""The WMT23 en-zh pictures of docs/realdata: two systems on the same documents and their
campaign, as an MT expert on a laptop sees them.

    .venv/bin/python docs/realdata/make_bundles.py /tmp/realdata
    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/realdata/make_zh_screenshots.py /tmp/realdata

writes docs/realdata/wmt-zh-{workbench,time,systems}-1366x768.png,
wmt-zh-workbench-1920x1080.png and wmt-zh-workbench-ter-1366x768.png (document 2 at step 5,
ONLINE-B and NLLB_Greedy open, the campaign scored). The PNGs are stored with a 256-colour
palette (`small`): the window's flat colours exact, the files a quarter of the size.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

SHOTS = [  # (tab, width, height, metric, file suffix)
    ("workbench", 1366, 768, "bleu", ""),
    ("workbench", 1920, 1080, "bleu", ""),
    ("workbench", 1366, 768, "ter", "-ter"),
    ("time", 1366, 768, "bleu", ""),
    ("systems", 1366, 768, "bleu", ""),
]


def small(image: QImage) -> QImage:
    """`image` on a palette of 256 of its colours (the most frequent, and the rarest far from
    those), every other pixel (the anti-aliased edges of text) mapped to the nearest of them:
    the window's flat colours and every curve's colour stay exact, the PNG a third the size."""
    import numpy as np

    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32,
                           count=image.bytesPerLine() * h // 4).reshape(h, -1)[:, :w]
    colours, inverse, counts = np.unique(pixels, return_inverse=True, return_counts=True)

    def rgb(values):
        return np.stack([(values >> s) & 0xFF for s in (16, 8, 0)], axis=1).astype(np.int32)

    # the 192 most frequent colours, then, one at a time, the colour farthest from all chosen
    # (a rare one: a system's yellow curve would otherwise turn into the nearest red)
    chosen = list(np.argsort(-counts)[:192])
    candidates = np.flatnonzero(counts >= 3)
    far = ((rgb(colours[candidates])[:, None, :] - rgb(colours[chosen])[None, :, :]) ** 2
           ).sum(axis=2).min(axis=1)
    while len(chosen) < 256 and far.max() > 0:
        k = int(np.argmax(far))
        chosen.append(candidates[k])
        far = np.minimum(far, ((rgb(colours[candidates]) - rgb(colours[[candidates[k]]])) ** 2
                               ).sum(axis=1))
    palette = colours[chosen]
    distance = ((rgb(colours)[:, None, :] - rgb(palette)[None, :, :]) ** 2).sum(axis=2)
    index = np.argmin(distance, axis=1).astype(np.uint8)[inverse].reshape(h, w)
    out = QImage(w, h, QImage.Format.Format_Indexed8)
    out.setColorTable([int(c) for c in palette])
    for y in range(h):
        out.scanLine(y)[:w] = index[y].tobytes()
    return out


def main() -> int:
    from llgui.gui.main_window import MainWindow

    data = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/realdata")
    bundles = [data / "wmt-zh" / "run" / "bundle.toml", data / "wmt-zh-nllb" / "run" / "bundle.toml"]
    app = QApplication.instance() or QApplication(sys.argv)
    out = Path(__file__).resolve().parent

    def wait(window, seconds: float = 600) -> None:
        done: list[bool] = []
        window.when_settled(lambda: done.append(True), timeout_ms=int(seconds * 1000))
        deadline = time.monotonic() + seconds
        while not done and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)

    for tab, width, height, metric, suffix in SHOTS:
        window = MainWindow(use_session=False)
        window.resize(width, height)
        assert window.open_bundles([str(b) for b in bundles], select_doc="wmt23-en-zh-2",
                                   step=5, tab="workbench", metric=metric)
        window.show()
        window.jobs.release()
        wait(window)
        if tab != "workbench":
            assert window.open_campaign(data / "wmt-zh-campaign" / "campaign.toml", show=False)
            deadline = time.monotonic() + 600
            while window.jobs.busy and time.monotonic() < deadline:
                app.processEvents()
                time.sleep(0.05)
        window.show_tab(tab)
        wait(window, 300)
        path = out / f"wmt-zh-{tab}{suffix}-{width}x{height}.png"
        small(window.grab().toImage()).save(str(path), "PNG", 0)
        print(path, f"{path.stat().st_size // 1024} KiB")
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
