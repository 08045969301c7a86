"""A live log made through the window with real key events (Session › Start live session…, the
typed translation over the hypothesis): `llgui effort` reads it, its agreement equals the count
of the answers typed as the reference, and the cost model is fitted to the seconds the window
measured (issue 34)."""
from __future__ import annotations

import json

from llgui.cli.main import main
from llgui.sim.live import read_log
from tests.gui.live.test_window import answer_mt, live, start  # noqa: F401 - the fixture
from tests.sim.test_simulate_demo import first_document_bundle


def test_effort_of_a_session_typed_in_the_window(live, qtbot, tmp_path, demo_dir,  # noqa: F811
                                                 capsys):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path)
    start(qtbot, live, bundle, "mt_memory", "active", 60, tmp_path / "out")
    typed_reference = 0
    n = 0
    while live.snap is not None and live.snap.question is not None and n < 6:
        typed_reference += n % 2 == 0
        answer_mt(qtbot, live, n)
        n += 1
    assert n >= 3
    log = read_log(tmp_path / "out")
    assert len(log) == n and all(r["effort"]["seconds"] > 0 for r in log)
    assert main(["effort", str(tmp_path / "out"), "--format", "json"]) == 0
    human = json.loads(capsys.readouterr().out)["human"]
    # by hand: the answers typed as the reference agree; " ok" added to the hypothesis
    # never makes it the reference
    assert human["agreement"]["compared"] == n
    assert human["agreement"]["agree"] == typed_reference
    fit = human["cost_fit"]
    assert fit is not None and fit["steps"] == n
    assert set(fit["weights"]) == {"reference_weight", "post_edit_weight"}
    assert [r["seconds"] for r in human["effort"]] == [r["effort"]["seconds"] for r in log]
