"""Sentence chrF of a segment (llgui.core.mt.sentence) is sacrebleu's."""
from __future__ import annotations

import pytest
from sacrebleu.metrics import CHRF

from llgui.core.mt.sentence import chrf_change, sentence_chrf


@pytest.mark.parametrize("hypothesis, references", [
    ("a dog runs in a park", ["a dog ran in the park"]),
    ("birds sings at dawn", ["birds sing at dawn", "the birds sing at dawn"]),
    ("", ["nothing was said"]),
])
def test_sentence_chrf_is_sacrebleus(hypothesis, references):
    expected = CHRF().sentence_score(hypothesis, references).score
    assert sentence_chrf(hypothesis, references) == expected
    assert sentence_chrf(hypothesis, tuple(references)) == expected


def test_chrf_change_is_before_and_after():
    refs = ("a dog ran in the park",)
    before, after = chrf_change("a dog runs in a park", "a dog ran in a park", refs)
    assert before == CHRF().sentence_score("a dog runs in a park", list(refs)).score
    assert after == CHRF().sentence_score("a dog ran in a park", list(refs)).score
    assert after > before
