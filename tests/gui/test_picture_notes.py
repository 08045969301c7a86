"""A picture that is not what was asked says so (outsider38: `--doc news-2023-01-9` exited 0
with the error only inside the picture, `--step 99` and `--size 300x200` were silently a step
10 and a 1125x480 picture)."""
from __future__ import annotations

import os
import struct
import subprocess
import sys

from tests.gui.conftest import shown_window


def test_a_mistyped_doc_a_step_past_the_end_and_a_small_size_are_said(tmp_path):
    target = tmp_path / "p.png"
    done = subprocess.run(
        [sys.executable, "-m", "llgui", "--demo", "--doc", "news-2023-01-9", "--step", "99",
         "--size", "300x200", "--screenshot", str(target)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2, done.stderr   # a document asked for that is not there
    said = done.stderr
    assert ("--doc news-2023-01-9: no such document in the open bundles; did you mean "
            "'news-2023-01-09'?") in said
    # the first document is shown instead, at its last step (the demo's first document has
    # 10 steps in resources/demo/mt/logs/system.jsonl)
    assert "--step 99: news-2023-01-09 has steps 0 to 10; the picture shows step 10" in said
    width, height = struct.unpack(">II", target.read_bytes()[16:24])   # the PNG's IHDR
    assert (width, height) != (300, 200)
    assert "--size 300x200: the window is at least" in said
    assert f"the picture is {width}x{height}" in said
    assert "Traceback" not in said


def test_a_replay_that_fails_ends_the_wait_for_the_picture(qtbot, monkeypatch):
    """The window waited ten minutes for a document whose replay had failed (the wheel's demo
    under NUMBA_DISABLE_JIT: the kernel's warm-up read past a row; fixed) before taking its
    picture; the failure is now settled at once and said."""
    import llgui
    from llgui.gui.jobs import workbench as work

    def broken(*_args, **_kwargs):
        raise IndexError("index 2 is out of bounds for axis 0 with size 1")

    monkeypatch.setattr(work, "walk_job", broken)   # a fault, not a computation under test
    window = shown_window(qtbot)
    window.open_bundles([str(llgui.demo_dir() / "mt" / "bundle.toml")])
    settled = []
    window.when_settled(lambda: settled.append(True), timeout_ms=600000)
    qtbot.waitUntil(lambda: bool(settled), timeout=60000)   # (not ten minutes)
    assert window.job_failures == ["walk: IndexError: index 2 is out of bounds for axis 0 "
                                   "with size 1"]
    window.jobs.shutdown(2000)


def test_the_significance_kernels_warm_up_within_their_rows():
    """The penalised kernel's warm-up ran DER's score on one-column rows (it reads five):
    compiled code read past them silently, the same code interpreted (NUMBA_DISABLE_JIT=1,
    which checks every index) raised IndexError."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "from llgui.core.significance import _penalised_kernel, "
         "_det_kernel; _penalised_kernel.warm(); _det_kernel.warm()"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr


def test_the_workbench_signature_is_shown_on_the_workbench_only(qtbot):
    """The Detection tab's status bar said "BLEU: nrefs:1|..." (the workbench document's
    metric), as if it were the DET's (outsider38)."""
    window = shown_window(qtbot)
    window.signature_label.setText("BLEU: nrefs:1|case:mixed|eff:no|tok:13a")
    assert window.signature_label.isVisible()
    for tab in ("detection", "systems", "time"):
        window.show_tab(tab)
        assert not window.signature_label.isVisible(), tab
    window.show_tab("workbench")
    assert window.signature_label.isVisible()
