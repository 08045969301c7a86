"""The window's command line names what was meant for an option it does not know: `score`'s
plain-file options (`llgui --ref R --hyp H --screenshot P` said only "unrecognized arguments:
--ref --hyp H"), or a close option (`--screenshoot`); exit 2, before Qt is imported."""
from __future__ import annotations

import subprocess
import sys

import pytest


LAUNCH = ("import sys, llgui.__main__ as m\n"
          "try:\n    code = m.main(sys.argv[1:])\n"
          "except SystemExit as stop:\n    code = stop.code\n"
          "assert 'PySide6' not in sys.modules, 'Qt imported'\nsys.exit(code)")


def _launch(argv, cwd) -> subprocess.CompletedProcess:
    """The window's launcher (`llgui.__main__.main`) on `argv` in a fresh Python, which
    fails if it imported Qt."""
    return subprocess.run([sys.executable, "-c", LAUNCH, *argv],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("argv,expected", [
    (["--ref", "a.rttm", "--hyp", "b.rttm", "--screenshot", "p.png"],
     "open plain files with File > Open files..., or score them with `llgui score --ref"),
    (["--screenshoot", "p.png"], "did you mean --screenshot?"),
])
def test_an_unknown_option_says_what_was_meant(tmp_path, argv, expected):
    done = _launch(argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "unrecognized arguments: " + argv[0] in done.stderr
    assert expected in done.stderr
    assert "no such file" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("argv", [["--demo", "--tab", "nosuch"], ["--demo", "--step", "abc"],
                                  ["--demo", "--tab"]])
def test_a_wrong_window_argument_is_said_once(tmp_path, argv):
    """`llgui --demo --tab nosuch` printed the usage and the error twice (the launcher's
    look at the bundles parsed the line first, aloud; outsider helper-40, finding 3)."""
    done = _launch(argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("error: argument") == 1, done.stderr
    assert done.stderr.count("usage: llgui") == 1, done.stderr
