"""Question value in `replay`, `score`, `compare`, `effort` and the API (issue 34): the same
numbers as `llgui.core.effort` (itself checked against sacrebleu / pyannote.metrics in
tests/core/effort), and bad input exits 2 with a reason."""
from __future__ import annotations

import json

import pytest

from llgui import api
from llgui.cli import main as cli
from llgui.core.effort.units import question_report
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO

DIAR = DEMO / "diarization" / "bundle.toml"


@pytest.fixture(scope="module")
def expected():
    return question_report(load_bundle(DIAR)).to_dict()


def run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main(list(map(str, args)))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_replay_carries_the_documents_question_value(capsys, expected):
    doc = expected["steps"][0]["doc"]
    code, out, _ = run(capsys, "replay", DIAR, "--doc", doc, "--metric", "der", "--format", "json")
    assert code == 0
    q = json.loads(out)["question_value"]
    assert q["steps"] == [s for s in expected["steps"] if s["doc"] == doc]
    code, out, _ = run(capsys, "replay", DIAR, "--doc", doc, "--metric", "der")
    assert "question value (DER error seconds, document)" in out


def test_score_compare_effort_and_the_api_agree(capsys, expected):
    code, out, _ = run(capsys, "score", DIAR, "--format", "json")
    assert code == 0 and json.loads(out)["question_value"]["run"] == expected["run"]
    compared = api.compare_report({"one": DIAR, "two": DIAR}, "one", metrics=["der"],
                                  samples=50)
    assert compared["question_value"]["two"]["run"] == expected["run"]
    code, out, _ = run(capsys, "effort", DIAR, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["questions"][str(DIAR)] == expected and report["human"] is None
    assert api.question_value_report(DIAR) == expected
    code, out, _ = run(capsys, "effort", DIAR, "--format", "csv")
    assert code == 0 and out.count("\nquestion,") == 7 * len(expected["steps"])


@pytest.mark.parametrize("args, reason", [
    (("nothing-here",), "no such file or folder"),
    ((DIAR, "--level", "2"), "confidence level"),
    ((DIAR, "--cost-out", "x.toml"), "no live session"),
    ((DIAR, "--simulated", DEMO), "not a run folder"),
])
def test_bad_input_exits_2_with_a_reason(capsys, args, reason):
    code, _, err = run(capsys, "effort", *args)
    assert code == 2 and reason in err and "Traceback" not in err
