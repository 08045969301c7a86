"""A run of interactive-predictive MT (mt_complete under the word-level prefix oracle, the
demo's first MT document, its first 10 sentences) in the workbench: each step reads as the prefix kept and the
typed word, and the bundle's WSR/KSR/MAR/KSMR stand under its S_pen, the numbers of
`llgui score`."""
from __future__ import annotations

import sys

from llgui import api
from llgui.core.mt.ipmt import PrefixAnswer
from llgui.gui.table_models import describe_answer, describe_step
from llgui.sim.run import run_simulation
from tests.gui.conftest import settle, shown_window
from tests.sim.test_simulate_demo import first_document_bundle


def test_prefix_run_in_the_workbench(qtbot, tmp_path, demo_dir):
    # its first 10 sentences: every step is a prefix step all the same, and the effort
    # figures are the bundle's (the 80 sentences took ~2 s of CPU more and showed no more)
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in", lines=10)
    run_simulation(bundle, [f"c={sys.executable} -m llgui.systems.mt_complete"], ["prefix"],
                   tmp_path / "out", budget=100000.0)
    folder = tmp_path / "out"
    window = shown_window(qtbot, 1366, 768)
    try:
        assert window.open_bundles([str(folder / "bundle.toml")])
        settle(qtbot, window)
        bench = window.workbench
        qtbot.waitUntil(lambda: "S_pen" in bench.aggregates.text(), timeout=120000)
        effort = api.score_report(folder / "bundle.toml")["ipmt"]
        text = bench.aggregates.text()
        assert f"WSR {effort['wsr']:.2f} %" in text and f"KSMR {effort['ksmr']:.2f} %" in text
    finally:
        window.jobs.shutdown(2000)
    step = window.state.bundles[0].steps[0]
    assert step.kind == "prefix"
    assert describe_answer(step) == f"{step.answer.prefix}[{step.answer.typed}]"
    assert "typed the word" in describe_step(step)
    accepted = step.__class__(**{**step.__dict__, "answer": PrefixAnswer("a b", "")})
    assert describe_answer(accepted) == "accepted: a b"


def test_a_step_header_counts_in_the_unit_of_the_step():
    """"kept 1 word(s)" for a Japanese prefix of 7 characters was wrong: characters for a
    character step (spaces included) and for a script without spaces, words otherwise."""
    from llgui.core.types import SentenceTarget, Step

    def header(prefix, typed, unit="word"):
        return describe_step(Step("d", 3, "interactive", "prefix", SentenceTarget(1),
                                  PrefixAnswer(prefix, typed, unit)))

    ja = header("ディエゴ・コッカが", "メ", "character")
    assert "kept 9 characters of" in ja and "typed the character “メ”" in ja
    assert "kept 9 characters of" in header("ディエゴ・コッカが", "メキシコ")    # word unit, ja
    assert "kept 6 characters of" in header("the ne", "w", "character")       # space counted
    assert "kept 2 words of" in header("the new ", "coach")
    assert "kept 1 word of" in header("the ", "new")
