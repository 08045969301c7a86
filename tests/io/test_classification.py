"""Multi-class classification bundles: loading, replay, bad logs (exit 2, FILE:LINE)."""
from __future__ import annotations

import json

import pytest

from llgui.cli.main import main as cli_main
from llgui.io.bundle import load_bundle
from tests.io.helpers import problems, write

KEY = "i1 cat\ni2 dog\ni3 emu\ni4 cat\ni5 dog\n"
DECISIONS = "i1 cat\ni2 cat\ni3 emu\ni4 dog\ni5 dog\n"


def bundle(tmp_path, log_lines=(), *, decisions=DECISIONS, extra=""):
    write(tmp_path / "items.key", KEY)
    write(tmp_path / "sys.txt", decisions)
    text = ('[bundle]\ntask = "classification"\n[classification]\nkey = "items.key"\n'
            'decisions = ["sys.txt"]\n' + extra)
    if log_lines:
        write(tmp_path / "log.jsonl", "".join(json.dumps(line) + "\n" for line in log_lines))
        text += '[interactions]\nlog = "log.jsonl"\n'
    return write(tmp_path / "bundle.toml", text)


def step(n=1, items=("i2",), answer=("dog",), **more):
    return {"doc": "sys", "step": n, "initiative": "interactive", "kind": "label",
            "target": {"items": list(items)}, "answer": list(answer), **more}


def test_a_classification_bundle_replays(tmp_path, capsys):
    write(tmp_path / "after.txt", "i5 dog\ni4 cat\ni3 emu\ni2 dog\ni1 cat\n")
    path = bundle(tmp_path, [step(1, adapted={"labels": {"i2": "dog"}}),
                             step(2, ("i4",), ("cat",), adapted={"path": "after.txt"})])
    loaded = load_bundle(path)
    (doc,) = loaded.documents
    assert doc.classes == ("cat", "dog", "emu") and doc.truth[1] == "dog"
    assert dict(loaded.steps[1].adapted.labels)["i4"] == "cat"
    assert cli_main(["replay", str(path), "--doc", "sys", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metric"] == "error_rate"
    # 2 of 5 wrong at first; step 1 fixes i2 (the corrected version, and the adapted one)
    assert report["s_base"] == 40.0
    first, second = report["steps"]
    assert (first["s_cor"], first["s_imp"], first["s_adapt"]) == (20.0, 40.0, 20.0)
    assert first["s_pen"] == 40.0
    assert (second["s_cor"], second["s_imp"], second["s_adapt"]) == (0.0, 20.0, 0.0)
    assert second["s_pen"] == 40.0
    assert cli_main(["replay", str(path), "--doc", "sys", "--metric", "macro_f1",
                     "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["steps"][-1]["s_adapt"] == 100.0


BAD = [
    ([step(1, ("i9",))], [(1, "target item 'i9' is not an item of the key")]),
    ([step(1, answer=("wolf",))], [(1, "answer 'wolf' is not one of the task's classes: "
                                       "cat, dog, emu")]),
    ([step(1, adapted={"labels": {"i1": "owl"}})],
     [(1, "adapted labels: 'owl' is not one of the task's classes: cat, dog, emu")]),
    ([step(1, adapted={"scores": {"i1": 1.0}})],
     [(1, 'adapted "scores" is not for a classification step, which gives "path" or '
          '"labels"')]),
    ([step(1, ("i1", "i1"), ("cat", "cat"))], [(1, "target items[1] 'i1' is a duplicate of "
                                                   "items[0]")]),
    ([step(1, answer=(3,))], [(1, "answer[0] must be a class name (a non-empty string), "
                                  "not 3")]),
]


@pytest.mark.parametrize("lines, expected", BAD)
def test_bad_classification_logs_exit_2(tmp_path, capsys, lines, expected):
    path = bundle(tmp_path, lines)
    log = str(tmp_path / "log.jsonl")
    assert problems(load_bundle, path) == [(log, line, reason) for line, reason in expected]
    assert cli_main(["replay", str(path), "--doc", "sys"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"{log}:{expected[0][0]}: {expected[0][1]}"


def test_bad_decisions_files(tmp_path):
    path = bundle(tmp_path, decisions="i1 cat\ni2 owl\ni2 dog\ni9 cat\n")
    sys_file = str(tmp_path / "sys.txt")
    assert problems(load_bundle, path) == [
        (sys_file, 3, "duplicate item 'i2' (first at line 2)")]
    path = bundle(tmp_path, decisions="i1 cat\ni2 owl\ni9 cat extra\n")
    assert problems(load_bundle, path) == [
        (sys_file, 3, "expected 2 fields (id class), got 3")]
    path = bundle(tmp_path, decisions="i1 cat\ni2 owl\ni9 cat\n")
    assert problems(load_bundle, path) == [
        (sys_file, 2, "class 'owl' is not one of the task's: cat, dog, emu"),
        (sys_file, 3, "item 'i9' is not in the key")]
    path = bundle(tmp_path, decisions="i1 cat\n")
    assert problems(load_bundle, path) == [
        (sys_file, 0, "4 items of the key have no decision: i2, i3, i4, i5")]


def test_compare_of_classification_bundles_is_exit_2_saying_why(tmp_path, capsys):
    """compare has no test for classification yet: exit 2 with one line, never a traceback
    (it was an internal error, issue 28)."""
    path = bundle(tmp_path)
    assert cli_main(["compare", str(path), str(path), "--baseline", "x"]) == 2
    err = capsys.readouterr().err
    assert "classification" in err and "Traceback" not in err


def test_an_empty_list_of_classes_is_refused(tmp_path):
    """Issue 38.6: `classes = []` was accepted (no class at all: every decision "not one of
    the task's"); now it is the key's line's problem."""
    path = bundle(tmp_path, extra="classes = []\n")
    assert problems(load_bundle, path) == [
        (str(path), 6, "classes must be a non-empty array of distinct class names (no "
                       "spaces)")]
