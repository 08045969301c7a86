"""Minor findings of an outsider's first hour (README and docs/ only), each failing on the code
before its fix."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

MT = REPO / "resources" / "demo" / "mt"


def test_a_short_hypothesis_on_standard_input_is_named_stdin_not_a_temporary_file():
    """`head -5 HYP | llgui score --ref REF` named the hypothesis
    /tmp/llgui-stdin-…/stdin.txt in its reason; docs/cli.md promises `<stdin>`."""
    doc = "news-2023-01-09"
    lines = (MT / "hyp" / f"{doc}.drm").read_text(encoding="utf-8").splitlines(True)[:5]
    done = subprocess.run([sys.executable, "-m", "llgui", "score", "--ref",
                           str(MT / "ref" / f"{doc}.drm")], input="".join(lines),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    # the hypothesis, the file to fix, named <stdin> at its last line (outsider helper-55)
    assert done.stderr.startswith("<stdin>:5: has 5 lines but the reference "), done.stderr
    assert "llgui-stdin" not in done.stderr
    assert "llgui-stdin-" not in done.stderr


def test_dev_py_help_is_not_an_error_and_an_unknown_command_is_named():
    done = subprocess.run([sys.executable, str(REPO / "dev.py"), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "python3 dev.py test" in done.stdout
    done = subprocess.run([sys.executable, str(REPO / "dev.py"), "tset"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "unknown command 'tset'" in done.stderr


def test_the_api_load_says_which_file_was_meant_as_the_command_line_does():
    """`llgui.load("…/bundel.toml")` raised "file not found" where `llgui score` says "did you
    mean …/bundle.toml"."""
    import pytest

    import llgui

    with pytest.raises(llgui.LoadError) as error:
        llgui.load(MT / "bundel.toml")
    assert f"did you mean {str(MT / 'bundle.toml')!r}" in str(error.value)
