"""`llgui simulate` with meeting word metrics: a built-in learner on real AMI turns with
words; the bundle it writes carries the words, and replaying it gives the run's numbers."""
from __future__ import annotations

import json
import logging

import pytest

from llgui.core.penalty import make_track, replay
from llgui.io.bundle import load_bundle
from llgui.io.rttm import write_rttm
from llgui.io.seglst import write_seglst
from llgui.sim.run import run_simulation
from tests.core.diarization.meeting_words import ami_document

pytest.importorskip("meeteval")
logging.getLogger("preprocess").setLevel(logging.ERROR)


def test_simulated_word_scores_replay_to_the_same_numbers(reference_data, tmp_path):
    doc = ami_document(reference_data, end=300.0)
    write_rttm(tmp_path / "ref.rttm", doc.uri, doc.reference)
    write_rttm(tmp_path / "hyp.rttm", doc.uri, doc.hypothesis)
    write_seglst(tmp_path / "ref.seglst.json", doc.uri, doc.words)
    (tmp_path / "bundle.toml").write_text(
        '[bundle]\ntask = "diarization"\nmetrics = ["cpwer", "der", "tcpwer"]\n\n'
        '[settings]\nword_collar = 5.0\n\n'
        f'[[documents]]\nid = "{doc.id}"\ntime = 0\nreferences = "ref.rttm"\n'
        f'hypothesis = "hyp.rttm"\nwords = "ref.seglst.json"\n')
    run_simulation(tmp_path / "bundle.toml", ["diar_clusters"], ["allies"], tmp_path / "out",
                   budget=30.0)
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["exit"] == 0
    written = load_bundle(tmp_path / "out" / "bundle.toml")
    document = written.documents[0]
    assert document.words == doc.words
    scores = run["documents"][0]["scores"]
    for name in ("cpwer", "tcpwer"):
        track = make_track(document, name, written.settings, written.cost, written.documents)
        result = replay(track, written.steps_of(document.id), written.cost, doc=document.id)
        assert result.s_base == pytest.approx(scores[name]["s_base"], abs=1e-9)
        assert result.steps[-1].s_pen == pytest.approx(scores[name]["s_pen"], abs=1e-9)
        assert result.steps[-1].s_adapt == pytest.approx(scores[name]["s_adapt"], abs=1e-9)
