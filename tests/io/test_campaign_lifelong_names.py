"""The lifelong tables of `llgui campaign --out` are named after their systems as they read
(`alpha@s1.csv` for a replicate, not a hash), and campaign.json maps every system to its file;
a name unsafe on some OS is cleaned, with a suffix only where two systems would share a file."""
from __future__ import annotations

import csv
import json

import sacrebleu

from llgui.cli.main import main
from llgui.io.campaign_export import lifelong_files

REF = ["the cat sat on the mat", "a dog barked at night"]
HYP = {"s1": ["the cat sat on a mat", "a dog barked"],
       "s2": ["a cat sat on the mat", "the dog barked at night"]}


def test_replicates_get_readable_files_and_a_map(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n", encoding="utf-8")
    for rep, lines in HYP.items():
        (tmp_path / "alpha" / rep).mkdir(parents=True)
        (tmp_path / "alpha" / rep / "M0.b1.en").write_text("\n".join(lines) + "\n")
    (tmp_path / "campaign.toml").write_text("\n".join([
        "[campaign]", 'name = "reps"', 'task = "mt"', 'metrics = ["bleu"]', "",
        "[[batches]]", 'id = "b1"', "time = 1", 'references = ["ref.txt"]', "",
        "[[systems]]", 'name = "alpha"', 'replicates = ["s1", "s2"]',
        'models = [{id = "M0", time = 0}]',
        'hypotheses = "alpha/{replicate}/{model}.{batch}.en"', ""]), encoding="utf-8")
    code = main(["campaign", str(tmp_path / "campaign.toml"), "--workers", "0",
                 "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "out" / "campaign.json").read_text(encoding="utf-8"))
    assert report["lifelong_files"] == {"alpha@s1": "lifelong/alpha@s1.csv",
                                        "alpha@s2": "lifelong/alpha@s2.csv"}
    assert sorted(p.name for p in (tmp_path / "out" / "lifelong").iterdir()) == [
        "alpha@s1.csv", "alpha@s2.csv"]
    for rep, lines in HYP.items():
        with open(tmp_path / "out" / report["lifelong_files"][f"alpha@{rep}"],
                  encoding="utf-8", newline="") as f:
            (row,) = list(csv.DictReader(f))
        assert float(row["value"]) == sacrebleu.corpus_bleu(lines, [REF]).score


def test_unsafe_names_are_cleaned_with_a_suffix_only_on_a_collision():
    files = lifelong_files(["alpha/s1", "alpha_s1", "ALPHA_S1", "beta", "CON", "a:b?"])
    assert files == {"alpha/s1": "lifelong/alpha_s1.csv",
                     "alpha_s1": "lifelong/alpha_s1_2.csv",
                     "ALPHA_S1": "lifelong/ALPHA_S1_3.csv",
                     "beta": "lifelong/beta.csv",
                     "CON": "lifelong/CON_.csv",
                     "a:b?": "lifelong/a_b_.csv"}
    assert all(".." not in f and f.count("/") == 1 for f in files.values())
    assert lifelong_files(["../x"])["../x"] == "lifelong/_x.csv"
