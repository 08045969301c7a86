"""Detection bundles with a log of `label` steps: loading, and bad logs (exit 2, FILE:LINE)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from llgui.cli.main import main as cli_main
from llgui.io.bundle import load_bundle
from tests.io.helpers import problems, write

KEY = "a t1 target\na t2 nontarget\nb t1 nontarget\nb t2 target\n"
SCORES = "a t1 2.0\na t2 -1.0\nb t1 0.5\nb t2 -0.5\n"


def bundle(tmp_path, log_lines, *, key=True, extra=""):
    write(tmp_path / "sys.txt", SCORES if key else "2.0 target\n-1 nontarget\n0.5 nontarget\n")
    write(tmp_path / "trials.key", KEY)
    write(tmp_path / "log.jsonl", "".join(
        (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in log_lines))
    text = ('[bundle]\ntask = "detection"\n'
            + extra
            + '[detection]\nscores = ["sys.txt"]\n'
            + ('key = "trials.key"\n' if key else "")
            + '[interactions]\nlog = "log.jsonl"\n')
    return write(tmp_path / "bundle.toml", text)


def step(n=1, items=("a t1",), answer=("target",), **more):
    return {"doc": "sys", "step": n, "initiative": "active", "kind": "label",
            "target": {"items": list(items)},
            "answer": None if answer is None else list(answer), **more}


def test_a_detection_log_loads_with_systems_as_documents(tmp_path):
    write(tmp_path / "adapted.txt", "b t2 1.5\na t1 2.0\na t2 -1.0\nb t1 0.5\n")
    path = bundle(tmp_path, [
        step(1, ("a t1", "b t1"), ("target", False), adapted={"scores": {"b t1": -2.0}}),
        step(2, ("b t2",), ("1",), adapted={"path": "adapted.txt"}, cost=3),
    ])
    loaded = load_bundle(path)
    (doc,) = loaded.documents
    assert doc.id == "sys" and doc.items == ("a t1", "a t2", "b t1", "b t2")
    first, second = loaded.steps
    assert first.answer == ("target", "nontarget") and second.answer == ("target",)
    assert dict(first.adapted.scores) == {"b t1": -2.0}
    # a whole score file becomes every trial's new score, joined on the trial ids
    assert dict(second.adapted.scores) == {"b t2": 1.5, "a t1": 2.0, "a t2": -1.0, "b t1": 0.5}
    assert second.adapted.path.endswith("adapted.txt") and second.cost == 3.0


def test_without_a_key_items_are_trial_numbers(tmp_path):
    write(tmp_path / "new.txt", "1.0 target\n-2 nontarget\n-0.5 nontarget\n")
    write(tmp_path / "relabelled.txt", "1.0 target\n-2 target\n-0.5 nontarget\n")
    path = bundle(tmp_path, [step(1, ("3",), ("nontarget",), adapted={"path": "new.txt"})],
                  key=False)
    loaded = load_bundle(path)
    assert dict(loaded.steps[0].adapted.scores) == {"1": 1.0, "2": -2.0, "3": -0.5}
    path = bundle(tmp_path, [step(1, ("3",), ("nontarget",),
                                  adapted={"path": "relabelled.txt"})], key=False)
    assert problems(load_bundle, path) == [
        (str(tmp_path / "log.jsonl"), 1, "adapted file 'relabelled.txt': trial 2 is labelled "
                                         "otherwise than in sys's score file")]
    path = bundle(tmp_path, [step(1, ("3",), ("nontarget",))], key=False)
    loaded = load_bundle(path)
    assert loaded.documents[0].items == ("1", "2", "3")
    np.testing.assert_array_equal(loaded.documents[0].trials.is_target, [True, False, False])


BAD_LOGS = [
    # (log lines, expected (line, reason) list)
    ([step(1, ("a t1", "zz t9"), ("target", "target"))],
     [(1, "target item 'zz t9' is not a trial of sys; trial ids are 'enroll test'")]),
    ([step(1, ("a t1", "a t1"), ("target", "target"))],
     [(1, "target items[1] 'a t1' is a duplicate of items[0]")]),
    ([step(1, answer=("maybe",))],
     [(1, "answer[0] 'maybe' is not a detection label (expected one of: target, nontarget, "
          "1, 0, true, false)")]),
    ([step(1, ("a t1", "a t2"), ("target",))],
     [(1, "answer has 1 labels for 2 items (one label per item)")]),
    ([step(1, items=())],
     [(1, "target items must be a non-empty list of item ids, not []")]),
    ([step(1, adapted={"scores": {"a t1": "high"}})],
     [(1, "adapted scores: the score of 'a t1' must be a finite number, not 'high'")]),
    ([step(1, adapted={"scores": {"q q": 1.0}})],
     [(1, "adapted scores: item 'q q' is not a trial of sys; trial ids are 'enroll test'")]),
    ([step(1, adapted={"turns": []})],
     [(1, 'adapted "turns" is not for a detection step, which gives "path" or "scores"')]),
    ([step(1, adapted={"path": "missing.txt"})], [(1, "adapted file 'missing.txt' not found")]),
    ([{**step(1), "doc": "other"}],
     [(1, "document 'other' is not a system of the bundle (systems, named by score file "
          "stem: sys)")]),
    ([step(1), step(3)], [(2, "step 3 of document 'sys' follows step 1 (expected 2)")]),
    ([step(1), {"doc": "sys", "step": 2, "initiative": "active", "kind": "reference",
                "target": {"sentence": 1}}],
     [(2, "kind 'reference' is an mt kind, but the task is detection (expected one of: "
          "label)")]),
    ([step(1, answer=None)], [(1, "answer of a label step must be a list of labels, one per "
                                  "item, not null")]),
]


@pytest.mark.parametrize("lines, expected", BAD_LOGS)
def test_bad_detection_logs(tmp_path, lines, expected):
    path = bundle(tmp_path, lines)
    log = str(tmp_path / "log.jsonl")
    assert problems(load_bundle, path) == [(log, line, reason) for line, reason in expected]


def test_an_adapted_file_with_other_trials(tmp_path):
    write(tmp_path / "short.txt", "a t1 2.0\na t2 -1.0\nb t1 0.5\n")
    path = bundle(tmp_path, [step(1, adapted={"path": "short.txt"})])
    assert problems(load_bundle, path) == [
        (str(tmp_path / "short.txt"), 0, "1 of the 4 trials of the key "
                                         f"{tmp_path / 'trials.key'} have no score: b t2 "
                                         "(line 4)")]


@pytest.mark.parametrize("lines, expected", BAD_LOGS[:7])
def test_bad_logs_exit_2_with_file_line_reason(tmp_path, capsys, lines, expected):
    path = bundle(tmp_path, lines)
    code = cli_main(["replay", str(path), "--doc", "sys"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    line, reason = expected[0]
    assert err.splitlines()[0] == f"{tmp_path / 'log.jsonl'}:{line}: {reason}"
