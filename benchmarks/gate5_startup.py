"""Gate 5: from the command to the first painted window with the demo bundle.

Measured as wall time from starting a fresh Python process to the first paint, for
`python -m llgui --demo` and for a bare PySide6 + pyqtgraph window with one plot, alternately,
several times each (medians). PASS iff llgui takes no more than 2x the bare window.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import GateResult

NAME = "startup"
ROOT = Path(__file__).resolve().parent.parent

BARE = """
import os, sys, time
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
from PySide6.QtCore import QTimer, QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow
import pyqtgraph as pg
app = QApplication([])
window = QMainWindow()
plot = pg.PlotWidget()
plot.plot([0, 1, 2], [0, 1, 0])
window.setCentralWidget(plot)
window.resize(1500, 950)
class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print("llgui-first-paint", flush=True)
            os._exit(0)
        return False
watch = Watch()
# the plot's viewport is what gets painted (the main window itself is covered by it)
plot.viewport().installEventFilter(watch)
window.show()
app.exec()
"""


def _run(args: list[str], env: dict, timeout: float = 60.0) -> float:
    import threading

    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    killer = threading.Timer(timeout, proc.kill)  # a window that never paints fails the gate
    killer.start()
    try:
        for line in proc.stdout:
            if line.startswith("llgui-first-paint"):
                elapsed = time.perf_counter() - start
                proc.wait(timeout=30)
                return elapsed
        proc.wait(timeout=30)
    finally:
        killer.cancel()
    raise RuntimeError(f"{args} exited ({proc.returncode}) without painting")


def run(repeat: int = 5) -> GateResult:
    # An installed package has its bytecode compiled; this sandbox sets PYTHONDONTWRITEBYTECODE,
    # which would leave llgui (an editable install) to be compiled from source at every start
    # while pyqtgraph, installed by pip, is not. Compile it once, as an install would.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "llgui")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYQTGRAPH_QT_LIB="PySide6",
                   LLGUI_EXIT_AFTER_FIRST_PAINT="1",
                   LLGUI_SESSION_FILE=str(Path(tmp) / "session.json"))
        llgui, bare = [], []
        _run([sys.executable, "-c", BARE], env)  # warm the file cache for both
        _run([sys.executable, "-m", "llgui", "--demo", "--no-session"], env)
        for _ in range(repeat):
            bare.append(_run([sys.executable, "-c", BARE], env))
            llgui.append(_run([sys.executable, "-m", "llgui", "--demo", "--no-session"], env))
    ours, theirs = statistics.median(llgui), statistics.median(bare)
    ratio = theirs / ours  # >= 0.5 means within 2x
    return GateResult(
        figure=f"{ours * 1000:.0f} ms to the first painted window with the demo "
               f"(bare window {theirs * 1000:.0f} ms, {ours / theirs:.2f}x of it)",
        ratio=ratio, library="bare PySide6+pyqtgraph window",
        passed=ours <= 2.0 * theirs,
        details=[f"llgui runs (s): {', '.join(f'{t:.3f}' for t in llgui)}",
                 f"bare runs (s):  {', '.join(f'{t:.3f}' for t in bare)}",
                 "ratio printed as bare/llgui; the gate is llgui <= 2x bare",
                 "llgui's bytecode compiled first (compileall), as a pip install does"])
