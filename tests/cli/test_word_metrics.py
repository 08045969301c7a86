"""`llgui replay/score --metric cpwer|tcpwer|wder` on a bundle with words: the numbers of the
core (held to meeteval in tests/core/diarization/test_words.py), exit 2 for a tcpWER without
its collar or a word metric without words."""
from __future__ import annotations

import json
import logging
from importlib.metadata import version

import pytest

from llgui.cli.main import main as cli_main
from llgui.core.cost import CostModel
from llgui.core.diarization.word_track import WordTrack, make_word_metric
from llgui.core.types import Adapted, PointTarget, SpanTarget, Step
from llgui.io.rttm import write_rttm
from llgui.io.seglst import write_seglst
from tests.core.diarization.meeting_words import ami_document

pytest.importorskip("meeteval")
logging.getLogger("preprocess").setLevel(logging.ERROR)


def call(capsys, *args):
    code = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def meeting(reference_data, tmp_path_factory):
    """A bundle of the first 300 s of AMI ES2004a (real turns, words placed in them) with a
    log of two steps, the second adapted to the corrected turns."""
    doc = ami_document(reference_data, end=300.0)
    root = tmp_path_factory.mktemp("words")
    write_rttm(root / "ref.rttm", doc.uri, doc.reference)
    write_rttm(root / "hyp.rttm", doc.uri, doc.hypothesis)
    write_seglst(root / "ref.seglst.json", doc.uri, doc.words)
    cost = CostModel(window=4.0)
    track = WordTrack(doc, make_word_metric("cpwer", {}), cost)
    steps = [Step(doc.id, 1, "active", "name", PointTarget(doc.words[200].midpoint), "x"),
             Step(doc.id, 2, "active", "segment", SpanTarget(100.0, 130.0))]
    adapted = track.corrected_hypothesis(steps[1])
    log = [{"doc": doc.id, "step": 1, "initiative": "active", "kind": "name",
            "target": {"t": steps[0].target.t}, "answer": "x"},
           {"doc": doc.id, "step": 2, "initiative": "active", "kind": "segment",
            "target": {"start": 100.0, "end": 130.0},
            "adapted": {"turns": [[t.start, t.end, t.speaker] for t in adapted]}}]
    (root / "log.jsonl").write_text("".join(json.dumps(x) + "\n" for x in log))

    def bundle(metrics='["der", "cpwer"]', settings="word_collar = 5.0\n", words=True):
        path = root / f"b{abs(hash((metrics, settings, words)))}.toml"
        path.write_text(
            f'[bundle]\ntask = "diarization"\nmetrics = {metrics}\n\n[settings]\n{settings}\n'
            f'[cost]\nwindow = 4.0\n\n[[documents]]\nid = "{doc.id}"\ntime = 0\n'
            f'uri = "{doc.uri}"\nreferences = "ref.rttm"\nhypothesis = "hyp.rttm"\n'
            + ('words = "ref.seglst.json"\n' if words else "")
            + '\n[interactions]\nlog = "log.jsonl"\n')
        return path

    steps[1] = Step(doc.id, 2, "active", "segment", SpanTarget(100.0, 130.0),
                    adapted=Adapted(turns=tuple(adapted)))
    return doc, bundle, steps, cost


@pytest.mark.parametrize("name", ["cpwer", "tcpwer", "wder"])
def test_replay_word_metric(capsys, meeting, name):
    doc, bundle, steps, cost = meeting
    code, out, err = call(capsys, "replay", bundle(), "--doc", doc.id, "--metric", name,
                          "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    # the core's numbers, read back through the files the bundle names
    from llgui.io.bundle import load_bundle

    loaded = load_bundle(bundle()).documents[0]
    track = WordTrack(loaded, make_word_metric(name, {"word_collar": 5.0}), cost)
    expected = [track.current().score]
    for step in steps:
        expected.append((track.corrected(step).score, track.impaired(step).score))
        track.advance(step)
    assert report["s_base"] == pytest.approx(expected[0])
    assert report["signature"].endswith(f"|meeteval:{version('meeteval')}")
    rows = report["steps"]
    for row, (s_cor, s_imp) in zip(rows, expected[1:]):
        assert row["s_cor"] == pytest.approx(s_cor)
        assert row["s_imp"] == pytest.approx(s_imp)


def test_score_word_metrics(capsys, meeting):
    doc, bundle, _, _ = meeting
    code, out, err = call(capsys, "score", bundle('["cpwer", "tcpwer", "wder"]'),
                          "--format", "json")
    assert code == 0, err
    assert "cpwer" in out and "tcpwer" in out and "wder" in out


def test_tcpwer_without_collar_exits_2(capsys, meeting):
    doc, bundle, _, _ = meeting
    code, _, err = call(capsys, "replay", bundle(settings=""), "--doc", doc.id,
                        "--metric", "tcpwer")
    assert code == 2 and "word_collar" in err and "Traceback" not in err
    path = bundle('["tcpwer"]', settings="")
    code, _, err = call(capsys, "score", path)
    assert code == 2 and f"{path}:3: " in err and "word_collar" in err


def test_word_metric_without_words_exits_2(capsys, meeting):
    doc, bundle, _, _ = meeting
    code, _, err = call(capsys, "replay", bundle(words=False), "--doc", doc.id,
                        "--metric", "cpwer")
    assert code == 2 and "reference words" in err
