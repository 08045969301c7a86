"""The llmt stream score (DESIGN.md 1.1) against an independent implementation of its rule.

The rule, as the WMT 2020/21 lifelong MT task's scorer applies it: per document, for each
answered `reference` request whose reference has n whitespace-separated words, add
[n, n-1, n-2, n-3] (each floored at 0) to a vector; subtract the vector from the document's
clipped 1- to 4-gram match counts of its final output, flooring at 0; pool the counts over the
stream (lengths and totals unchanged); one BLEU. Written here from sacrebleu's statistics and
`BLEU.compute_bleu`, with none of llgui's code, and compared with `llgui score --mode llmt`.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest
import sacrebleu

from llgui.cli.main import main
from llgui.core.penalty import replay_bundle
from llgui.io.bundle import load_bundle

DOCS = {
    "d1": {
        "ref": ["the cat sat on the mat today", "a dog barks at the old man",
                "we met at noon near the bridge", "it is raining"],
        "hyp": ["the cat sat on a mat", "a dog barked at an old man",
                "we met near a bridge at noon", "it rains"],
        # (kind, sentence, adapted lines after the step)
        "steps": [("reference", 1, {1: "the cat sat on the mat today"}),
                  ("reference", 3, {3: "we met at noon near the bridge", 4: "it is raining"}),
                  ("post_edit", 2, {2: "a dog barks at the old man"}),
                  ("reference", 1, {})],   # asked twice: counted twice
    },
    "d2": {
        "ref": ["good morning to all of you", "the bridge is closed", "x y"],
        "hyp": ["good morning all", "bridge closed", "x"],
        "steps": [("reference", 2, {2: "the bridge is closed", 1: "good morning to you all"})],
    },
    "d3": {   # no steps: counts as it is
        "ref": ["one two three four five", "six seven"],
        "hyp": ["one two three five", "six seven"],
        "steps": [],
    },
}


def independent_llmt(docs) -> float:
    """The rule above, from sacrebleu's per-corpus statistics of each document's final output."""
    bleu = sacrebleu.BLEU()
    pooled = [0] * 10   # hyp_len, ref_len, correct_1..4, total_1..4
    for doc in docs.values():
        final = list(doc["hyp"])
        vector = [0, 0, 0, 0]
        for kind, sentence, lines in doc["steps"]:
            for number, text in lines.items():
                final[number - 1] = text
            if kind == "reference":
                n = len(doc["ref"][sentence - 1].split())
                vector = [v + max(n - k, 0) for k, v in enumerate(vector)]
        stats = [0] * 10
        for row in bleu._extract_corpus_statistics(final, [doc["ref"]]):
            stats = [a + b for a, b in zip(stats, row)]
        for k in range(4):
            stats[2 + k] = max(stats[2 + k] - vector[k], 0)
        pooled = [a + b for a, b in zip(pooled, stats)]
    # sacrebleu's BLEU() defaults (exp smoothing), as `llgui score` uses without [settings]
    return sacrebleu.BLEU.compute_bleu(pooled[2:6], pooled[6:10], pooled[0], pooled[1],
                                       smooth_method="exp").score


@pytest.fixture(scope="module")
def bundle_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("llmt")
    lines, documents = [], []
    for i, (doc_id, doc) in enumerate(DOCS.items()):
        (root / f"{doc_id}.ref").write_text("\n".join(doc["ref"]) + "\n", encoding="utf-8")
        (root / f"{doc_id}.hyp").write_text("\n".join(doc["hyp"]) + "\n", encoding="utf-8")
        documents.append(f'[[documents]]\nid = "{doc_id}"\ntime = {i}\nreferences = '
                         f'["{doc_id}.ref"]\nhypothesis = "{doc_id}.hyp"\n')
        for number, (kind, sentence, adapted) in enumerate(doc["steps"], 1):
            step = {"doc": doc_id, "step": number, "initiative": "active", "kind": kind,
                    "target": {"sentence": sentence},
                    "adapted": {"lines": {str(k): v for k, v in adapted.items()}}}
            if kind == "post_edit":
                step["answer"] = doc["ref"][sentence - 1]
            lines.append(json.dumps(step))
    (root / "log.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "bundle.toml").write_text(
        '[bundle]\ntask = "mt"\nmetrics = ["bleu"]\n' + "".join(documents)
        + '[interactions]\nlog = "log.jsonl"\n', encoding="utf-8")
    return root / "bundle.toml"


def test_the_stream_score_follows_the_rule(bundle_path):
    expected = independent_llmt(DOCS)
    assert 1 < expected < 90
    result = replay_bundle(load_bundle(bundle_path), "bleu", mode="llmt")
    assert result.pooled_pen == pytest.approx(expected, abs=1e-9)
    # and it is a penalty: not the pooled adapted score (the bug: both were the same)
    assert result.pooled_pen < result.pooled_adapt - 1


def test_llgui_score_mode_llmt_reports_it(bundle_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", str(bundle_path), "--mode", "llmt", "--format", "json"]) == 0
    report = json.loads(out.getvalue())
    assert report["mode"] == "llmt"
    assert report["penalised"]["bleu"]["pooled"]["s_pen"] == pytest.approx(
        independent_llmt(DOCS), abs=1e-9)


def test_mode_llmt_needs_bleu(bundle_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["score", str(bundle_path), "--metric", "chrf", "--mode", "llmt"]) == 2
    assert "llmt" in err.getvalue()
