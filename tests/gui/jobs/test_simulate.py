"""The Simulate dialog's job (llgui.gui.jobs.simulate) without a window: a reference system
driven on (the first document of) the demo, every run's bundle loaded on the worker, and the
S_pen each run reported is the core's replay of its log, its S_base sacrebleu's."""
from __future__ import annotations

import json

import pytest
from sacrebleu.metrics import BLEU

from llgui.core.jobs import Cancelled
from llgui.core.penalty import replay_bundle
from llgui.gui.jobs.simulate import simulate_and_load
from tests.sim.test_simulate_demo import first_document_bundle


def test_a_simulation_is_run_and_its_bundles_loaded(demo_dir, tmp_path):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    fractions = []
    simulation, loaded = simulate_and_load(bundle, ["mt_memory"], ["in-order", "allies"],
                                           tmp_path / "out", progress=fractions.append,
                                           budget=80.0)
    done = [o for o in simulation.outcomes if o.result is not None]
    assert len(done) == len(simulation.outcomes) == 2
    assert [b.path for b in loaded] == [str(o.out / "bundle.toml") for o in done]
    assert fractions and fractions[-1] == pytest.approx(1.0)
    for outcome, run in zip(done, loaded):
        assert run.steps, outcome.oracle
        reported = json.loads((outcome.out / "run.json").read_text())
        replayed = replay_bundle(run, "bleu")
        for doc, r in zip(reported["documents"], replayed.replays):
            assert doc["doc"] == r.doc
            assert doc["scores"]["bleu"]["s_pen"] == r.s_pen
            assert doc["scores"]["bleu"]["s_base"] == r.s_base
        document = run.documents[0]
        assert replayed.replays[0].s_base == pytest.approx(BLEU().corpus_score(
            list(document.hypothesis), [list(x) for x in document.references]).score, abs=1e-9)


def test_a_cancelled_simulation_stops(demo_dir, tmp_path):
    bundle = first_document_bundle(demo_dir, "mt", tmp_path / "in")
    with pytest.raises(Cancelled):
        simulate_and_load(bundle, ["mt_memory"], ["in-order"], tmp_path / "out",
                          should_stop=lambda: True, budget=80.0)
