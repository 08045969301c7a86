"""Table 1 of the LREC 2020 appendix (Prokopalo et al., seeds/000_*.txt, "Penalizing BLEU").

A 10-sentence corpus; one 15-token sentence corrected. The table prints, per condition, the
matching 1..4-gram counts, BP, hypothesis and reference lengths and %BLEU, then the penalised
scores. With 10 sentences of at least 4 tokens, the n-gram totals are hyp_len - 10 * (n - 1).
Every expected number below is printed in the paper.
"""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.cost import CostModel
from llgui.core.mt.stats import make_metric
from llgui.core.penalty import replay
from llgui.core.track import Scored
from llgui.core.types import SentenceTarget, Step

REF_LEN = 239
N_SENTENCES = 10

# name: (correct 1..4-grams, hyp. len., BP, %BLEU) -- as printed in table 1
TABLE = {
    "BASE": ((140, 77, 41, 25), 233, 0.975, 25.81),
    "IMPAIRED": ((133, 73, 40, 25), 233, 0.975, 24.99),
    "CORRECTED": ((144, 83, 49, 33), 229, 0.957, 29.70),
    "ADAPTED": ((151, 89, 54, 37), 228, 0.953, 32.25),
}
PENALISED = {"NO LEARNING": 21.10, "NO GENERALISATION": 24.99, "GENERALISATION": 27.54}


def stats_of(condition: str) -> np.ndarray:
    correct, hyp_len, _, _ = TABLE[condition]
    totals = [hyp_len - N_SENTENCES * n for n in range(4)]
    return np.array([hyp_len, REF_LEN, *correct, *totals], dtype=np.float64)


@pytest.fixture(scope="module")
def bleu():
    return make_metric("bleu")


@pytest.mark.parametrize("condition", list(TABLE))
def test_bleu_and_brevity_penalty_of_each_condition(bleu, condition):
    _, _, bp, expected = TABLE[condition]
    stats = stats_of(condition)
    assert bleu.score(stats) == pytest.approx(expected, abs=0.005)
    assert bleu.components(stats)["bp"] == pytest.approx(bp, abs=0.0005)


def test_impaired_statistics_zero_the_corrected_sentence_matches(bleu):
    # the corrected sentence contributes (140-133, 77-73, 41-40, 25-25) matches to BASE;
    # impairing that row alone (matches -> 0, totals kept) gives IMPAIRED
    sentence = np.array([15, 15, 7, 4, 1, 0, 15, 14, 13, 12], dtype=np.float64)
    rest = stats_of("BASE") - sentence
    assert np.array_equal(rest + bleu.impaired(sentence), stats_of("IMPAIRED"))


class TableTrack:
    """A Track fed with table 1's statistics: the corpus as BASE, the step's corrected and
    impaired versions as CORRECTED and IMPAIRED, and after the step the `adapt` condition.
    The engine (`replay`) does the rest, equation 1 included."""

    def __init__(self, metric, adapt: str):
        self.metric = metric
        self.adapt = adapt
        self.now = "BASE"

    def _scored(self, condition: str) -> Scored:
        stats = stats_of(condition)
        return Scored(self.metric.score(stats), stats)

    def current(self) -> Scored:
        return self._scored(self.now)

    def corrected(self, step) -> Scored:
        return self._scored("CORRECTED")

    def impaired(self, step) -> Scored:
        return self._scored("IMPAIRED")

    def advance(self, step) -> Scored:
        self.now = self.adapt
        return self._scored(self.now)

    def cost(self, step, cost_model) -> float:
        return 15.0   # the corrected sentence's 15 reference tokens


@pytest.mark.parametrize(
    ("name", "adapt"),
    [("NO LEARNING", "BASE"), ("NO GENERALISATION", "CORRECTED"), ("GENERALISATION", "ADAPTED")],
)
def test_penalised_scores_from_the_engine(bleu, name, adapt):
    step = Step(doc="table1", step=1, initiative="active", kind="reference",
                target=SentenceTarget(1))
    result = replay(TableTrack(bleu, adapt), [step], CostModel(), doc="table1")
    assert result.s_base == pytest.approx(TABLE["BASE"][3], abs=0.005)
    (scores,) = result.steps
    assert scores.s_cor == pytest.approx(TABLE["CORRECTED"][3], abs=0.005)
    assert scores.s_imp == pytest.approx(TABLE["IMPAIRED"][3], abs=0.005)
    assert scores.s_adapt == pytest.approx(TABLE[adapt][3], abs=0.005)
    # the paper's penalised scores, from the engine's own output
    assert result.s_pen == pytest.approx(PENALISED[name], abs=0.005)
    # the sentence's own weight in the corpus, as the paper states: 4.71 BLEU
    assert scores.s_cor - scores.s_imp == pytest.approx(4.71, abs=0.005)
    # what the workbench draws comes from the engine too (issue 9, item 15)
    assert result.at(0).penalty == 0.0 and result.at(0).s_pen == result.s_base
    assert result.at(1).penalty == pytest.approx(-4.71, abs=0.005)
    costs, pen = result.pen_curve()
    assert costs.tolist() == [0.0, 15.0] and pen[-1] == result.s_pen
