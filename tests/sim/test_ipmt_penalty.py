"""The penalty of a prefix step charges what the expert supplied (issue found by a system
written from the docs alone).

The case: WMT23 de-en, ONLINE-B's lines 1-6 as two documents of three sentences (the
outsider's case had ten each; three keep every invariant below and a character-level run
short: with the versions made as before the fix, the learner-of-nothing's character-level
BLEU S_pen is 63.9 above its S_base 47.6 on d1, 49.1 above 34.1 on d2), two systems under
`--oracle prefix` and `--oracle prefix-char`: the minimal system of docs/protocol.md, which
learns nothing (after the typed text it offers the rest of its own
sentence), and `mt_complete`, which learns. Before the fix, a character typed inside a word
left the word wrong both in S_cor and in S_imp, so the learner-of-nothing got BLEU S_pen 55.9
above S_base 30.2 at character level. The invariants: a system that learns nothing gets
S_pen <= S_base (BLEU, chrF) and an MSR (TER) at least its initial error rate, at word and
character level; S_pen ranks the two systems as the effort measures (WSR, KSR, KSMR) do.
The S_pen of the runs is recomputed here with sacrebleu from the log, with the corrected and
impaired versions written from docs/metrics.md's definition.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import sacrebleu

from llgui.sim.run import run_simulation

ROOT = Path(__file__).resolve().parents[2]
WMT23 = "wmt23-general/txt"
ORACLES = ("prefix", "prefix-char")
X = "\ue000"
N = 3   # sentences per document


@pytest.fixture(scope="module")
def runs(reference_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("ipmt_penalty")
    ref = reference_data / WMT23 / "references" / "generaltest2023.de-en.ref.refA.en"
    hyp = reference_data / WMT23 / "system-outputs" / "generaltest2023.de-en.hyp.ONLINE-B.en"
    if not (ref.is_file() and hyp.is_file()):
        pytest.skip(f"WMT23 de-en files not found under {reference_data / WMT23}")
    refs = ref.read_text(encoding="utf-8").split("\n")[:2 * N]
    hyps = hyp.read_text(encoding="utf-8").split("\n")[:2 * N]
    toml = '[bundle]\ntask = "mt"\nmetrics = ["bleu", "chrf", "ter"]\n'
    for n, part in enumerate((slice(0, N), slice(N, 2 * N)), 1):
        for name, lines in ((f"r{n}.en", refs), (f"h{n}.en", hyps)):
            (root / name).write_text("".join(x + "\n" for x in lines[part]), encoding="utf-8")
        toml += (f'\n[[documents]]\nid = "d{n}"\ntime = {n}\n'
                 f'references = [{json.dumps(str(root / f"r{n}.en"))}]\n'
                 f'hypothesis = {json.dumps(str(root / f"h{n}.en"))}\n')
    (root / "bundle.toml").write_text(toml, encoding="utf-8")
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## Interactive-predictive MT (protocol 1.2)", 1)[1]
    rest = root / "rest.py"
    rest.write_text(re.search(r"```python\n(.*?)```", section, re.S).group(1), encoding="utf-8")
    run_simulation(root / "bundle.toml", [f"rest={sys.executable} {rest}", "mt_complete"],
                   list(ORACLES), root / "out", budget=100000.0)
    return root


def _run(root: Path, system: str, oracle: str) -> dict:
    return json.loads((root / "out" / system / oracle / "run.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("oracle", ORACLES)
def test_a_system_that_learns_nothing_gains_nothing(runs, oracle):
    run = _run(runs, "rest", oracle)
    assert run["exit"] == 0 and run["ipmt"]["open_sentences"] == 0
    for doc in run["documents"]:
        scores = doc["scores"]
        for metric in ("bleu", "chrf"):
            assert scores[metric]["s_adapt"] == pytest.approx(100.0)   # every sentence typed
            assert scores[metric]["s_pen"] <= scores[metric]["s_base"], (doc["doc"], metric)
        # MSR: the work the expert did is at least the errors h0 had (TER's S_base)
        assert scores["ter"]["msr"] >= scores["ter"]["s_base"], doc["doc"]


def _masked(text: str) -> str:
    return "".join(c if c.isspace() else X for c in text)


def _versions(reference: str, prefix: str, typed: str, unit: str) -> tuple[str, str]:
    """docs/metrics.md: corrected = prefix + typed + the rest of the reference masked;
    impaired = prefix + the reference from the typed unit on, masked."""
    if unit == "character":
        rest = reference[len(prefix) + len(typed):]
    else:
        words = reference.split()
        rest = " " + " ".join(words[len(prefix.split()) + 1:])
        rest = "" if rest == " " else rest
    return prefix + typed + _masked(rest), prefix + _masked(typed) + _masked(rest)


@pytest.mark.parametrize("oracle", ORACLES)
def test_s_pen_equals_sacrebleu_on_the_documented_versions(runs, oracle):
    """Document d1's BLEU S_pen = BLEU(h_N) + sum over steps of BLEU(impaired) - BLEU(corrected),
    each a sacrebleu corpus BLEU of the document with the sentence replaced."""
    folder = runs / "out" / "rest" / oracle
    refs = (runs / "r1.en").read_text(encoding="utf-8").split("\n")[:N]
    hyp = (folder / "hyp" / "d1.txt").read_text(encoding="utf-8").split("\n")[:N]

    def bleu(lines):
        return sacrebleu.corpus_bleu(lines, [refs]).score

    penalty = 0.0
    for raw in (folder / "logs" / "system.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        if record["doc"] != "d1":
            continue
        i = record["target"]["sentence"] - 1
        answer = record["answer"]
        if answer["typed"]:
            cor, imp = _versions(refs[i], answer["prefix"], answer["typed"],
                                 answer.get("unit", "word"))
            penalty += bleu(hyp[:i] + [imp] + hyp[i + 1:]) - bleu(hyp[:i] + [cor] + hyp[i + 1:])
        hyp[i] = record["adapted"]["lines"][str(i + 1)]
    want = bleu(hyp) + penalty
    got = _run(runs, "rest", oracle)["documents"][0]
    assert got["doc"] == "d1"
    assert got["scores"]["bleu"]["s_pen"] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("oracle", ORACLES)
def test_s_pen_ranks_the_systems_as_the_effort_does(runs, oracle):
    """The learner types less (WSR, KSR, KSMR) and has the higher S_pen and lower MSR."""
    rest, learner = _run(runs, "rest", oracle), _run(runs, "mt_complete", oracle)
    for key in ("ksr", "ksmr") + (("wsr",) if oracle == "prefix" else ()):
        assert learner["ipmt"][key] < rest["ipmt"][key], key

    def mean(run, metric, key):
        return sum(d["scores"][metric][key] for d in run["documents"]) / len(run["documents"])

    for metric in ("bleu", "chrf"):
        assert mean(learner, metric, "s_pen") > mean(rest, metric, "s_pen"), metric
    assert mean(learner, "ter", "msr") < mean(rest, "ter", "msr")
