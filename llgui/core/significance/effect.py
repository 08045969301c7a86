"""Effect size beside every p-value: how likely humans agree with a metric's ranking.

For BLEU and chrF, Kocmi et al. (ACL 2024, "Navigating the Metrics Maze: Reconciling Score
Magnitudes and Accuracies") fitted, on pairwise human judgments of system pairs, the
accuracy with which a metric difference Δ predicts the human ranking: a logistic curve
a / (1 + e^(-b Δ)) per metric, published as the `mt-thresholds` package
(https://github.com/kocmitom/MT-Thresholds). `human_agreement(metric, delta)` is that
package's `accuracy(|Δ|, metric)` as a fraction (the sign of Δ only says which system the
metric ranks first). No such table is known for the other metrics (TER, WER, DER, JER,
detection) nor for llgui's penalised measures: None.
"""
from __future__ import annotations

import math

SOURCE = ("Kocmi et al. 2024, Navigating the Metrics Maze (ACL), via mt-thresholds "
          "accuracy(|Δ|, metric)")
KNOWN = ("bleu", "chrf")
"""llgui metric names with a published Δ-to-accuracy curve (the package's names too)."""


def human_agreement(metric: str, delta: float | None) -> float | None:
    """P(humans agree with the ranking a difference `delta` of `metric` implies), in [0, 1];
    None when no curve is known for the metric or delta is missing."""
    if metric not in KNOWN or delta is None or not math.isfinite(delta):
        return None
    from mt_thresholds import accuracy

    return float(accuracy(abs(float(delta)), metric)) / 100.0


def effect_entry(metric: str, delta: float | None) -> dict:
    """The JSON of an effect size: {"delta", "human_agreement", "source"} or the same with
    `human_agreement` None and a note saying none is known."""
    agreement = human_agreement(metric, delta)
    if agreement is None:
        return {"delta": delta, "human_agreement": None,
                "source": f"none known for {metric}"}
    return {"delta": delta, "human_agreement": agreement, "source": SOURCE}
