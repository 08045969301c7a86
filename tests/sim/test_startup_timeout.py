"""A start-up limit of its own (issue 32, item 7): a real system that takes 2.5 s to start (a
model loading) runs with `--timeout 2 --startup-timeout 60`, where `--timeout 2` alone
fails it at its hello with exit 3 saying so."""
from __future__ import annotations

import json
import sys

from llgui.cli.main import main
from tests.conftest import DEMO

SLOW = (f"{sys.executable} -c \"import time, runpy; time.sleep(2.5); "
        f"runpy.run_module('llgui.systems.static', run_name='__main__')\"")


def test_a_slow_start_needs_only_the_startup_timeout(tmp_path, capsys):
    bundle = str(DEMO / "mt" / "bundle.toml")
    out = tmp_path / "fails"
    assert main(["simulate", bundle, "--system", f"slow={SLOW}", "--timeout", "2",
                 "--out", str(out), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "hello" in err and "no reply within" in err, err
    out = tmp_path / "runs"
    assert main(["simulate", bundle, "--system", f"slow={SLOW}", "--timeout", "2",
                 "--startup-timeout", "60", "--out", str(out), "--quiet",
                 "--format", "json"]) == 0, capsys.readouterr().err
    run = json.loads((out / "run.json").read_text())
    assert run["exit"] == 0 and run["startup_timeout"] == 60 and run["timeout"] == 2
    assert len(run["documents"]) == 4


def test_the_startup_timeout_is_checked(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit) as exit_:   # argparse's own exit 2
        main(["simulate", str(DEMO / "mt" / "bundle.toml"), "--system", "static",
              "--startup-timeout", "0", "--out", str(tmp_path / "x"), "--quiet"])
    assert exit_.value.code == 2
    assert "--startup-timeout: '0': must be a number > 0" in capsys.readouterr().err
