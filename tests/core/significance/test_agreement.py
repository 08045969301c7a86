"""Agreement of metrics with published WMT human judgments (issue 32): pairwise accuracy
(Kocmi et al. 2021) on WMT23 de-en DA+SQM system scores, soft pairwise accuracy (Thompson et
al. 2024) on WMT24 en-zh ESA segment scores, each equal to a computation written here from
the published files (tests/data/wmt_human/README.md says where they come from)."""
from __future__ import annotations

import csv
import json
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from llgui.cli.main import main

DATA = Path(__file__).resolve().parents[2] / "data" / "wmt_human"
WMT23_SYSTEMS = ("ONLINE-A", "ONLINE-B", "ONLINE-W", "GPT4-5shot", "NLLB_Greedy", "AIRC",
                 "Lan-BridgeMT")
WMT24_SYSTEMS = ("GPT-4", "ONLINE-B", "Llama3-70B", "IOL-Research")


def _campaign(folder, reference: Path, outputs: dict, extra: str, settings: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['[campaign]', 'task = "mt"', 'metrics = ["bleu", "chrf"]', "", settings, "",
             "[[batches]]", 'id = "test"', "time = 1", f'references = ["{reference}"]', ""]
    for name, source in outputs.items():
        (folder / name / "final").mkdir(parents=True, exist_ok=True)
        (folder / name / "final" / "test.txt").write_bytes(Path(source).read_bytes())
        lines += ["[[systems]]", f'name = "{name}"', 'models = [{id = "final", time = 1}]',
                  f'hypotheses = "{name}/{{model}}/{{batch}}.txt"', ""]
    path = folder / "campaign.toml"
    path.write_text("\n".join(lines) + extra, encoding="utf-8")
    return path


def _run(capsys, *args) -> dict:
    code = main(["compare", *map(str, args), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _accuracy(metric: dict, human: dict) -> float:
    pairs = list(combinations(sorted(metric), 2))
    agree = sum(np.sign(metric[a] - metric[b]) == np.sign(human[a] - human[b]) for a, b in pairs)
    return agree / len(pairs)


def test_pairwise_accuracy_on_wmt23_de_en_da_sqm(reference_data, tmp_path, capsys):
    import sacrebleu

    txt = reference_data / "wmt23-general" / "txt"
    reference = txt / "references" / "generaltest2023.de-en.ref.refA.en"
    outputs = {n: txt / "system-outputs" / f"generaltest2023.de-en.hyp.{n}.en"
               for n in WMT23_SYSTEMS}
    human_file = DATA / "WMT23.results.deu-eng.txt"
    path = _campaign(tmp_path, reference, outputs, f'\n[human]\nscores = "{human_file}"\n')
    report = _run(capsys, path, "--all-pairs", "--test", "ar", "--samples", "100")
    # independent: the raw means as printed in the published file, sacrebleu's corpus scores
    human = {}
    for line in human_file.read_text(encoding="utf-8").splitlines():
        found = re.match(r"^[\d.]+ \('([^']+)', \d+, [-\d.e]+, ([\d.]+),", line)
        if found:
            human[found.group(1)] = float(found.group(2))
    refs = reference.read_text(encoding="utf-8").splitlines()
    block = report["human"]
    assert block["n_systems"] == len(WMT23_SYSTEMS) and block["n_pairs"] == 21
    assert block["segment_level"] is False
    # sacrebleu's defaults (corpus_bleu, corpus_chrf), the references processed once
    for name, library in (("bleu", sacrebleu.BLEU(references=[refs])),
                          ("chrf", sacrebleu.CHRF(references=[refs]))):
        metric = {n: library.corpus_score(outputs[n].read_text(encoding="utf-8").splitlines(),
                                          None).score for n in WMT23_SYSTEMS}
        entry = block["metrics"][name]
        assert entry["pairs"] == 21
        assert entry["pairwise_accuracy"] == pytest.approx(_accuracy(metric, human), abs=1e-12)
        assert entry["soft_pairwise_accuracy"] is None
        assert "segment-level" in entry["spa_reason"]
    # the same through --human on the command line, and the table says it
    assert main(["compare", str(path), "--all-pairs", "--samples", "50", "--human",
                 str(human_file)]) == 0
    out = capsys.readouterr().out
    assert "pairwise accuracy" in out and "Kocmi et al. 2021" in out


def _thompson_signs(n: int, permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """Thompson et al.'s swap draw (their compute_pairwise_p_values): rint of float32
    uniforms, as +-1."""
    rng = np.random.default_rng(seed)
    return np.rint(rng.random(size=(permutations, n), dtype=np.float32)) * 2.0 - 1.0


def _human_p(path: Path, systems) -> dict:
    """One-sided p of "a better than b" from the ESA rows: a segment's score the mean of its
    judgments; pairs summed over the segments both have."""
    per: dict = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.reader(handle):
            per.setdefault(row[1], {}).setdefault((row[7], row[2]), []).append(float(row[6]))
    columns = sorted({k for v in per.values() for k in v})
    signs = _thompson_signs(len(columns))
    out = {}
    for a, b in combinations(systems, 2):
        x = np.array([np.mean(per[a][c]) if c in per[a] and c in per[b] else 0.0
                      for c in columns], dtype=np.float32)
        y = np.array([np.mean(per[b][c]) if c in per[a] and c in per[b] else 0.0
                      for c in columns], dtype=np.float32)
        null = signs.astype(np.float32) @ x - signs.astype(np.float32) @ y
        out[(a, b)] = np.sum(null >= x.sum() - y.sum()) / len(signs)
    return out


def _metric_p(library, hyps: dict, refs, systems) -> dict:
    """One-sided p of "a better than b" by corpus score: pseudo-systems with the units swapped
    where the draw says, scored by sacrebleu from its own segment statistics."""
    stats = {n: np.array(library._extract_corpus_statistics(hyps[n], [refs]), dtype=np.int64)
             for n in systems}
    take = _thompson_signs(len(refs)) > 0
    out = {}
    for a, b in combinations(systems, 2):
        real = (library._compute_score_from_stats(list(stats[a].sum(0))).score
                - library._compute_score_from_stats(list(stats[b].sum(0))).score)
        count = 0
        for row in take:
            swapped_a = np.where(row[:, None], stats[b], stats[a]).sum(0)
            swapped_b = np.where(row[:, None], stats[a], stats[b]).sum(0)
            null = (library._compute_score_from_stats(list(swapped_a)).score
                    - library._compute_score_from_stats(list(swapped_b)).score)
            count += null >= real
        out[(a, b)] = count / len(take)
    return out


def test_soft_pairwise_accuracy_on_wmt24_en_zh_esa(tmp_path, capsys):
    from sacrebleu.metrics import BLEU, CHRF

    reference = DATA / "en-zh.refA.excerpt.zh"
    outputs = {n: DATA / f"en-zh.{n}.excerpt.zh" for n in WMT24_SYSTEMS}
    esa = DATA / "esa_generalMT2024.eng-zho.excerpt.csv"
    path = _campaign(tmp_path, reference, outputs,
                     f'\n[human]\nscores = "{esa}"\npair = "eng-zho"\n',
                     settings='[settings]\ntokenize = "zh"')
    report = _run(capsys, path, "--all-pairs", "--test", "ar", "--samples", "200")
    block = report["human"]
    assert block["segment_level"] is True and block["n_pairs"] == 6
    refs = reference.read_text(encoding="utf-8").splitlines()
    hyps = {n: p.read_text(encoding="utf-8").splitlines() for n, p in outputs.items()}
    human_p = _human_p(esa, WMT24_SYSTEMS)
    for name, library in (("bleu", BLEU(tokenize="zh")), ("chrf", CHRF())):
        metric_p = _metric_p(library, hyps, refs, WMT24_SYSTEMS)
        expected = 1.0 - np.mean([abs(human_p[k] - metric_p[k]) for k in human_p])
        assert block["metrics"][name]["soft_pairwise_accuracy"] == pytest.approx(expected,
                                                                                 abs=1e-12)
    # the campaign report carries the same block, from its cells
    assert main(["campaign", str(path), "--workers", "0", "--format", "json"]) == 0
    campaign = json.loads(capsys.readouterr().out)
    assert campaign["human"]["metrics"] == block["metrics"]
