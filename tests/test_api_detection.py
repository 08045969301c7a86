"""The API on detection bundles gives what `llgui det` / `llgui score` print (an outsider found
`llgui.score` raising KeyError on a detection bundle with an interaction log, and `llgui.det`
scoring a bundle at 0.01, 1, 1 where the bundle and the command line said P_target 0.5)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import llgui
from tests.conftest import llgui_in_process

BUNDLE = llgui.demo_dir() / "detection-lifelong" / "bundle.toml"


def _dcf(scores, is_target, p_target, c_miss=1.0, c_fa=1.0) -> tuple[float, float]:
    """(minDCF, actDCF) normalised, written here from the definition (NIST SRE): the cost at
    the Bayes threshold log((1-P)C_fa / (P C_miss)), accepting score >= t, and its minimum
    over every threshold, each over min(P C_miss, (1-P) C_fa)."""
    target, non = scores[is_target], scores[~is_target]
    norm = min(p_target * c_miss, (1 - p_target) * c_fa)

    def cost(t):
        return (p_target * c_miss * np.mean(target < t)
                + (1 - p_target) * c_fa * np.mean(non >= t)) / norm

    bayes = np.log((1 - p_target) * c_fa / (p_target * c_miss))
    thresholds = np.concatenate([np.unique(scores), [np.inf]])
    return min(cost(t) for t in thresholds), cost(bayes)


def test_det_of_a_bundle_uses_its_operating_point_as_the_command_line():
    bundle = llgui.load(BUNDLE)
    assert bundle.settings["p_target"] == 0.5   # what the bundle says (the test's premise)
    frame = llgui.det(BUNDLE)
    printed = llgui_in_process(["det", str(BUNDLE), "--format", "json"])
    assert printed.returncode == 0, printed.stderr
    cli = {s["name"]: s for s in json.loads(printed.stdout)["systems"]}
    assert list(frame.attrs["dcf"]) == [0.5, 1.0, 1.0]
    for trials in bundle.detection:
        expected_min, expected_act = _dcf(trials.scores, trials.is_target, 0.5)
        row = frame.loc[trials.name]
        assert row["min_dcf"] == pytest.approx(expected_min, abs=1e-12)
        assert row["act_dcf"] == pytest.approx(expected_act, abs=1e-12)
        assert cli[trials.name]["min_dcf"] == pytest.approx(row["min_dcf"], abs=1e-12)
    # an explicit operating point still wins over the bundle's
    other = llgui.det(BUNDLE, dcf="0.01,1,1")
    trials = bundle.detection[0]
    assert other.loc[trials.name, "min_dcf"] == pytest.approx(
        _dcf(trials.scores, trials.is_target, 0.01)[0], abs=1e-12)


def test_score_of_a_detection_bundle_with_a_log_is_its_documents_table():
    frame = llgui.score(BUNDLE)
    printed = llgui_in_process(["score", str(BUNDLE), "--format", "json"])
    assert printed.returncode == 0, printed.stderr
    documents = json.loads(printed.stdout)["documents"]
    assert list(frame.index) == [d["id"] for d in documents]
    for entry in documents:
        for metric in ("err", "min_dcf", "act_dcf"):
            assert frame.loc[entry["id"], metric] == pytest.approx(entry["scores"][metric])
            assert frame.loc[entry["id"], f"{metric}.s_pen"] == pytest.approx(
                entry["penalised"][metric]["s_pen"])
    # the documents' base scores are the systems' own at the bundle's operating point
    bundle = llgui.load(BUNDLE)
    trials = {t.name: t for t in bundle.detection}["adaptive"]
    assert frame.loc["adaptive", "min_dcf"] == pytest.approx(
        _dcf(trials.scores, trials.is_target, 0.5)[0], abs=1e-12)
