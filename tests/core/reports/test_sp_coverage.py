"""Every S_P says over how many of the system's model versions it averages (issue 21): the
campaign JSON (`s_p_versions`, `n_versions`), the leaderboard table ("(2/3)") and the empty
window as a visible state ("no window (0/2)"), not a dash."""
from __future__ import annotations

import math

import numpy as np

from llgui.core.reports.campaign import (
    Batch, Campaign, CampaignScores, Cell, ModelVersion, SystemSpec, build_report,
    coverage_text, leaderboard_rows,
)
from llgui.core.types import Stamp
from llgui.io.campaign_export import campaign_table


def _report(model_times, batch_times):
    batches = tuple(Batch(f"b{j}", Stamp.parse(str(t)), ("r",))
                    for j, t in enumerate(batch_times))
    models = tuple(ModelVersion(f"M{i}", Stamp.parse(str(t))) for i, t in enumerate(model_times))
    cells = {(0, i, j): {"ter": np.array([float(i + j + 1), 10.0])}
             for i in range(len(models)) for j in range(len(batches))}
    campaign = Campaign("c.toml", "c", "mt", ("ter",), {}, batches,
                        (SystemSpec("s", models, "h"),),
                        tuple(Cell(0, i, j, "h") for (_, i, j) in cells))
    return build_report(campaign, CampaignScores(cells))


def test_s_p_says_how_many_versions_it_averages():
    report = _report([1, 5, 9], [4, 8])    # the first version's window holds no batch
    board = report["systems"][0]["leaderboard"]["ter"]
    per_model = report["systems"][0]["lifelong"]["ter"]["models"]
    assert board["n_versions"] == 3
    for policy, versions in board["s_p_versions"].items():
        finite = [m["s_p"][policy] for m in per_model if math.isfinite(m["s_p"][policy])]
        assert versions == len(finite) == 2
        assert board["s_p"][policy] == sum(finite) / len(finite)
    row = leaderboard_rows(report, "ter")[0]
    assert row["s_p_A_versions"] == 2 and row["n_versions"] == 3
    text = campaign_table(report)
    assert f"{board['s_p']['A']:.2f} (2/3)" in text
    assert coverage_text(2, 3) == "2 of 3 versions"


def test_an_empty_window_is_a_visible_state():
    report = _report([1, 2], [5, 6])       # no version's window holds a batch
    board = report["systems"][0]["leaderboard"]["ter"]
    assert board["s_p_versions"] == {"A": 0, "B": 0, "C": 0} and board["n_versions"] == 2
    assert "no window (0/2)" in campaign_table(report)
    assert coverage_text(0, 2) == "no version of 2 has a batch in its window"
