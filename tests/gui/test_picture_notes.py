"""A picture that is not what was asked says so (outsider38: `--doc news-2023-01-9` exited 0
with the error only inside the picture, `--step 99` and `--size 300x200` were silently a step
10 and a 1125x480 picture)."""
from __future__ import annotations

import struct
import subprocess
import sys


def test_a_mistyped_doc_a_step_past_the_end_and_a_small_size_are_said(tmp_path):
    target = tmp_path / "p.png"
    done = subprocess.run(
        [sys.executable, "-m", "llgui", "--demo", "--doc", "news-2023-01-9", "--step", "99",
         "--size", "300x200", "--screenshot", str(target)],
        capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
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
