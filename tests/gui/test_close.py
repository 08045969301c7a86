"""Closing the window while scoring jobs run: never waits more than 2 s (issue 9, item 2)."""
from __future__ import annotations

import time


def test_closing_stops_a_long_ter_job_within_two_seconds(qtbot, tmp_path):
    from llgui.gui.main_window import MainWindow

    # TER of 3,000 long segments takes many seconds: the jobs are still running at close
    n = 3000
    words = " ".join(f"w{k}" for k in range(40))
    (tmp_path / "ref.txt").write_text("\n".join(f"{words} r{i}" for i in range(n)) + "\n")
    (tmp_path / "hyp.txt").write_text("\n".join(f"{words[::-1]} h{i}" for i in range(n)) + "\n")
    (tmp_path / "b.toml").write_text('[bundle]\ntask = "mt"\nmetrics = ["ter"]\n[[documents]]\n'
                                     'id = "d"\ntime = 1\nreferences = ["ref.txt"]\n'
                                     'hypothesis = "hyp.txt"\n')
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.show()
    assert window.open_bundles([tmp_path / "b.toml"])
    # jobs wait for the first paint; then the workers enter the track's scoring loop
    qtbot.waitUntil(lambda: window.jobs.pool.activeThreadCount() > 0, timeout=20000)
    time.sleep(0.5)
    start = time.monotonic()
    window.close()
    closed = time.monotonic() - start
    assert closed < 2.0
    # and the jobs really stopped (they did not merely outlive the wait)
    assert window.jobs.pool.waitForDone(1000)
    assert window.jobs.pool.activeThreadCount() == 0
