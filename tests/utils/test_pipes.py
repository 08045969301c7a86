"""A child's pipes are closed by the code that started it, not by the garbage collector: left
open, each was an "unclosed file" ResourceWarning raised wherever the collector next ran (12
of them in a test run, inside an unrelated test of the demo's detection bundle)."""
from __future__ import annotations

import gc
import sys
import warnings

import pytest


def _resource_warnings(run) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        result = run()
        gc.collect()
    return result, [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_json_of_child_closes_the_childs_pipes():
    from llgui.campaign.child import json_of_child

    command = [sys.executable, "-c", "import sys; print('{\"a\": 1}'); print('x', file=sys.stderr)"]
    result, leaked = _resource_warnings(lambda: json_of_child(command, "probe"))
    assert result == {"a": 1}
    assert leaked == []


def test_a_failing_child_closes_its_pipes_too():
    from llgui.campaign.child import json_of_child

    command = [sys.executable, "-c", "import sys; print('broken', file=sys.stderr); sys.exit(3)"]

    def run():
        with pytest.raises(RuntimeError, match="exit 3.*broken"):
            json_of_child(command, "probe")

    _, leaked = _resource_warnings(run)
    assert leaked == []


def test_a_cancelled_child_closes_its_pipes():
    from llgui.campaign.child import json_of_child
    from llgui.core.jobs import Cancelled

    command = [sys.executable, "-c", "import time; time.sleep(30)"]

    def run():
        with pytest.raises(Cancelled):
            json_of_child(command, "probe", should_stop=lambda: True)

    _, leaked = _resource_warnings(run)
    assert leaked == []


def test_a_system_process_killed_closes_its_pipes(tmp_path):
    from llgui.sim.process import SystemProcess

    def run():
        system = SystemProcess([sys.executable, "-c", "import time; time.sleep(30)"],
                               tmp_path / "system.stderr")
        system.kill()
        return system.proc.stdout.closed and system.proc.stderr.closed

    closed, leaked = _resource_warnings(run)
    assert closed and leaked == []
