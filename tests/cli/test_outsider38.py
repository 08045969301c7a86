"""Findings of a newcomer's first hour (outsider38) on the command line."""
from __future__ import annotations

import pytest

import llgui
from tests.conftest import llgui_in_process

MT = llgui.demo_dir() / "mt" / "bundle.toml"


@pytest.mark.parametrize("metric,side", [("bleu", "above it (higher is better)"),
                                         ("ter", "below it (lower is better)")])
def test_the_replay_footer_says_which_side_of_memorise_only_is_generalisation(metric, side):
    done = llgui_in_process(["replay", str(MT), "--doc", "news-2023-01-09", "--metric", metric])
    assert done.returncode == 0, done.stderr
    footer = next(line for line in done.stdout.splitlines() if line.startswith("S_pen mem ="))
    assert f"S_pen {side} is net generalisation" in footer


def _rttm(uri: str, turns) -> str:
    return "".join(f"SPEAKER {uri} 1 {start:.2f} {end - start:.2f} <NA> <NA> {who} <NA> <NA>\n"
                   for start, end, who in turns)


def test_plain_diarization_files_keep_the_references_order_and_say_what_is_missing(tmp_path):
    """Documents are timed in the order the reference names its recordings (they were sorted
    by name: a lifelong order ZZ, AA became AA, ZZ), a recording the hypothesis lacks or adds
    is said (its DER of 100 or its absence came without a word)."""
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationErrorRate

    ref_turns = {"ZZ": [(0, 4, "a"), (4, 9, "b")], "AA": [(0, 3, "c"), (3, 7, "d")]}
    hyp_turns = {"ZZ": [(0, 5, "x"), (5, 9, "y")], "EXTRA": [(0, 2, "z")]}
    (tmp_path / "ref.rttm").write_text(_rttm("ZZ", ref_turns["ZZ"]) + _rttm("AA", ref_turns["AA"]))
    (tmp_path / "hyp.rttm").write_text(_rttm("ZZ", hyp_turns["ZZ"])
                                       + _rttm("EXTRA", hyp_turns["EXTRA"]))
    done = llgui_in_process(["score", "--ref", str(tmp_path / "ref.rttm"), "--hyp",
                             str(tmp_path / "hyp.rttm"), "--metric", "der", "--format", "json"])
    assert done.returncode == 0, done.stderr
    import json

    documents = json.loads(done.stdout)["documents"]
    assert [(d["id"], d["time"]) for d in documents] == [("ZZ", "0"), ("AA", "1")]

    def annotation(turns):
        a = Annotation()
        for start, end, who in turns:
            a[Segment(start, end)] = who
        return a

    der = DiarizationErrorRate()
    assert documents[0]["scores"]["der"] == pytest.approx(
        100 * der(annotation(ref_turns["ZZ"]), annotation(hyp_turns["ZZ"])), abs=1e-9)
    assert documents[1]["scores"]["der"] == pytest.approx(100.0)   # all speech missed
    said = done.stderr
    assert "no turns for 1 recording(s) of the reference ('AA'): each is scored as all " \
           "speech missed" in said
    assert "1 recording(s) not in the reference" in said and "('EXTRA'): left out" in said


def test_a_refusal_note_gives_the_times_as_written_and_counts_in_words():
    """`llgui simulate`'s note said "after 1 steps ... (t1 530.0999999999999, t2
    12.344999999999999)"."""
    from types import SimpleNamespace

    from llgui.cli.simulate import refusal_notes

    run = {"documents": [
        {"doc": "show-2023-03-06", "steps": 1, "refused": {
            "reason": "budget", "kind": "same", "cost": 6.0, "left": 4.0,
            "target": {"t1": 530.1 - 1e-13, "t2": 12.345 - 1e-15}}},
        {"doc": "show-2023-03-13", "steps": 3, "refused": {
            "reason": "limit", "kind": "name", "cost": 1.0, "left": 0.0,
            "target": {"t": 903.15 + 1e-13}}}]}
    assert str(530.1 - 1e-13) != "530.1"   # (the premise: the float's own repr is noisy)
    sim = SimpleNamespace(panel=None, outcomes=[SimpleNamespace(result=SimpleNamespace(run=run))])
    notes = refusal_notes(sim).splitlines()
    assert notes[0] == ("note: show-2023-03-06: after 1 step the system asked same (t1 530.1, "
                        "t2 12.345) costing 6 with 4 of the budget left: refused, the document "
                        "ended")
    assert notes[1] == ("note: show-2023-03-13: the system's request name (t 903.15) was "
                        "refused at the step limit (3 steps)")


REALDATA = __import__("pathlib").Path(__file__).resolve().parents[2] / "docs" / "realdata"


@pytest.mark.parametrize("script,args,says", [
    ("make_persist.py", ["{out}"], "LLGUI_REFERENCE_DATA"),
    ("make_wmt24.py", [], "usage: python docs/realdata/make_wmt24.py WMT24_GIT_DIR"),
    ("make_wmt24.py", ["{tmp}", "{out}"], "is not a clone of wmt24-news-systems"),
])
def test_the_realdata_scripts_without_their_data_say_why_and_write_nothing(
        tmp_path, script, args, says):
    """make_persist.py died with a FileNotFoundError traceback (exit 1); make_wmt24.py with no
    argument raised IndexError, with a folder that is no clone CalledProcessError, and left a
    partial OUT/wmt24/txt."""
    import os
    import subprocess
    import sys

    out = tmp_path / "realdata"
    argv = [a.format(out=out, tmp=tmp_path) for a in args]
    done = subprocess.run([sys.executable, str(REALDATA / script), *argv], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "LLGUI_REFERENCE_DATA": str(tmp_path / "none")})
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_a_reason_on_every_line_is_said_once_with_its_count():
    """A score file given as the key printed 200 'unknown label' lines, then '... and 24800
    more problems'."""
    scores = llgui.demo_dir() / "detection" / "scores"
    done = llgui_in_process(["det", str(scores / "sysA.txt"), "--key", str(scores / "sysB.txt")])
    assert done.returncode == 2
    said = done.stderr.strip().splitlines()
    first = scores / "sysB.txt"
    assert said[0].startswith(f"{first}:1: unknown label '")
    assert said[3].startswith(f"{first}: the same problem as line 1 on 197 more lines (4, 5, ")
    assert said[4] == f"{first}: ... and 24800 more problems"
    assert len(said) == 5


def test_problems_that_differ_are_all_kept_in_their_order():
    from llgui.core.errors import Problem, summarised

    problems = [Problem("a.txt", n, f"unknown label '{n}'") for n in range(1, 7)]
    problems.insert(2, Problem("a.txt", 9, "expected 2 fields, found 3"))
    problems.append(Problem("b.txt", 1, "unknown label 'x'"))   # another file: its own
    shown = [str(p) for p in summarised(problems)]
    assert shown == ["a.txt:1: unknown label '1'", "a.txt:2: unknown label '2'",
                     "a.txt:9: expected 2 fields, found 3", "a.txt:3: unknown label '3'",
                     "a.txt: the same problem as line 1 on 3 more lines (4, 5, 6)",
                     "b.txt:1: unknown label 'x'"]
    four = problems[:2] + problems[3:5]   # four alike: as they are (a summary saves nothing)
    assert [str(p) for p in summarised(four)] == [str(p) for p in four]


def test_simulate_into_an_earlier_runs_folder_says_it_replaced_it(tmp_path):
    """`simulate --out` onto an earlier run's folder replaced its 32-step log with a 3-step
    one, exit 0, without a word. (A real run of the mt_memory reference system, budget 0.)"""
    out = tmp_path / "run"
    args = ["simulate", str(MT), "--system", "mt_memory", "--budget", "0", "--out", str(out),
            "--quiet"]
    first = llgui_in_process(args)
    assert first.returncode == 0, first.stderr
    assert "earlier run" not in first.stderr and (out / "run.json").is_file()
    again = llgui_in_process(args)
    assert again.returncode == 0, again.stderr
    assert f"note: {out} held an earlier run (run.json): this run replaced it" in again.stderr


def test_what_was_meant_is_named_and_nothing_that_was_not(tmp_path):
    """Suggestions that were wrong or missing: `--metric der` on MT suggested 'wer', `compare
    --ref --hyp` suggested --dcf, `llgui.load('/tmp/nonexist.toml')` suggested /tmp/s.toml; a
    bundle key `colar`, a baseline `ONLINE-b` and the window's `bundl.toml` got no hint."""
    from types import SimpleNamespace

    from llgui.__main__ import _unopenable
    from llgui.core.reports.compare import _resolve
    from llgui.utils.names import meant_file

    der = llgui_in_process(["score", str(MT), "--metric", "der"])
    assert der.returncode == 2
    assert "'der' is a diarization metric" in der.stderr and "did you mean" not in der.stderr

    plain = llgui_in_process(["compare", "--ref", "a.txt", "--hyp", "b.txt"])
    assert plain.returncode == 2
    error = plain.stderr.strip().splitlines()[-1]   # (after argparse's usage)
    assert "not plain files: score plain files with `llgui score --ref REF --hyp HYP`" in \
        error and "--dcf" not in error

    (tmp_path / "s.toml").write_text("")
    (tmp_path / "bundle.toml").write_text("")
    assert meant_file(tmp_path / "nonexist.toml") is None
    assert meant_file(tmp_path / "bundl.toml") == tmp_path / "bundle.toml"
    said = _unopenable([str(tmp_path / "bundl.toml")], ["score"])
    assert said == (f"llgui: {tmp_path / 'bundl.toml'}: no such file; did you mean "
                    f"{str(tmp_path / 'bundle.toml')!r}?")

    with pytest.raises(ValueError, match=r"no system named 'ONLINE-b'; did you mean "
                                         r"'ONLINE-B'\?"):
        _resolve("ONLINE-b", ["ONLINE-A", "ONLINE-B"], [SimpleNamespace(path=None)] * 2)

    reference = llgui.demo_dir() / "diarization" / "ref" / "shows.rttm"
    bundle = tmp_path / "b.toml"
    bundle.write_text(f'[bundle]\ntask = "diarization"\nname = "x"\n[settings]\ncolar = 0.25\n'
                      f'[[documents]]\nid = "NEWS_20230306"\ntime = 1\nreferences = '
                      f'["{reference}"]\nhypothesis = "{reference}"\n', encoding="utf-8")
    colar = llgui_in_process(["score", str(bundle)])
    assert colar.returncode == 2
    assert f"{bundle}:5: unknown key 'colar' in [settings]; did you mean 'collar'? (known: " \
        in colar.stderr


def test_dev_py_names_its_setup_command_and_setup_says_it_is_done():
    """`python3 dev.py setup` was accepted but not in --help, and printed nothing."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    shown = subprocess.run([sys.executable, str(repo / "dev.py"), "--help"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "python3 dev.py setup " in shown.stdout
    done = subprocess.run([sys.executable, str(repo / "dev.py"), "setup"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"is ready (llgui installed from {repo})")
