"""`llgui score` on a bundle with a log scores every document once per metric, not twice.

The report's scores as they stand come from the same replay as its penalised scores; they are
held equal to a separate scoring pass (`score_bundle`).
"""
from __future__ import annotations

import pytest

import llgui.core.penalty as penalty
import llgui.core.scoring as scoring
from llgui.io.bundle import load_bundle
from llgui.core.reports.commands import score_report
from tests.conftest import DEMO


def test_each_document_is_scored_once_and_the_scores_are_the_same(monkeypatch):
    bundle = load_bundle(DEMO / "diarization" / "bundle.toml")
    metrics = ("der", "jer")
    expected = scoring.score_bundle(bundle, metrics)
    calls = []
    original = penalty.make_track

    def counting(*args, **kwargs):
        calls.append(args[0].id)
        return original(*args, **kwargs)

    monkeypatch.setattr(penalty, "make_track", counting)
    monkeypatch.setattr(scoring, "make_track", counting)
    report = score_report(bundle, metrics)
    assert len(calls) == len(bundle.documents) * len(metrics)
    for result in expected:
        assert report["metrics"][result.name]["score"] == pytest.approx(result.pooled, abs=1e-12)
        assert report["aggregates"][result.name]["mean"] == pytest.approx(result.mean, abs=1e-12)
        for i, entry in enumerate(report["documents"]):
            assert entry["scores"][result.name] == pytest.approx(result.documents[i].score,
                                                                 abs=1e-12)
            # components are derived sums, rounded to 1e-9 in reports (core.reports.commands.tidy)
            assert entry["components"].get(result.name, {}) == pytest.approx(
                dict(result.components(i)), abs=1e-9)
    assert set(report["penalised"]) == set(metrics)
