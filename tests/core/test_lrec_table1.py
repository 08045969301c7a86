"""Table 1 of the LREC 2020 appendix (Prokopalo et al., seeds/000_*.txt, "Penalizing BLEU").

A 10-sentence corpus; one 15-token sentence corrected. The table prints, per condition, the
matching 1..4-gram counts, BP, hypothesis and reference lengths and %BLEU, then the penalised
scores. With 10 sentences of at least 4 tokens, the n-gram totals are hyp_len - 10 * (n - 1).
Every expected number below is printed in the paper.
"""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.mt_stats import make_metric

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


@pytest.mark.parametrize(
    ("name", "adapt"),
    [("NO LEARNING", "BASE"), ("NO GENERALISATION", "CORRECTED"), ("GENERALISATION", "ADAPTED")],
)
def test_penalised_scores(bleu, name, adapt):
    s_imp = bleu.score(stats_of("IMPAIRED"))
    s_cor = bleu.score(stats_of("CORRECTED"))
    s_adapt = bleu.score(stats_of(adapt))
    assert s_adapt + (s_imp - s_cor) == pytest.approx(PENALISED[name], abs=0.005)
    # the sentence's own weight in the corpus, as the paper states: 4.71 BLEU
    assert s_cor - s_imp == pytest.approx(4.71, abs=0.005)
