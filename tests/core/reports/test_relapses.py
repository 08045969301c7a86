"""Relapses (issue 33, acceptance 2): a constructed system that forgets a taught speaker name
K shows after it was told gives exactly the relapses predicted here; the rates by hand."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from llgui.cli.main import main
from llgui.core.across_time.relapse import Correction, Retest, relapses

SHOWS = 6
KEEP = 2


def _bundle(root: Path) -> Path:
    # every show: "ann" speaks 0-40 s, "bob" 40-60 s
    ref = "".join(f"SPEAKER show{k} 1 0.000 40.000 <NA> <NA> ann <NA> <NA>\n"
                  f"SPEAKER show{k} 1 40.000 20.000 <NA> <NA> bob <NA> <NA>\n"
                  for k in range(SHOWS))
    (root / "ref.rttm").write_text(ref)
    (root / "hyp.rttm").write_text(ref.replace(" ann ", " c1 ").replace(" bob ", " c1 "))
    lines = ['[bundle]', 'task = "diarization"', 'name = "forgetting"', ""]
    for k in range(SHOWS):
        lines += ["[[documents]]", f'id = "show{k}"', f"time = {k}",
                  'references = ["ref.rttm"]', 'hypothesis = "hyp.rttm"', ""]
    (root / "bundle.toml").write_text("\n".join(lines))
    return root / "bundle.toml"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("forget")
    bundle = _bundle(root)
    system = Path(__file__).with_name("forgetful_namer.py")
    code = main(["simulate", str(bundle), "--system",
                 f"namer={sys.executable} {system} {KEEP}", "--oracle", "allies",
                 "--out", str(root / "run")])
    assert code == 0
    return root / "run" / "bundle.toml"


def test_a_system_forgetting_after_k_shows_relapses_as_predicted(run, capsys):
    capsys.readouterr()
    assert main(["regressions", str(run), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (section,) = report["relapses"]
    # one correction (show0, the name of the voice at 45 s: bob, unmapped by the optimal
    # mapping, so the oracle names him), re-tested by shows 1..5: kept while remembered
    # (shows 1..K), relapsed after (the last 20 s are "c1" again)
    rows = [(r["correction"], r["unit"], r["retest"], r["taught"], r["output"], r["outcome"])
            for r in report["rows"]]
    expected = [("show0#1", "bob", f"show{k}", "bob", "bob" if k <= KEEP else "c1",
                 "kept" if k <= KEEP else "relapsed") for k in range(1, SHOWS)]
    assert rows == expected
    assert (section["corrections"], section["retested"], section["relapsed"]) == (1, 1, 1)
    assert section["rate"] == 100.0 and section["cost_rate"] == 100.0
    assert [v["rate"] for v in section["per_version"]] == \
        [0.0 if k <= KEEP else 100.0 for k in range(1, SHOWS)]


def test_rates_by_hand():
    # three corrections: a (cost 2) kept, b (cost 1) relapsed at its 2nd re-test, c (cost 5)
    # never re-tested; graded unit scores (chrF): relapsed when at or below h_{n-1}'s
    corrections = [Correction("a", "u1", 0, 2.0, before=40.0),
                   Correction("b", "u2", 0, 1.0, before=50.0),
                   Correction("c", "u3", 3, 5.0, before=10.0)]
    retests = [Retest("u1", 1, "M1", 60.0), Retest("u2", 1, "M1", 55.0),
               Retest("u2", 2, "M2", 50.0), Retest("u3", 2, "M2", 0.0)]
    r = relapses(corrections, retests, mode="graded")
    assert (r.corrections, r.retested, r.relapsed) == (3, 2, 1)
    assert r.rate == 0.5 and r.cost_rate == pytest.approx(1 / 3)
    assert [(v["where"], v["retested"], v["relapsed"]) for v in r.per_version] == \
        [("M1", 2, 0), ("M2", 1, 1)]
