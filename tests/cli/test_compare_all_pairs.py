"""`llgui compare CAMPAIGN --all-pairs` (and `--baseline`) on an output-only campaign of WMT23
de-en systems (issue 32): every pair equal to sacrebleu's `PairedTest` of that pair, Holm's
adjustment equal to its definition computed here, the number of pairs said."""
from __future__ import annotations

import json
import os
from itertools import combinations

import pytest

from llgui.cli.main import main
from tests.cli.sacrebleu_shared import cached

SYSTEMS = ("ONLINE-B", "ONLINE-W", "GPT4-5shot", "NLLB_Greedy")
SAMPLED = [("ONLINE-B", "GPT4-5shot"), ("ONLINE-W", "NLLB_Greedy")]


def write_campaign(folder, reference_data, systems=SYSTEMS, extra: str = "") -> tuple:
    """An output-only campaign: each system one model version ("final"), its WMT23 output
    cut into two batches by lines (no online run)."""
    txt = reference_data / "wmt23-general" / "txt"
    ref = txt / "references" / "generaltest2023.de-en.ref.refA.en"
    folder.mkdir(parents=True, exist_ok=True)
    lines = ['[campaign]', 'name = "wmt23 de-en outputs"', 'task = "mt"',
             'metrics = ["bleu", "chrf"]', ""]
    for i, span in enumerate(("1-300", "301-549")):
        lines += ["[[batches]]", f'id = "b{i + 1}"', f"time = {i + 1}",
                  f'references = ["{ref}"]', f'lines = "{span}"', ""]
    hyps = {}
    for name in systems:
        source = txt / "system-outputs" / f"generaltest2023.de-en.hyp.{name}.en"
        (folder / name).mkdir(exist_ok=True)
        (folder / name / "final.en").write_bytes(source.read_bytes())
        hyps[name] = source.read_text(encoding="utf-8").splitlines()
        lines += ["[[systems]]", f'name = "{name}"', 'models = [{id = "final", time = 1}]',
                  f'hypotheses = "{name}/{{model}}.en"', ""]
    path = folder / "campaign.toml"
    path.write_text("\n".join(lines) + extra, encoding="utf-8")
    return path, ref.read_text(encoding="utf-8").splitlines(), hyps


@pytest.fixture(scope="module")
def campaign(reference_data, tmp_path_factory):
    return write_campaign(tmp_path_factory.mktemp("pairs"), reference_data)


def _library_metrics(refs) -> dict:
    """sacrebleu's BLEU and chrF with the references cached, as sacrebleu's own command line
    builds them for a paired test (`Metric(references=...)`, `PairedTest(references=None)`):
    the references processed once per module, not once per system and test, and each
    system's statistics extracted once (tests/cli/sacrebleu_shared.py)."""
    from sacrebleu.metrics import BLEU, CHRF

    return {"bleu": cached(BLEU, refs), "chrf": cached(CHRF, refs)}


def _sacrebleu(test, samples, refs, hyps, names):
    """sacrebleu's PairedTest of `names` (the first the baseline), seed 12345."""
    from sacrebleu.significance import PairedTest

    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = "12345"
    try:
        _sigs, scores = PairedTest([(n, hyps[n]) for n in names],
                                   _library_metrics(refs), references=None,
                                   test_type=test, n_samples=samples, n_ar_confidence=-1)()
    finally:
        if old is None:
            os.environ.pop("SACREBLEU_SEED")
        else:
            os.environ["SACREBLEU_SEED"] = old
    keys = [k for k in scores if k != "System"]
    return dict(zip(("bleu", "chrf"), (scores[k] for k in keys)))


def _run(capsys, *args):
    code = main(["compare", *map(str, args), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _holm(p):
    """Holm (1979), written from its definition: reject in order of increasing p while
    p_(k) <= alpha / (m - k + 1); the adjusted p_(k) is the running max of (m - k + 1) p_(k)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


@pytest.mark.parametrize("test,samples", [("ar", 2000), ("bs", 300)])
def test_all_pairs_equal_sacrebleu_on_sampled_pairs(campaign, capsys, test, samples):
    path, refs, hyps = campaign
    report = _run(capsys, path, "--all-pairs", "--test", test, "--samples", samples)
    assert report["mode"] == "all-pairs"
    assert report["n_pairs"] == 6 and len(report["pairs"]) == 6
    assert [(p["a"], p["b"]) for p in report["pairs"]] == list(combinations(SYSTEMS, 2))
    assert report["source"]["models"] == {n: "final" for n in SYSTEMS}
    assert report["source"]["batches"] == ["b1", "b2"] and report["source"]["n_units"] == 549
    by_pair = {(p["a"], p["b"]): p for p in report["pairs"]}
    scores = {s["name"]: s for s in report["systems"]}
    for a, b in SAMPLED:
        expected = _sacrebleu(test, samples, refs, hyps, [a, b])
        for metric in ("bleu", "chrf"):
            base, other = expected[metric]
            ours = by_pair[(a, b)]["metrics"][metric]
            assert ours["p_value"] == other.p_value
            assert ours["delta"] == pytest.approx(other.score - base.score, abs=1e-4)
            assert scores[a]["metrics"][metric]["score"] == pytest.approx(base.score, abs=1e-4)
    for metric in ("bleu", "chrf"):
        raw = [p["metrics"][metric]["p_value"] for p in report["pairs"]]
        adjusted = [p["metrics"][metric]["p_adjusted"] for p in report["pairs"]]
        assert adjusted == pytest.approx(_holm(raw), abs=1e-12)


def test_no_correction_says_what_chance_gives(campaign, capsys):
    path = campaign[0]
    report = _run(capsys, path, "--all-pairs", "--test", "ar", "--samples", "200",
                  "--correction", "none")
    assert report["correction"] == "none"
    assert report["expected_false_positives"] == pytest.approx(0.05 * 6)
    for pair in report["pairs"]:
        for e in pair["metrics"].values():
            assert e["p_adjusted"] == e["p_value"]
    assert main(["compare", str(path), "--all-pairs", "--samples", "50"]) == 0
    assert "6 pairs of 4 systems" in capsys.readouterr().out


def test_baseline_on_an_output_only_campaign_equals_sacrebleu(campaign, capsys):
    path, refs, hyps = campaign
    report = _run(capsys, path, "--baseline", "GPT4-5shot", "--test", "ar", "--samples", 1000)
    names = ["GPT4-5shot", "ONLINE-B", "ONLINE-W", "NLLB_Greedy"]
    assert [s["name"] for s in report["systems"]] == names
    expected = _sacrebleu("ar", 1000, refs, hyps, names)
    for metric in ("bleu", "chrf"):
        for system, result in zip(report["systems"], expected[metric]):
            assert system["metrics"][metric]["score"] == pytest.approx(result.score, abs=1e-4)
            assert system["metrics"][metric]["p_value"] == result.p_value


def test_every_pair_has_the_human_agreement_effect_and_the_table_the_intervals(campaign,
                                                                                capsys):
    """comparing.md: compare and its JSON give "effect" for BLEU and chrF; --all-pairs had
    dropped it. Each pair's chance that humans agree is mt-thresholds' accuracy of the
    difference of sacrebleu's corpus scores, b's minus a's."""
    from mt_thresholds import accuracy

    path, refs, hyps = campaign
    report = _run(capsys, path, "--all-pairs", "--test", "ar", "--samples", 50)
    library = _library_metrics(refs)
    corpus = {n: {m: library[m].corpus_score(hyps[n], None).score for m in ("bleu", "chrf")}
              for n in SYSTEMS}
    for pair in report["pairs"]:
        for metric in ("bleu", "chrf"):
            effect = pair["metrics"][metric]["effect"]
            delta = corpus[pair["b"]][metric] - corpus[pair["a"]][metric]
            assert effect["delta"] == pytest.approx(delta, abs=1e-9)
            chance = accuracy(abs(delta), metric) / 100
            assert effect["human_agreement"] == (pytest.approx(chance) if chance > 0.5
                                                 else None)
    assert main(["compare", str(path), "--all-pairs", "--test", "ar", "--samples", "50"]) == 0
    table = capsys.readouterr().out
    assert "humans agree" in table and "95% interval" in table
    onb = next(s for s in report["systems"] if s["name"] == "ONLINE-B")["metrics"]["bleu"]
    row = next(line for line in table.splitlines() if line.startswith("ONLINE-B "))
    assert f"[{onb['low']:.2f}, {onb['high']:.2f}]" in row
    first = report["pairs"][0]
    agree = first["metrics"]["bleu"]["effect"]["human_agreement"]
    expected = f"{100 * agree:.1f}%" if agree is not None else first["metrics"]["bleu"][
        "effect"]["reading"]
    assert any(line.split()[:3] == ["BLEU", first["a"], first["b"]] and expected in line
               for line in table.splitlines()), table


def test_cells_with_damaged_rows_are_named_and_give_the_same_pairs(reference_data, capsys,
                                                                   tmp_path, monkeypatch):
    """`compare --cells` reads the rows of every cell it compares: a value flipped in one
    cached entry's rows is found, named on stderr as `llgui campaign` names it, and that cell
    computed again; the report is the one before the damage (outsider helper-50: compare
    repaired it without a word)."""
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    path, _, _ = write_campaign(tmp_path / "c", reference_data, SYSTEMS[:2])
    args = ["compare", str(path), "--all-pairs", "--cells", "--samples", "50", "--format",
            "json"]
    assert main(args) == 0
    clean = capsys.readouterr()
    assert "damaged" not in clean.err
    entries = sorted((tmp_path / "cache").rglob("*.cell"))
    assert len(entries) == 4   # 2 systems x 2 batches
    data = entries[2].read_bytes()
    entries[2].write_bytes(data[:-5] + bytes([data[-5] ^ 4]) + data[-4:])
    assert main(args) == 0
    again = capsys.readouterr()
    assert f"llgui compare: 1 damaged cache entry recomputed ({entries[2]} (cell " in again.err
    assert json.loads(again.out)["pairs"] == json.loads(clean.out)["pairs"]
    assert main(args) == 0 and "damaged" not in capsys.readouterr().err   # written whole
