"""`llgui campaign`: output formats, gaps, and bad campaign files (exit 2, one `FILE:LINE:
reason` line per problem, the rest still scored and written, marked partial)."""
from __future__ import annotations

import json
import re

import pytest

from llgui.cli.main import main

REFS = ["the cat sat on the mat", "a dog barked at night", "rain fell on the town"]
HYPS = {"M0": ["the cat sat on a mat", "the dog barked at night", "rain fell in town"],
        "M1": ["the cat sat on the mat", "a dog barked at night", "rain fell on the town"]}

GOOD = """\
[campaign]
name = "tiny"
task = "mt"
metrics = ["bleu", "chrf"]

[[batches]]
id = "b1"
time = "2024-01-15"
references = ["ref/b1.txt"]

[[batches]]
id = "b2"
time = "2024-02-15"
references = "ref/b2.txt"

[[systems]]
name = "sys"
models = [{id = "M0", time = "2024-01-01"}, {id = "M1", time = "2024-02-01"}]
hypotheses = "sys/{model}/{batch}.txt"
"""


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "ref").mkdir()
    for b in ("b1", "b2"):
        (tmp_path / "ref" / f"{b}.txt").write_text("\n".join(REFS) + "\n")
        for model, lines in HYPS.items():
            folder = tmp_path / "sys" / model
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{b}.txt").write_text("\n".join(lines) + "\n")
    path = tmp_path / "campaign.toml"
    path.write_text(GOOD)
    return path


def _run(capsys, *args):
    code = main(["campaign", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_table_and_csv(tiny, capsys):
    import sacrebleu

    code, out, err = _run(capsys, tiny, "--format", "json", "--workers", "0")
    assert code == 0, err
    report = json.loads(out)
    assert report["partial"] is False and report["problems"] == []
    cells = report["systems"][0]["cells"]
    assert len(cells) == 4
    expected = sacrebleu.BLEU().corpus_score(HYPS["M0"], [REFS]).score
    assert cells[0]["scores"]["bleu"] == pytest.approx(expected, abs=1e-9)
    assert cells[-1]["scores"]["bleu"] == pytest.approx(100.0)
    board = report["systems"][0]["leaderboard"]["bleu"]
    assert set(board) == {"s_base", "s_adapt", "s_pen", "msr", "s_p", "s_p_versions",
                          "n_versions"}
    assert set(board["s_p"]) == {"A", "B", "C"}
    assert "in this process" in err and "4 computed" in err
    code, out, err = _run(capsys, tiny, "--workers", "0")
    assert code == 0 and "S_P A" in out and "0 computed" in err  # all from the cache now
    code, out, _ = _run(capsys, tiny, "--format", "csv", "--workers", "0")
    assert out.splitlines()[0] == "system,model,model_time,test,test_time,metric,value"
    assert len(out.splitlines()) == 1 + 4 * 2


def test_a_missing_hypothesis_is_a_gap_not_a_failure(tiny, capsys):
    (tiny.parent / "sys" / "M1" / "b2.txt").unlink()
    code, out, err = _run(capsys, tiny, "--format", "json", "--out", tiny.parent / "out")
    assert code == 0, err
    report = json.loads(out)
    assert not report["partial"]
    assert [(g["model"], g["batch"]) for g in report["gaps"]] == [("M1", "b2")]
    assert len(report["systems"][0]["cells"]) == 3
    assert "1 missing" in err
    csv_text = (tiny.parent / "out" / "lifelong" / "sys.csv").read_text()
    assert len(csv_text.splitlines()) == 1 + 3 * 2


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# (name, how to break the campaign, expected line of the campaign file or None, reason
# fragment, cells still scored)
BAD = [
    ("not TOML", lambda t: _edit(t, 'name = "tiny"', 'name = "tiny'), 2, "not valid TOML", 0),
    ("no task", lambda t: _edit(t, 'task = "mt"\n', ""), 1, "needs task", 0),
    ("unknown task", lambda t: _edit(t, 'task = "mt"', 'task = "asr"'), 3, "task must be", 0),
    ("unknown metric", lambda t: _edit(t, '"chrf"]', '"bleurt"]'), 4, "unknown metric", 4),
    ("misspelt key", lambda t: _edit(t, 'references = "ref/b2.txt"', 'referenses = "ref/b2.txt"'),
     14, "unknown key 'referenses'", 2),
    ("reference not found", lambda t: _edit(t, '"ref/b1.txt"', '"ref/b9.txt"'), 9,
     "not found", 2),
    ("duplicate batch", lambda t: _edit(t, 'id = "b2"', 'id = "b1"'), 12, "duplicate batch id", 2),
    ("mixed times", lambda t: _edit(t, 'time = "2024-02-15"', "time = 3"), 13,
     "must not mix", 2),
    ("bad date", lambda t: _edit(t, 'time = "2024-02-15"', 'time = "2024-13-45"'), 13,
     "neither a number nor an ISO date", 2),
    ("no hypotheses", lambda t: _edit(t, 'hypotheses = "sys/{model}/{batch}.txt"\n', ""), 16,
     "has no hypotheses", 0),
    ("template without batch", lambda t: _edit(t, "{batch}.txt", "all.txt"), 19,
     "has no {batch}", 0),
    ("template unknown field", lambda t: _edit(t, "{batch}.txt", "{batch}.{lang}"), 19,
     "unknown field {lang}", 0),
    ("model id with a slash", lambda t: _edit(t, 'id = "M1"', 'id = "../M1"'), 18,
     "model id must be", 0),
    ("bad setting", lambda t: _edit(t, "\n[[batches]]", '\n[settings]\ntokenize = "nope"\n'
                                                       "\n[[batches]]"), 7, "tokenize must be", 4),
    # (the system's cells are still scored, without its online run)
    ("bundle not found", lambda t: t + 'bundle = "online/bundle.toml"\n', 20,
     "bundle file 'online/bundle.toml' not found", 4),
    ("unknown table", lambda t: t + "\n[extras]\nx = 1\n", 21, "unknown table [extras]", 4),
]


@pytest.mark.parametrize("name,breaker,line,reason,scored", BAD, ids=[b[0] for b in BAD])
def test_bad_campaign_files(tiny, capsys, name, breaker, line, reason, scored):
    tiny.write_text(breaker(GOOD))
    out_dir = tiny.parent / "out"
    code, out, err = _run(capsys, tiny, "--format", "json", "--out", out_dir, "--workers", "0")
    assert code == 2
    problems = [x for x in err.splitlines() if not x.startswith("llgui campaign:")]
    assert problems and "Traceback" not in err
    for text in problems:
        assert re.match(r"^.+?(:\d+)?: .+$", text), text
    assert any(text.startswith(f"{tiny}:{line}: ") and reason in text for text in problems), \
        problems
    report = json.loads((out_dir / "campaign.json").read_text())
    assert report["partial"] is True and report["problems"]
    assert json.loads(out) == {k: v for k, v in report.items() if k != "lifelong_files"}
    assert sum(len(s["cells"]) for s in report["systems"]) == scored


@pytest.mark.parametrize("damage,line,reason", [
    (lambda p: p.write_text("one line\n"), 1, "has 1 lines but the references"),
    (lambda p: p.write_bytes(b"ok\n\xff bad\nok\n"), 2, "invalid UTF-8"),
])
def test_a_bad_hypothesis_file_is_reported_and_the_rest_scored(tiny, capsys, damage, line,
                                                                reason):
    hyp = tiny.parent / "sys" / "M0" / "b2.txt"
    damage(hyp)
    code, out, err = _run(capsys, tiny, "--format", "json", "--workers", "0")
    assert code == 2
    where = f"{hyp}:{line}: " if line else f"{hyp}: "
    assert any(x.startswith(where) and reason in x for x in err.splitlines()), err
    report = json.loads(out)
    assert report["partial"] and len(report["systems"][0]["cells"]) == 3


def test_worker_options_a_run_in_this_process_does_not_use_are_named(tiny, capsys, tmp_path,
                                                                    monkeypatch):
    """Outsider helper-53/54: --memory-limit with --workers 0, or with a default that chose
    this process, was ignored without a word; and `2gb` is a size as Dask reads it."""
    code, out, err = _run(capsys, tiny, "--workers", "0", "--memory-limit", "2gb")
    assert code == 0 and "--workers 0 scores the cells in this process, without them" in err
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "another"))   # (computed again)
    code, default_out, err = _run(capsys, tiny, "--memory-limit", "1GB")
    assert code == 0 and default_out == out
    # (a tiny campaign is scored while its first cells are timed: "scored in this process")
    assert "running in this process" in err or "scored in this process" in err
    assert "--threads and --memory-limit were not used" in err


def test_compare_names_each_output_it_could_not_score_on_a_line_of_its_own(tmp_path, capsys,
                                                                           monkeypatch):
    """`llgui compare` of a campaign whose last versions' outputs could not all be scored:
    what it could not compare, then each output's problem as FILE:LINE: reason, one a line
    (outsider helper-55: all of them in parentheses on one line), a blank tail said so."""
    monkeypatch.setenv("LLGUI_CACHE_DIR", str(tmp_path / "cache"))
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    (tmp_path / "ref.txt").write_text("".join(f"{w} {w} one\n" for w in words))
    outputs = {"a": words, "b": words[:-1], "c": words + ["", ""]}
    for system, lines in outputs.items():
        (tmp_path / system / "M0").mkdir(parents=True)
        (tmp_path / system / "M0" / "b1.txt").write_text("".join(f"{w} one\n" if w else "\n"
                                                                for w in lines))
    path = tmp_path / "campaign.toml"
    path.write_text('[campaign]\nname = "x"\ntask = "mt"\n\n[[batches]]\nid = "b1"\n'
                    'time = "2024-01-01"\nreferences = ["ref.txt"]\n\n'
                    + "".join(f'[[systems]]\nname = "{s}"\nmodels = [{{id = "M0", time = '
                              f'"2024-01-01"}}]\nhypotheses = "{s}/{{model}}/{{batch}}.txt"\n\n'
                              for s in outputs))
    code = main(["compare", str(path), "--baseline", "a"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err[0].startswith(f"{path}: outputs that could not be scored: b/M0/b1, c/M0/b1")
    assert f"{tmp_path / 'b' / 'M0' / 'b1.txt'}:5: has 5 lines but the references of batch " \
           "'b1' have 6" in err
    assert f"{tmp_path / 'c' / 'M0' / 'b1.txt'}:7: has 8 lines but the references of batch " \
           "'b1' have 6 (its last 2 lines are empty: a blank line at the end of the file?)" in err


def test_the_table_title_counts_in_words_that_agree():
    """"1 systems" and "8 cells" for the cells scored, not the campaign's (outsider
    helper-55): the title counts in the singular where it is one, and says "scored"."""
    from llgui.io.campaign_export import counted

    assert [counted(1, "system"), counted(2, "system"), counted(1, "batch"),
            counted(3, "batch"), counted(0, "cell")] == [
        "1 system", "2 systems", "1 batch", "3 batches", "0 cells"]
