"""Every number of every demo replay equals the reference library's on real hypotheses.

This is the end-to-end exactness check behind the GUI's "Verify with libraries": the engine
(cached statistics, fast DER) against sacrebleu / jiwer / pyannote.metrics scoring each
hypothesis the walkthrough holds, rebuilt from scratch.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from llgui.core.verify import Check, Verification, verify_walkthrough
from llgui.core.walkthrough import walk
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO

CASES = [("mt", m) for m in ("bleu", "chrf", "ter", "wer")] + \
        [("diarization", m) for m in ("der", "jer")]


@pytest.mark.slow
@pytest.mark.parametrize(("task", "metric"), CASES, ids=[f"{t}-{m}" for t, m in CASES])
def test_every_demo_step_equals_the_library(task, metric):
    bundle = load_bundle(DEMO / task / "bundle.toml")
    for document in bundle.documents:
        result = walk(document, bundle.steps_of(document.id), metric, bundle.settings,
                      bundle.cost, documents=bundle.documents)
        verification = verify_walkthrough(result, bundle.settings)
        assert verification.ok, verification.summary()
        quantities = {c.quantity for c in verification.compared}
        assert quantities == {"s_base", "s_cor", "s_imp", "s_adapt"}, document.id
        # S_imp is never better than S_cor
        for view in result.steps:
            s = view.scores
            assert (s.s_imp <= s.s_cor + 1e-9) if result.replay.higher_is_better \
                else (s.s_imp >= s.s_cor - 1e-9)


def test_a_wrong_engine_number_is_caught():
    good = Verification("d", "bleu", "sacrebleu", (Check(1, "s_cor", 30.0, 30.0),))
    assert good.ok
    bad = replace(good, checks=(Check(1, "s_cor", 30.0 + 1e-6, 30.0),))
    assert not bad.ok
    assert "DIFFERENT" in bad.summary()
