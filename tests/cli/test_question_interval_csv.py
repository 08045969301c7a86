"""Issue 35, items 12-14: `score --format csv` carries the run's question value as trailing
`<questions>` rows (as it carries the aggregates); the run's gain over random comes with a
percentile bootstrap interval over its questions, seeded and stated in the table, and close
to scipy.stats.bootstrap's percentile interval of the same sum; the demo diarization log
has no active `segment` step (docs/protocol.md: a `segment` is only ever a correction)."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from scipy import stats

from llgui.cli import main as cli
from llgui.io.bundle import load_bundle
from tests.conftest import DEMO

MT = DEMO / "mt" / "bundle.toml"
DIAR = DEMO / "diarization" / "bundle.toml"


def run(capsys, *args) -> str:
    assert cli.main(list(map(str, args))) == 0
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def score_json():
    out = io.StringIO()
    from contextlib import redirect_stdout

    with redirect_stdout(out):
        assert cli.main(["score", str(MT), "--format", "json"]) == 0
    return json.loads(out.getvalue())


def test_score_csv_has_the_question_value(capsys, score_json):
    q = score_json["question_value"]
    rows = list(csv.DictReader(io.StringIO(run(capsys, "score", MT, "--format", "csv"))))
    got = {r["quantity"]: r["value"] for r in rows if r["document"] == "<questions>"}
    assert {r["metric"] for r in rows if r["document"] == "<questions>"} == {q["metric"]}
    for key in ("questions", "precision", "asked", "random", "best", "gain", "regret"):
        assert float(got[key]) == pytest.approx(q["run"][key]), key
    assert float(got["gain_low"]) == pytest.approx(q["run"]["gain_interval"]["low"])
    assert float(got["gain_high"]) == pytest.approx(q["run"]["gain_interval"]["high"])


def test_the_gain_interval_is_a_percentile_bootstrap_over_the_questions(capsys, score_json):
    q = score_json["question_value"]
    interval = q["run"]["gain_interval"]
    assert (interval["level"], interval["resamples"], interval["seed"]) == (0.95, 1000, 12345)
    # the steps' own numbers, summed by an independent bootstrap (scipy, 20,000 resamples)
    report = json.loads(run(capsys, "effort", MT, "--format", "json"))
    steps = report["questions"][str(MT)]["steps"]
    gains = np.array([s["asked"] - s["random"] for s in steps])
    assert len(gains) == q["run"]["questions"] == 22
    ref = stats.bootstrap((gains,), np.sum, method="percentile", n_resamples=20000,
                          confidence_level=0.95, random_state=1).confidence_interval
    spread = ref.high - ref.low
    assert interval["low"] == pytest.approx(ref.low, abs=0.08 * spread)
    assert interval["high"] == pytest.approx(ref.high, abs=0.08 * spread)
    assert interval["low"] < gains.sum() < interval["high"]
    # said in the table: the interval, its method, the resamples and the seed
    text = run(capsys, "effort", MT)
    line = next(l for l in text.splitlines() if l.startswith("gain over random (run)"))
    assert f"[{interval['low']:.2f}, {interval['high']:.2f}]" in line
    assert "percentile bootstrap over the run's 22 questions" in line and "seed 12345" in line
    score = run(capsys, "score", MT)
    assert f"[{interval['low']:.2f}, {interval['high']:.2f}]" in score


def test_no_active_segment_in_the_demo_and_none_valued(capsys):
    bundle = load_bundle(DIAR)
    assert [s for s in bundle.steps if s.kind == "segment"]        # the demo has segments
    assert not [s for s in bundle.steps if s.kind == "segment" and s.initiative == "active"]
    report = json.loads(run(capsys, "effort", DIAR, "--format", "json"))
    kinds = {s["kind"] for s in report["questions"][str(DIAR)]["steps"]}
    assert kinds and kinds <= {"same", "boundary", "name"}
