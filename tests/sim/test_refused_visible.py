"""A request llgui refuses is visible (issue 35 item 1): run.json names it per document
(reason, kind, target, cost, budget left) and simulate's table says it in a note line; and
mt_memory asks the sentence it is least sure of among those its word count says fit the
budget left, so a long first sentence no longer ends the document at 0 steps."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llgui.cli import main as cli

# (reference, hypothesis) per line; the reference word counts are the costs (a unit a word)
LONG = ("one two three four five six seven eight nine ten eleven twelve",
        "uno two tres four cinco six siete eight nueve ten once twelve")
SHORT = [("the cat sat down", "the dog sat down"), ("a red house", "a blue house"),
         ("we went home", "we go home")]


def bundle(root: Path, lines: list[tuple[str, str]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ref.en").write_text("".join(r + "\n" for r, _ in lines), encoding="utf-8")
    (root / "hyp.en").write_text("".join(h + "\n" for _, h in lines), encoding="utf-8")
    path = root / "bundle.toml"
    path.write_text('[bundle]\ntask = "mt"\nmetrics = ["ter"]\n\n[[documents]]\n'
                    'id = "d"\ntime = 1\nreferences = ["ref.en"]\nhypothesis = "hyp.en"\n',
                    encoding="utf-8")
    return path


def simulate(path: Path, out: Path, budget: float, capsys) -> tuple[str, dict]:
    code = cli.main(["simulate", str(path), "--system", "mt_memory", "--oracle", "allies",
                     "--mode", "active", "--budget", str(budget), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    return text, json.loads((out / "run.json").read_text(encoding="utf-8"))


def test_a_refused_first_request_is_in_run_json_and_the_table(tmp_path, capsys):
    # every sentence is over a budget of 2 words: mt_memory asks its shortest (3 words), refused
    path = bundle(tmp_path / "b", [LONG, SHORT[0], SHORT[1]])
    text, run = simulate(path, tmp_path / "out", 2.0, capsys)
    doc = run["documents"][0]
    assert doc["steps"] == 0
    assert doc["refused"] == {"reason": "budget", "kind": "reference",
                              "target": {"sentence": 3}, "cost": 3.0, "left": 2.0}
    note = [line for line in text.splitlines() if line.startswith("note: d:")]
    assert len(note) == 1 and "refused" in note[0] and "sentence 3" in note[0]
    assert "costing 3" in note[0] and "2 of the budget left" in note[0]


def test_a_long_first_sentence_over_the_budget_is_skipped(tmp_path, capsys):
    # budget 10: the 12-word line does not fit; the 4-word line is the one most unsure of
    path = bundle(tmp_path / "b", [LONG] + SHORT)
    text, run = simulate(path, tmp_path / "out", 10.0, capsys)
    doc = run["documents"][0]
    assert doc["steps"] == 3                 # 4 + 3 + 3 words = 10 of the budget
    assert doc["cost"] == pytest.approx(10.0)
    # nothing fits any more: it asks its last sentence (12 words) anyway, refused at 0 left
    assert doc["refused"] == {"reason": "budget", "kind": "reference",
                              "target": {"sentence": 1}, "cost": 12.0, "left": 0.0}
    assert len([line for line in text.splitlines() if line.startswith("note: d:")]) == 1
