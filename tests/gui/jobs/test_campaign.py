"""The window's campaign job (llgui.gui.jobs.campaign) without a window: `llgui campaign`
scored in a child process, each system's lifelong table rebuilt from its report, every cell
sacrebleu's score of the campaign's files."""
from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from llgui.core.jobs import Cancelled
from llgui.gui.jobs.campaign import campaign_job
from tests.conftest import DEMO

CAMPAIGN = DEMO / "campaign"


def lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def scored():
    fractions = []
    result = campaign_job(str(CAMPAIGN / "campaign.toml"), progress=fractions.append)
    return result, fractions


def test_the_cells_are_sacrebleus_scores_of_the_files(scored):
    result, fractions = scored
    assert fractions and fractions[-1] == pytest.approx(1.0)
    tables = dict(result.tables)
    assert list(tables) == [s["name"] for s in result.report["systems"]] == [
        "steady", "forgetful", "static", "relapsing"]
    for system, model, batch in (("static", "M00", "2023-01"), ("forgetful", "M07", "2023-11"),
                                 ("steady", "M12", "2024-01")):
        table = tables[system]
        i, j = table.models.index(model), table.tests.index(batch)
        hyp = lines(CAMPAIGN / system / model / f"{batch}.drm")
        refs = [lines(CAMPAIGN / "ref" / f"{batch}.drm")]
        for metric, scorer in (("bleu", BLEU), ("chrf", CHRF), ("ter", TER)):
            assert table.values[metric][i, j] == pytest.approx(
                scorer().corpus_score(hyp, refs).score, abs=1e-9), (system, model, batch, metric)


def test_a_cancelled_campaign_stops():
    with pytest.raises(Cancelled):
        campaign_job(str(CAMPAIGN / "campaign.toml"), should_stop=lambda: True)
