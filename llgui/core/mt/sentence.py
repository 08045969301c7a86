"""Sentence-level scores of one MT segment, for what the workbench says about a line the
system changed by itself: its chrF before and after the step. sacrebleu's own sentence chrF
(default parameters: character 6-grams, beta 2), not a metric of the bundle."""
from __future__ import annotations

from typing import Sequence


def sentence_chrf(hypothesis: str, references: Sequence[str]) -> float:
    """sacrebleu's sentence chrF (defaults) of `hypothesis` against `references`."""
    from sacrebleu.metrics import CHRF

    return float(CHRF().sentence_score(hypothesis, list(references)).score)


def chrf_change(seen: str, adapted: str, references: Sequence[str]) -> tuple[float, float]:
    """(chrF of `seen`, chrF of `adapted`): a generalised line's score before -> after."""
    return sentence_chrf(seen, references), sentence_chrf(adapted, references)
