"""Command-line polish: --version, one usage in --help, S_adapt in the score table, derived
sums without float noise, "1 document"."""
from __future__ import annotations

import json
import re

import pytest

from llgui import __version__
from llgui.__main__ import main as entry
from llgui.cli.main import main as cli_main
from llgui.core.reports.commands import tidy
from tests.conftest import DEMO


def test_version(capsys):
    assert entry(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"llgui {__version__}"


def test_help_prints_one_usage_listing_the_commands(capsys):
    assert entry(["--help"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^usage:", out, flags=re.M)) == 1
    for command in ("score", "replay", "lifelong", "det"):
        assert re.search(rf"^  llgui {command} ", out, flags=re.M)


def test_score_table_shows_s_adapt_beside_s_base_and_s_pen(capsys):
    assert cli_main(["score", str(DEMO / "mt" / "bundle.toml"), "--metric", "bleu"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("document"))
    assert header.split()[2:] == ["BLEU", "BLEU", "adapt", "BLEU", "pen"]


def test_one_document_is_singular(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("a small house\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("a little house\n", encoding="utf-8")
    (tmp_path / "one.toml").write_text(
        '[bundle]\ntask = "mt"\n[[documents]]\nid = "d"\ntime = 1\nreferences = "ref.txt"\n'
        'hypothesis = "hyp.txt"\n', encoding="utf-8")
    code = cli_main(["score", str(tmp_path / "one.toml"), "--metric", "bleu"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "(mt, 1 document)" in captured.out.splitlines()[0]


def test_derived_sums_have_no_float_noise(capsys):
    assert cli_main(["score", str(DEMO / "diarization" / "bundle.toml"), "--metric", "der",
                     "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sums = [v for d in report["documents"] for v in d["components"]["der"].values()]
    sums += [d["penalised"]["der"]["cost"] for d in report["documents"]]
    assert sums and all(len(repr(v).split(".")[-1]) <= 9 for v in sums), sums
    assert tidy(13.710000000000036) == 13.71 and tidy(float("nan")) != tidy(float("nan"))
    assert tidy({"a": 0.1 + 0.2, "b": None}) == {"a": 0.3, "b": None}


def test_det_pair_of_target_and_nontarget_files(reference_data, expected, capsys):
    case = next(e for e in expected["detection"] if e["id"].startswith("bob-measure-nonsep"))
    code = cli_main(["det", "--pair", str(reference_data / case["target"]),
                     str(reference_data / case["nontarget"]), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    (system,) = json.loads(out.out)["systems"]
    assert system["eer"] / 100 == pytest.approx(
        case["published"]["ROCCH_BOSARIS_1.06"]["EER"], abs=1e-12)
    assert (system["n_target"], system["n_nontarget"]) == (50, 50)
    assert cli_main(["det"]) == 2
    assert "give score files, or --pair" in capsys.readouterr().err


def test_score_csv_has_per_document_der_components(capsys):
    import csv
    import io

    assert cli_main(["score", str(DEMO / "diarization" / "bundle.toml"), "--metric", "der",
                     "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    documents = {r["document"] for r in rows if not r["document"].startswith("<")}
    for doc in documents:
        got = {r["quantity"]: float(r["value"]) for r in rows if r["document"] == doc}
        assert {"miss", "false_alarm", "confusion", "total"} <= set(got)
        assert got["score"] == pytest.approx(
            100 * (got["miss"] + got["false_alarm"] + got["confusion"]) / got["total"], abs=1e-6)
