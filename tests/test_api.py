"""The Python API (`import llgui`): the command line's reports as DataFrames (issue 24).

Every number is held equal to the CLI's JSON for the same input (the CLI is the contract the
other tests hold to sacrebleu, pyannote and the published tables), and the API imports nothing
heavy until it is used.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import llgui
from tests.conftest import DEMO, REPO

MT = DEMO / "mt" / "bundle.toml"
DIAR = DEMO / "diarization" / "bundle.toml"
DET = DEMO / "detection" / "bundle.toml"
CAMPAIGN = DEMO / "campaign" / "campaign.toml"


def cli_json(*args, process: bool = False) -> dict:
    """`llgui ARGS --format json` through its entry point (`python -m llgui` is
    `llgui.__main__.main`), in this process: the report is the command's, not the process's
    (a process per command was most of this module's CPU). `process`: as a user runs it, for
    `lifelong`, which no other test runs as a process."""
    import contextlib
    import io

    from llgui.__main__ import main

    if process:
        done = subprocess.run([sys.executable, "-m", "llgui", *map(str, args), "--format",
                               "json"], cwd=REPO, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*map(str, args), "--format", "json"])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def as_json(report: dict) -> dict:
    """A report as the CLI writes it (NaN as null, tuples as lists)."""
    from llgui.io.export import to_json

    return json.loads(to_json(report))


def same(a: float, b) -> bool:
    return (b is None and math.isnan(a)) or a == b


def test_import_llgui_loads_no_qt_and_nothing_heavy():
    code = ("import sys, json, llgui\n"
            "before = sorted(m.split('.')[0] for m in sys.modules)\n"
            "llgui.load; llgui.score  # the API's functions, not yet called\n"
            "after = sorted(m.split('.')[0] for m in sys.modules)\n"
            "print(json.dumps([before, after]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for modules in json.loads(out.stdout):
        heavy = {"PySide6", "shiboken6", "pyqtgraph", "pandas", "numpy", "sacrebleu", "dask"}
        assert heavy.isdisjoint(modules), heavy.intersection(modules)
    assert "llgui" in json.loads(out.stdout)[1]


def test_score_frame_equals_the_cli_json():
    frame = llgui.score(MT)
    cli = cli_json("score", MT)
    assert as_json(frame.attrs["report"]) == cli
    assert list(frame.index) == [d["id"] for d in cli["documents"]]
    for doc in cli["documents"]:
        for metric, value in doc["scores"].items():
            assert same(frame.loc[doc["id"], metric], value)
        for metric, values in doc["penalised"].items():
            assert frame.loc[doc["id"], f"{metric}.s_pen"] == values["s_pen"]
    assert frame.attrs["pooled"] == {m: v["score"] for m, v in cli["metrics"].items()}
    assert frame.attrs["signatures"]["bleu"] == cli["metrics"]["bleu"]["signature"]
    # a selection keeps the attrs and shares the report rather than deep-copying it
    part = frame[["bleu"]]
    assert part.attrs["report"] is frame.attrs["report"]
    assert part.attrs["pooled"] == frame.attrs["pooled"]


def test_load_files_and_settings_equal_the_cli_flags():
    ref = DEMO / "diarization" / "ref" / "shows.rttm"
    hyp = DEMO / "diarization" / "hyp" / "NEWS_20230306.rttm"
    uem = DEMO / "diarization" / "uem" / "shows.uem"
    # (the hypothesis is one show's: the reference's four others are all speech missed)
    with pytest.warns(UserWarning, match=r"no turns for 4 recording\(s\) of the reference"):
        bundle = llgui.load_files(ref, hyp, uem=uem, collar=0.25, skip_overlap=True)
    assert bundle.task == "diarization" and bundle.settings["collar"] == 0.25
    cli = cli_json("score", "--ref", ref, "--hyp", hyp, "--uem", uem, "--collar", "0.25",
                   "--skip-overlap")
    frame = llgui.score(bundle)
    assert as_json(frame.attrs["report"]) == cli
    assert frame.attrs["settings"] == {"collar": 0.25, "skip_overlap": True}


def test_bad_settings_and_files_raise_what_the_cli_reports():
    bundle = llgui.load(DIAR)
    with pytest.raises(llgui.UsageError, match="collar"):
        llgui.with_settings(bundle, collar=-1)
    with pytest.raises(ValueError, match="tokenize is read by bleu"):   # a UsageError
        llgui.with_settings(bundle, tokenize="intl")
    with pytest.raises(llgui.LoadError) as caught:
        llgui.load_files(DEMO / "mt" / "ref" / "missing.drm", DEMO / "mt" / "hyp" / "x.drm")
    assert all(str(p).endswith("file not found") for p in caught.value.problems)
    assert len(caught.value.problems) == 2


def test_replay_frame_equals_the_cli_json():
    frame = llgui.replay(MT, doc="news-2023-01-09", metric="chrf")
    cli = cli_json("replay", MT, "--doc", "news-2023-01-09", "--metric", "chrf")
    assert as_json(frame.attrs["report"]) == cli
    assert list(frame["s_pen"]) == [s["s_pen"] for s in cli["steps"]]
    assert frame.attrs["s_pen"] == cli["s_pen"] and frame.attrs["signature"] == cli["signature"]


def test_lifelong_det_and_compare_frames_equal_the_cli_json():
    frame = llgui.lifelong(DIAR, "A", penalised=True)
    cli = cli_json("lifelong", DIAR, "--policy", "A", "--penalised", process=True)
    assert as_json(frame.attrs["report"]) == cli
    assert list(frame["s_p"]) == [m["s_p"] for m in cli["models"]]

    frame = llgui.det(DET)
    cli = cli_json("score", DET)
    assert as_json(frame.attrs["report"]) == cli
    assert list(frame["eer"]) == [s["eer"] for s in cli["systems"]]

    frame = llgui.compare(CAMPAIGN, baseline="static", samples=100, seed=3)
    cli = cli_json("compare", CAMPAIGN, "--baseline", "static", "--samples", "100", "--seed", 3)
    assert as_json(frame.attrs["report"]) == cli
    steady = next(s for s in cli["systems"] if s["name"] == "steady")
    assert frame.loc[("steady", "bleu"), "p_value"] == steady["metrics"]["bleu"]["p_value"]


def test_campaign_frame_is_the_leaderboard_of_the_cli_report():
    frame = llgui.score_campaign(CAMPAIGN, "bleu")
    cli = cli_json("campaign", CAMPAIGN, "--workers", 0)
    assert as_json(frame.attrs["report"]) == cli
    for system in cli["systems"]:
        assert same(frame.loc[system["name"], "s_p_B"], system["leaderboard"]["bleu"]["s_p"]["B"])


def test_no_name_of_the_api_is_a_subpackage_and_each_stays_callable():
    """Importing a subpackage sets the package attribute of its name: an API function of that
    name (`llgui.campaign`) would turn into a module after its first call."""
    import importlib
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(llgui.__path__)}
    assert "campaign" in modules   # the check sees the subpackages
    assert modules.isdisjoint(llgui._API)
    for name in modules - {"__main__", "gui"}:
        importlib.import_module(f"llgui.{name}")
    assert all(callable(getattr(llgui, name)) for name in llgui._API)


def test_bad_arguments_are_usage_errors():
    with pytest.raises(llgui.UsageError, match="no document 'nope'"):
        llgui.replay(MT, doc="nope")
    with pytest.raises(llgui.UsageError, match="4 documents: name one"):
        llgui.replay(MT)
    with pytest.raises(llgui.UsageError, match="does not apply to mt"):
        llgui.score(MT, ["der"])
    with pytest.raises(llgui.UsageError, match="dcf"):
        llgui.det(DET, dcf=(2, 1, 1))
    with pytest.raises(AttributeError):
        llgui.no_such_function  # noqa: B018


def test_one_metric_may_be_named_alone():
    """`metrics="bleu"` (a newcomer's first try) is one metric, not the letters b, l, e, u."""
    import sacrebleu
    import tomllib

    import llgui

    folder = llgui.demo_dir() / "mt"
    frame = llgui.score(llgui.load(folder / "bundle.toml"), metrics="bleu")
    spec = tomllib.loads((folder / "bundle.toml").read_text(encoding="utf-8"))
    hyps, refs = [], []
    for document in spec["documents"]:
        hyps += (folder / document["hypothesis"]).read_text(encoding="utf-8").splitlines()
        refs += (folder / document["references"][0]).read_text(encoding="utf-8").splitlines()
    assert list(frame.attrs["pooled"]) == ["bleu"]
    assert frame.attrs["pooled"]["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score,
                                                          abs=1e-9)
