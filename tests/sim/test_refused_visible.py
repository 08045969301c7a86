"""A request llgui refuses is visible (issue 35 item 1): run.json names it per document
(reason, kind, target, cost, budget left) and simulate's table says it in a note line; and
mt_memory asks the sentence it is least sure of among those its word count says fit the
budget left (it asks their cost first: `quote`), so a long first sentence no longer ends the
document at 0 steps."""
from __future__ import annotations

import json
import sys
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


GREEDY = """
from llgui.sim import protocol as P
from llgui.systems._serve import System, serve


class Greedy(System):   # asks sentence 1, whatever it costs
    name = "greedy"

    def document(self, message):
        self.asked = False
        return P.Hypothesis(message.doc, lines=tuple(message.hypothesis))

    def request(self):
        if self.asked:
            return None
        self.asked = True
        return P.Request("reference", P.SentenceTarget(1))


serve(Greedy())
"""


def simulate(path: Path, out: Path, budget: float, capsys, system="mt_memory"):
    code = cli.main(["simulate", str(path), "--system", system, "--oracle", "allies",
                     "--mode", "active", "--budget", str(budget), "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    return text, json.loads((out / "run.json").read_text(encoding="utf-8"))


def test_a_refused_first_request_is_in_run_json_and_the_table(tmp_path, capsys):
    # a system that asks its 12-word sentence with 10 of the budget: refused at step 1
    path = bundle(tmp_path / "b", [LONG] + SHORT)
    (tmp_path / "greedy.py").write_text(GREEDY, encoding="utf-8")
    text, run = simulate(path, tmp_path / "out", 10.0, capsys,
                         f"greedy={sys.executable} {tmp_path / 'greedy.py'}")
    doc = run["documents"][0]
    assert doc["steps"] == 0
    assert doc["refused"] == {"reason": "budget", "kind": "reference",
                              "target": {"sentence": 1}, "cost": 12.0, "left": 10.0}
    note = [line for line in text.splitlines() if line.startswith("note: d:")]
    assert len(note) == 1 and "refused" in note[0] and "sentence 1" in note[0]
    assert "costing 12" in note[0] and "10 of the budget left" in note[0]


def test_a_long_first_sentence_over_the_budget_is_skipped(tmp_path, capsys):
    # budget 10: the 12-word line does not fit; mt_memory asks 4 + 3 + 3 words, then stops
    path = bundle(tmp_path / "b", [LONG] + SHORT)
    text, run = simulate(path, tmp_path / "out", 10.0, capsys)
    doc = run["documents"][0]
    assert doc["steps"] == 3
    assert doc["cost"] == pytest.approx(10.0)
    assert "refused" not in doc            # it stopped: nothing it could ask fits
    assert not [line for line in text.splitlines() if line.startswith("note:")]
    log = [json.loads(line) for line in (tmp_path / "out" / "logs" / "system.jsonl")
           .read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [r["target"]["sentence"] for r in log] == [2, 3, 4]   # the 4-word one first
