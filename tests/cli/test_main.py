"""The command-line contract of DESIGN.md section 7: commands, shapes, exit codes."""
from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from llgui.cli.main import main as cli_main
from tests.conftest import DEMO, REPO

MT = DEMO / "mt" / "bundle.toml"
DIAR = DEMO / "diarization" / "bundle.toml"
DET = DEMO / "detection" / "bundle.toml"
PROBLEM_LINE = re.compile(r"^\S.*:\d+: \S.*$|^\S[^:]*: \S.*$")


def run(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "llgui", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def call(capsys, *args) -> tuple[int, str, str]:
    code = cli_main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------------------------
# Bad input: exit 2, FILE:LINE: reason, no traceback


def test_a_malformed_bundle_exits_2_with_file_line_reasons(tmp_path):
    bundle = tmp_path / "bad.toml"
    bundle.write_text(
        '[bundle]\n'
        'task = "mt"\n'
        'metrics = ["bleu", "meteor"]\n'
        '\n'
        '[[documents]]\n'
        'id = "d1"\n'
        'time = "yesterday"\n'
        'references = ["nowhere.ref"]\n'
        'hypothesis = "nowhere.hyp"\n', encoding="utf-8")
    out = run("score", bundle)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) >= 4          # every problem of the file, not just the first
    assert all(line.startswith(f"{bundle}:") for line in lines), lines
    assert all(PROBLEM_LINE.match(line) for line in lines), lines
    assert any(line.startswith(f"{bundle}:3: ") and "meteor" in line for line in lines)
    assert any(line.startswith(f"{bundle}:7: ") and "yesterday" in line for line in lines)
    assert f"{bundle}:8: references file 'nowhere.ref' not found" in lines
    assert f"{bundle}:9: hypothesis file 'nowhere.hyp' not found" in lines
    assert out.stdout == ""


def test_a_bad_file_named_by_a_bundle_is_reported_at_its_own_line(tmp_path):
    (tmp_path / "ref.txt").write_text("a b c\nd e f\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_bytes(b"a b c\nd \xff f\n")
    bundle = tmp_path / "b.toml"
    bundle.write_text('[bundle]\ntask = "mt"\n\n[[documents]]\nid = "d"\ntime = 1\n'
                      'references = ["ref.txt"]\nhypothesis = "hyp.txt"\n', encoding="utf-8")
    out = run("score", bundle)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{tmp_path / 'hyp.txt'}:2: ")
    assert "UTF-8" in out.stderr


def test_missing_bundle_and_unknown_document_exit_2(capsys, tmp_path):
    code, _, err = call(capsys, "score", tmp_path / "none.toml")
    assert code == 2 and str(tmp_path / "none.toml") in err
    code, _, err = call(capsys, "replay", MT, "--doc", "no-such-doc")
    assert code == 2 and "no-such-doc" in err
    code, _, err = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--metric", "der")
    assert code == 2 and "der" in err
    code, _, err = call(capsys, "det", DEMO / "detection" / "scores" / "sysA.txt", "--dcf", "2,1,1")
    assert code == 2 and "--dcf" in err


# --------------------------------------------------------------------------------------------
# replay


def test_replay_json_shape_and_the_penalty_identity(capsys):
    code, out, err = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert {"doc", "metric", "mode", "signature", "s_base", "steps", "msr",
            "curve_area"} <= set(report)
    assert report["mode"] == "paper" and report["metric"] == "bleu"
    assert report["signature"].startswith("nrefs:1|")
    steps = report["steps"]
    assert len(steps) >= 10
    assert all({"step", "initiative", "kind", "cost", "cum_cost", "s_cor", "s_imp",
                "s_adapt", "s_pen"} <= set(s) for s in steps)
    # S_pen,n = S_adapt,n + sum_{k<=n} (S_imp,k - S_cor,k), to the last bit of the JSON
    penalty, cum_cost = 0.0, 0.0
    for s in steps:
        penalty += s["s_imp"] - s["s_cor"]
        cum_cost += s["cost"]
        assert s["s_pen"] == s["s_adapt"] + penalty
        assert s["cum_cost"] == cum_cost


@pytest.mark.parametrize(("bundle", "metric"), [(MT, "bleu"), (DIAR, "der")])
def test_demo_has_documents_that_generalise_and_documents_that_do_not(capsys, bundle, metric):
    from llgui.io.bundle import load_bundle

    higher = metric == "bleu"
    better, worse = [], []
    for doc in load_bundle(bundle).documents:
        code, out, err = call(capsys, "replay", bundle, "--doc", doc.id, "--metric", metric,
                              "--format", "json")
        assert code == 0, err
        r = json.loads(out)
        gain = (r["steps"][-1]["s_pen"] - r["s_base"]) * (1 if higher else -1)
        (better if gain > 0 else worse).append(doc.id)
    assert better and worse, (better, worse)


def test_replay_table_and_csv_carry_the_same_numbers(capsys):
    _, out_json, _ = call(capsys, "replay", DIAR, "--doc", "show-2023-03-06", "--format", "json")
    _, out_csv, _ = call(capsys, "replay", DIAR, "--doc", "show-2023-03-06", "--format", "csv")
    _, out_table, _ = call(capsys, "replay", DIAR, "--doc", "show-2023-03-06")
    report = json.loads(out_json)
    rows = list(csv.DictReader(io.StringIO(out_csv)))
    assert [float(r["s_pen"]) for r in rows] == [s["s_pen"] for s in report["steps"]]
    assert f"{report['s_base']:.2f}" in out_table
    assert f"{report['steps'][-1]['s_pen']:.2f}" in out_table
    assert "MSR" in out_table and report["msr"] is not None   # DER is an error count


def test_llmt_mode_subtracts_the_requested_sentences(capsys):
    _, paper, _ = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--format", "json")
    code, llmt, err = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--mode", "llmt",
                           "--format", "json")
    assert code == 0, err
    paper, llmt = json.loads(paper), json.loads(llmt)
    assert llmt["mode"] == "llmt"
    for p, m in zip(paper["steps"], llmt["steps"]):
        assert m["s_adapt"] == p["s_adapt"]            # same hypotheses
        assert m["s_cor"] is None and m["s_imp"] is None
        assert m["s_pen"] < m["s_adapt"]               # the requested sentences lose credit
    code, _, err = call(capsys, "replay", MT, "--doc", "news-2023-01-09", "--mode", "llmt",
                        "--metric", "ter")
    assert code == 2 and "bleu" in err


# --------------------------------------------------------------------------------------------
# score


def test_score_json_shape_with_der_components(capsys):
    code, out, err = call(capsys, "score", DIAR, "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["task"] == "diarization"
    assert set(report["metrics"]) == {"der", "jer"}
    assert all({"score", "signature"} <= set(v) for v in report["metrics"].values())
    assert all({"pooled", "mean"} <= set(v) for v in report["aggregates"].values())
    for doc in report["documents"]:
        assert {"id", "time", "scores", "components"} <= set(doc)
        c = doc["components"]["der"]
        assert {"miss", "false_alarm", "confusion", "total"} <= set(c)
        assert doc["scores"]["der"] == pytest.approx(
            100 * (c["miss"] + c["false_alarm"] + c["confusion"]) / c["total"], abs=1e-9)
    # pooled DER is duration-weighted: summed error time over summed reference time
    docs = report["documents"]
    error = sum(d["components"]["der"][k] for d in docs for k in ("miss", "false_alarm", "confusion"))
    total = sum(d["components"]["der"]["total"] for d in docs)
    assert report["aggregates"]["der"]["pooled"] == pytest.approx(100 * error / total, abs=1e-9)
    assert report["aggregates"]["der"]["mean"] == pytest.approx(
        sum(d["scores"]["der"] for d in docs) / len(docs), abs=1e-9)


def test_score_mt_pooled_is_corpus_bleu_and_policy_weighting_is_labelled(capsys):
    import sacrebleu

    from llgui.io.bundle import load_bundle

    code, out, err = call(capsys, "score", MT, "--metric", "bleu", "--policy", "A",
                          "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    bundle = load_bundle(MT)
    hyps = [s for d in bundle.documents for s in d.hypothesis]
    refs = [[s for d in bundle.documents for s in d.references[0]]]
    assert report["aggregates"]["bleu"]["pooled"] == pytest.approx(
        sacrebleu.BLEU().corpus_score(hyps, refs).score, abs=1e-9)
    assert report["policy"]["name"] == "A"
    # Policy A (relative, weight 0.1 at the oldest document rising linearly to 1 at the
    # newest), by hand: x = (t - t_first) / (t_last - t_first), w = 0.1 + 0.9 x, normalised
    from datetime import datetime

    times = [datetime.fromisoformat(d.time.text).timestamp() for d in bundle.documents]
    x = [(t - times[0]) / (times[-1] - times[0]) for t in times]
    w = [0.1 + 0.9 * xi for xi in x]
    per_doc = [sacrebleu.BLEU().corpus_score(list(d.hypothesis), [list(d.references[0])]).score
               for d in bundle.documents]
    assert [d["scores"]["bleu"] for d in report["documents"]] == pytest.approx(per_doc, abs=1e-9)
    assert report["aggregates"]["bleu"]["policy"] == pytest.approx(
        sum(wi * s for wi, s in zip(w, per_doc)) / sum(w), abs=1e-9)
    pens = [d["penalised"]["bleu"]["s_pen"] for d in report["documents"]]
    assert report["penalised"]["bleu"]["policy"]["s_pen"] == pytest.approx(
        sum(wi * s for wi, s in zip(w, pens)) / sum(w), abs=1e-9)


def test_score_table_names_every_aggregate(capsys):
    code, out, _ = call(capsys, "score", MT)
    assert code == 0
    for label in ("pooled", "mean of documents", "signatures:", "BLEU:", "chrF:", "TER:"):
        assert label in out


# --------------------------------------------------------------------------------------------
# det and lifelong


def test_det_json_shape(capsys):
    from llgui.core.detection.det import evaluate
    from llgui.io.detection import load_scores

    key = DEMO / "detection" / "scores" / "trials.key"
    files = sorted((DEMO / "detection" / "scores").glob("sys*.txt"))
    code, out, err = call(capsys, "det", *files, "--key", key, "--dcf", "0.01,10,1",
                          "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [s["name"] for s in report["systems"]] == [f.stem for f in files]
    for s, path in zip(report["systems"], files):
        assert {"name", "n_target", "n_nontarget", "eer", "eer_method", "min_dcf", "act_dcf",
                "dcf"} <= set(s)
        assert s["dcf"] == [0.01, 10.0, 1.0]
        assert s["eer_method"] == "rocch"
        direct = evaluate(load_scores(path, key=key), dcf=(0.01, 10.0, 1.0))
        assert s["eer"] == pytest.approx(100 * direct.eer, abs=1e-12)    # percent
        assert s["min_dcf"] == pytest.approx(direct.min_dcf, abs=1e-12)  # plain number


def test_score_on_a_detection_bundle_gives_the_det_summary(capsys):
    code, out, err = call(capsys, "score", DET, "--format", "json")
    assert code == 0, err
    assert len(json.loads(out)["systems"]) >= 2


def test_lifelong_json_shape_and_presets(capsys, tmp_path):
    code, out, err = call(capsys, "lifelong", MT, "--policy", "B", "--penalised",
                          "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert {"metric", "policy", "models", "summary"} <= set(report)
    assert {"acc", "bwt", "fwt", "forgetting", "learning_accuracy"} <= set(report["summary"])
    assert report["summary"]["fwt_baseline"] == "first model"
    # --penalised: the summary describes value_pen, as the S_P column beside it does
    from llgui.core.across_time.scores import continual_summary
    from llgui.io.bundle import load_bundle

    table = load_bundle(MT).lifelong
    assert table is not None and report["metric"] in table.values_pen
    metric = report["metric"]
    assert report["summary"]["of"] == "value_pen"
    pen = continual_summary(table, metric, penalised=True)
    assert report["summary"]["acc"] == pytest.approx(pen.acc, abs=1e-12)
    assert report["summary"]["acc"] != pytest.approx(continual_summary(table, metric).acc,
                                                     abs=1e-9)
    assert len(report["models"]) >= 12
    assert all({"model", "time", "s_p", "s_p_pen"} <= set(m) for m in report["models"])
    # a policy file with the preset's points gives the preset's numbers
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({k: report["policy"][k] for k in ("mode", "points",
                                                                   "normalise")}))
    code, out2, err = call(capsys, "lifelong", MT, "--policy", policy, "--format", "json")
    assert code == 0, err
    assert [m["s_p"] for m in json.loads(out2)["models"]] == [m["s_p"] for m in report["models"]]
    bad = tmp_path / "bad.json"
    bad.write_text('{"mode": "relative",\n "points": [[0, -1]]}\n')
    code, _, err = call(capsys, "lifelong", MT, "--policy", bad)
    assert code == 2 and err.startswith(f"{bad}:2: ")


@pytest.mark.parametrize("argv, says", [
    (["scor", "x.toml"], "did you mean 'llgui score'?"),
    (["simulat", "b.toml"], "did you mean 'llgui simulate'?"),
    (["frobnicate"], "neither a command nor a file (commands: score, replay"),
    (["missing.toml", "--screenshot", "x.png"], "missing.toml: no such file"),
])
def test_a_mistyped_command_or_a_missing_bundle_is_exit_2_before_any_window(argv, says, capsys,
                                                                            tmp_path,
                                                                            monkeypatch):
    """`llgui scor x.toml` opened the window on a bundle named "scor" (exit 0), and `llgui
    missing.toml --screenshot x.png` wrote an empty window (exit 0): both are exit 2 with one
    line saying why, before Qt is loaded (issue 24)."""
    from llgui.__main__ import main as entry

    monkeypatch.chdir(tmp_path)
    assert entry(argv) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("command", ["score", "replay", "lifelong", "det", "campaign",
                                     "compare", "simulate"])
def test_every_option_of_every_command_has_help_with_its_default(command):
    """`--help` named no default for most options of compare and simulate (issue 24): every
    option of every command now has a help text, and every option that is not required names
    its default (what happens without it); the oracle and built-in system names it lists are
    the simulation's own."""
    import argparse

    from llgui.cli import main as cli
    from llgui.sim.oracles import ORACLES
    from llgui.sim.run import REFERENCE_SYSTEMS

    assert cli.ORACLE_NAMES == ORACLES and cli.SYSTEM_NAMES == REFERENCE_SYSTEMS
    parser = argparse.ArgumentParser()
    cli.COMMANDS[command].arguments(parser)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{command} {action.option_strings or action.dest}: no help"
        if action.option_strings and not action.required:
            assert "default" in action.help, (command, action.option_strings)
    text = parser.format_help()
    if command == "simulate":
        assert all(name in text for name in ("worst-first", "noisy:P", "mt_memory"))
