"""A newcomer's first hour (issue 37, item 4): each small thing that went wrong, as a user met it.

Every command runs as a user runs it, in a subprocess, but for the four that check only what
the command line says back (a missing file, a typo, an abbreviation): those run through the
same entry point in this process (`in_process`), as do the loud campaign and the named det
report the -q and standard-input runs are compared with. The expected outputs come from the
same command without the option under test (the report llgui prints is not in question here,
only what the option adds or takes away) or from the files themselves.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import DEMO, REPO

KEY = DEMO / "detection" / "scores" / "trials.key"
SYS_A = DEMO / "detection" / "scores" / "sysA.txt"


def llgui(*args, stdin=None, env=None, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "llgui", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, input=stdin,
                          env={**os.environ, **(env or {})})


def in_process(*args):
    """`python -m llgui ARGS` through its entry point, `llgui.__main__.main`, in this process
    (a process costs about a second of imports): exit code, stdout and stderr as a
    CompletedProcess."""
    import contextlib
    import io

    from llgui.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:   # argparse's errors
            code = exit_.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def campaign_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def loud_campaign(campaign_cache):
    """The demo campaign without -q (run once for both places of -q), through the entry point
    in this process: what it is compared with, the -q runs, are real processes."""
    mp = pytest.MonkeyPatch()
    mp.setenv("LLGUI_CACHE_DIR", str(campaign_cache))
    try:
        loud = in_process("campaign", DEMO / "campaign" / "campaign.toml", "--workers", "0",
                          "--format", "json")
    finally:
        mp.undo()
    assert loud.returncode == 0, loud.stderr
    return loud


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_the_report_and_nothing_else(where, campaign_cache, loud_campaign):
    """`llgui -q score X` said 'score: no such file' (the window's parser took it); -q now
    silences a command's progress and notes, before or after the command, as sacrebleu's."""
    campaign = DEMO / "campaign" / "campaign.toml"
    env = {"LLGUI_CACHE_DIR": str(campaign_cache)}
    loud = loud_campaign
    assert loud.stderr.strip(), "the campaign says what it does on stderr (the premise)"
    args = (["-q", "campaign", campaign] if where == "before" else ["campaign", campaign, "-q"])
    quiet = llgui(*args, "--workers", "0", "--format", "json", env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    assert json.loads(quiet.stdout)["systems"] == json.loads(loud.stdout)["systems"]


def test_quiet_still_says_what_is_wrong():
    done = in_process("-q", "score", "nothere.toml")
    assert done.returncode == 2
    assert "nothere.toml" in done.stderr and "no such file" in done.stderr


def test_a_mistyped_option_is_named_before_a_missing_required_one():
    """`llgui compare B --baseine X` answered only 'the following arguments are required:
    --baseline', never what was wrong with what was typed."""
    done = in_process("compare", DEMO / "mt" / "bundle.toml", "--baseine", "static")
    assert done.returncode == 2
    assert "--baseine" in done.stderr and "did you mean --baseline?" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_abbreviated_option_still_works():
    """argparse's unambiguous abbreviations (`--form json`) are not mistaken for typos."""
    done = in_process("score", DEMO / "mt" / "bundle.toml", "--form", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["task"] == "mt"


@pytest.fixture(scope="module")
def named_det():
    """`llgui det` of the demo's system A named as a file (what both standard-input tests
    compare with; run once, in this process: the piped runs are the real processes)."""
    named = in_process("det", SYS_A, "--key", KEY, "--format", "json")
    assert named.returncode == 0, named.stderr
    return named


def test_det_reads_scores_from_standard_input(named_det):
    """`llgui det - --key KEY < scores` read nothing ('-: file not found'); it gives the same
    numbers as the file named, the system called 'stdin'."""
    named = named_det
    piped = llgui("det", "-", "--key", KEY, "--format", "json", stdin=SYS_A.read_text())
    assert named.returncode == 0 and piped.returncode == 0, piped.stderr
    a, b = json.loads(named.stdout)["systems"][0], json.loads(piped.stdout)["systems"][0]
    assert b["name"] == "stdin"
    assert {k: v for k, v in a.items() if k != "name"} == {k: v for k, v in b.items()
                                                           if k != "name"}
    bad = llgui("det", "-", "--key", KEY, stdin="e1 t1 abc\n")
    assert bad.returncode == 2 and bad.stderr.startswith("<stdin>"), bad.stderr


def test_the_api_times_are_times_not_strings():
    """The API's `time` column was a string: it sorts and plots as datetime64 now (ISO dates),
    and a model's time in the lifelong table too."""
    import pandas as pd

    import llgui

    frame = llgui.score(DEMO / "mt" / "bundle.toml")
    assert pd.api.types.is_datetime64_any_dtype(frame["time"])
    assert frame["time"].iloc[0] == pd.Timestamp("2023-01-09T08:00:00")
    table = llgui.lifelong(DEMO / "mt" / "bundle.toml")
    assert pd.api.types.is_datetime64_any_dtype(table["time"])


def test_make_bundles_without_the_reference_data_names_the_variable_and_writes_nothing(
        tmp_path):
    """It printed 15 'not found' lines and a traceback (exit 1), left a half-written bundle,
    and never named LLGUI_REFERENCE_DATA."""
    out = tmp_path / "realdata"
    done = subprocess.run([sys.executable, str(REPO / "docs" / "realdata" / "make_bundles.py"),
                           str(out)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LLGUI_REFERENCE_DATA": str(tmp_path / "none")})
    assert done.returncode == 2
    assert "LLGUI_REFERENCE_DATA" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_the_developer_docs_say_what_the_tree_holds():
    """docs/developing.md said 'Python 3.11' (the README: 3.11 or newer) and 'one bundle per
    task' where the demo has six folders; its layout showed resources/ where there was none."""
    text = (REPO / "docs" / "developing.md").read_text(encoding="utf-8")
    assert "Python 3.11 or newer" in text and "Python 3.11 and pip" not in text
    folders = sorted(p.name for p in (REPO / "resources" / "demo").iterdir() if p.is_dir()
                     and p.name != "__pycache__")
    assert len(folders) == 6
    for folder in folders:
        assert f"`{folder}/`" in text, folder
    layout = text[text.index("## Layout"):]
    assert re.search(r"(?m)^resources/ ", layout) and (REPO / "resources").is_dir()


def test_the_index_page_does_not_promise_a_package_that_is_not_published():
    text = (REPO / "docs" / "index-page.md").read_text(encoding="utf-8")
    assert "pip install llgui\n" not in text
    assert "not yet published" in text


def test_quiet_is_taken_everywhere_and_version_is_said_once(tmp_path):
    """From an outsider: `llgui -q --version` printed the version twice; `llgui -q BUNDLE
    --screenshot` was 'unrecognized arguments: -q'."""
    done = llgui("-q", "--version")
    assert done.returncode == 0 and done.stdout == done.stdout.splitlines()[0] + "\n"
    png = tmp_path / "q.png"
    shot = llgui("-q", DEMO / "mt" / "bundle.toml", "--no-session", "--screenshot", png,
                 env={"QT_QPA_PLATFORM": "offscreen"})
    assert shot.returncode == 0, shot.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_mistyped_metric_gets_the_likeliest_one():
    done = in_process("score", DEMO / "mt" / "bundle.toml", "--metric", "tre")
    assert done.returncode == 2
    assert "did you mean 'ter'?" in done.stderr


def test_det_with_a_key_and_no_score_file_reads_standard_input(named_det):
    """As `score --ref REF < HYP` reads the hypothesis: `det --key KEY < scores`."""
    named = named_det
    piped = llgui("det", "--key", KEY, "--format", "json", stdin=SYS_A.read_text())
    assert piped.returncode == 0, piped.stderr
    assert (json.loads(piped.stdout)["systems"][0]["eer"]
            == json.loads(named.stdout)["systems"][0]["eer"])


def test_the_no_display_advice_names_the_bundle_asked_for(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    bundle = DEMO / "mt" / "bundle.toml"
    done = subprocess.run([sys.executable, "-m", "llgui", str(bundle), "--no-session"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    # the user's own arguments kept (--live, --doc, --tab and --size render what was asked)
    assert f"llgui {bundle} --no-session --screenshot out.png" in done.stderr
    assert "--demo" not in done.stderr
