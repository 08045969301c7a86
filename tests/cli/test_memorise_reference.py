"""The memorise-only reference of the LREC paper's figure 4: S_pen had the system only applied
the corrections. It must equal `llgui replay` of the same log with every `adapted` replaced by
the corrected hypothesis (the log is rewritten here, independently of the engine for MT)."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from llgui.cli.main import main as cli_main
from tests.conftest import DEMO


def replay_json(capsys, bundle, doc, *extra) -> dict:
    code = cli_main(["replay", str(bundle), "--doc", doc, "--format", "json", *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def rewrite_log(folder, corrected_of) -> None:
    """Replace the `adapted` of every step of folder/logs/system.jsonl by corrected_of(step)."""
    log = folder / "logs" / "system.jsonl"
    steps = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    log.write_text("".join(json.dumps({**s, "adapted": corrected_of(s)}) + "\n" for s in steps),
                   encoding="utf-8")


@pytest.mark.parametrize("metric, mode", [("bleu", "paper"), ("ter", "paper"),
                                          ("bleu", "llmt")])
def test_mt_memorise_only_equals_a_replay_of_the_memorised_log(tmp_path, capsys, metric, mode):
    folder = tmp_path / "mt"
    shutil.copytree(DEMO / "mt", folder)
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(folder / "bundle.toml")
    docs = [bundle.documents[0].id]
    before = {d: replay_json(capsys, folder / "bundle.toml", d, "--metric", metric, "--mode", mode)
              for d in docs}
    references = {d.id: d.references[0] for d in bundle.documents}

    def corrected(step: dict) -> dict:
        n = step["target"]["sentence"]
        text = step["answer"] if step["kind"] == "post_edit" else references[step["doc"]][n - 1]
        return {"lines": {str(n): text}}

    pooled = None
    if mode == "paper":
        from llgui.core.penalty import replay_bundle

        pooled = replay_bundle(bundle, metric, memorise=True).pooled_pen_memorise
    rewrite_log(folder, corrected)
    if pooled is not None:   # the whole stream memorised, pooled as the run's S_pen is
        again = replay_bundle(load_bundle(folder / "bundle.toml"), metric)
        assert again.pooled_pen_memorise is None
        assert pooled == pytest.approx(again.pooled_pen, abs=1e-9)
    for d in docs:
        after = replay_json(capsys, folder / "bundle.toml", d, "--metric", metric, "--mode", mode)
        assert len(after["steps"]) == len(before[d]["steps"]) > 0
        for b, a in zip(before[d]["steps"], after["steps"]):
            assert b["s_pen_memorise"] == pytest.approx(a["s_pen"], abs=1e-9)
            # in the memorised log the system memorises: its own reference is itself
            assert a["s_pen_memorise"] == pytest.approx(a["s_pen"], abs=1e-9)
        assert before[d]["s_pen_memorise"] == pytest.approx(after["s_pen"], abs=1e-9)


def test_lrec_single_step_memorise_only_is_s_imp(capsys):
    """One step: S_adapt = S_cor gives S_pen = S_imp (the paper's 24.99 case)."""
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(DEMO / "mt" / "bundle.toml")
    report = replay_json(capsys, DEMO / "mt" / "bundle.toml", bundle.documents[0].id)
    first = report["steps"][0]
    assert first["s_pen_memorise"] == pytest.approx(first["s_imp"], abs=1e-9)


def test_diarization_memorise_only_equals_a_replay_of_the_memorised_log(tmp_path, capsys):
    from llgui.core.diarization.track import DiarTrack, make_diar_metric
    from llgui.core.types import Adapted
    from llgui.io.bundle import load_bundle

    folder = tmp_path / "diar"
    shutil.copytree(DEMO / "diarization", folder)
    bundle = load_bundle(folder / "bundle.toml")
    document = bundle.documents[0]
    before = replay_json(capsys, folder / "bundle.toml", document.id, "--metric", "der")
    # the memorised chain: h'_n = h'_{n-1} with c_n corrected
    track = DiarTrack(document, make_diar_metric("der", {**bundle.settings, "uem": "given"}),
                      bundle.cost, {d.id: d for d in bundle.documents})
    corrected_turns = {}
    for step in bundle.steps_of(document.id):
        turns = track.corrected_hypothesis(step)
        corrected_turns[step.step] = [[t.start, t.end, t.speaker] for t in turns]
        track.advance(replace(step, adapted=Adapted(turns=turns)))

    rewrite_log(folder, lambda s: ({"turns": corrected_turns[s["step"]]}
                                   if s["doc"] == document.id else s.get("adapted")))
    after = replay_json(capsys, folder / "bundle.toml", document.id, "--metric", "der")
    assert len(after["steps"]) == len(before["steps"]) > 0
    for b, a in zip(before["steps"], after["steps"]):
        assert b["s_pen_memorise"] == pytest.approx(a["s_pen"], abs=1e-9)
