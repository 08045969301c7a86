"""Effect size beside every p-value: how likely humans agree with a metric's ranking.

For BLEU and chrF, Kocmi et al. (ACL 2024, "Navigating the Metrics Maze: Reconciling Score
Magnitudes and Accuracies") fitted, on pairwise human judgments of system pairs (their ToShip23
set, many translation directions pooled into one curve), the accuracy with which a metric
difference Δ predicts the human ranking: a logistic curve a / (1 + e^(-b Δ)) per metric,
published as the `mt-thresholds` package (https://github.com/kocmitom/MT-Thresholds).
`human_agreement(metric, delta)` is that package's `accuracy(|Δ|, metric)` as a fraction (the
sign of Δ only says which system the metric ranks first).

The readout is honest at its edges:
- at Δ = 0 the metric ranks neither system first: there is nothing to agree with (None);
- the fit's ceiling a is below 100 %, so near Δ = 0 the curve reads below 50 % (44.2 % for
  BLEU at Δ = 0): a chance below a coin toss is the fit's artefact, read "≤ 50 % (coin toss)";
- the curve is pooled over language pairs: on one pair it may be far off (`SCOPE`);
- it was fitted on sacreBLEU's default settings; a BLEU of another tokenization (tok:char,
  tok:intl, tok:none, tok:spm, ...) or chrF++ (nw > 0) is not what was fitted: no value, the
  reason said (`fitted_for`).
No such table is known for the other metrics (TER, WER, DER, JER, detection) nor for llgui's
penalised measures: None.
"""
from __future__ import annotations

import math

SOURCE = ("Kocmi et al. 2024, Navigating the Metrics Maze (ACL), via mt-thresholds "
          "accuracy(|Δ|, metric)")
SCOPE = ("one curve pooled over the language pairs of ToShip23; on a single pair the chance "
         "may differ by tens of points")
KNOWN = ("bleu", "chrf")
"""llgui metric names with a published Δ-to-accuracy curve (the package's names too)."""
COIN_TOSS = 0.5
COIN_TOSS_TEXT = "≤ 50 % (coin toss)"
FITTED_TOKENIZATIONS = ("13a", "zh", "ja-mecab", "ko-mecab")
"""BLEU tokenizations the fit stands for: sacreBLEU's defaults (13a, or the one it picks by
target language for Chinese, Japanese and Korean)."""


def _field(signature: str, key: str) -> str | None:
    for part in (signature or "").split("|"):
        name, sep, value = part.partition(":")
        if sep and name == key:
            return value
    return None


def fitted_for(metric: str, signature: str | None) -> str | None:
    """None when the metric's settings (its sacreBLEU signature) are the ones the curve was
    fitted on; else the reason, e.g. "not fitted for tok:char"."""
    if not signature:
        return None
    if metric == "bleu":
        tok = _field(signature, "tok")
        if tok is not None and tok not in FITTED_TOKENIZATIONS:
            return f"not fitted for tok:{tok} (fitted on sacreBLEU's default tokenizations)"
    if metric == "chrf":
        nw = _field(signature, "nw")
        if nw is not None and nw != "0":
            return f"not fitted for chrF++ (nw:{nw}; fitted on chrF, nw:0)"
    return None


def human_agreement(metric: str, delta: float | None) -> float | None:
    """P(humans agree with the ranking a difference `delta` of `metric` implies), in
    (0.5, 1]; None when no curve is known for the metric, delta is missing or 0, or the
    curve reads at or below the coin toss there (see `reading`)."""
    value = _fit(metric, delta)
    return None if value is None or value <= COIN_TOSS else value


def _fit(metric: str, delta: float | None) -> float | None:
    if metric not in KNOWN or delta is None or not math.isfinite(delta) or delta == 0:
        return None
    from mt_thresholds import accuracy

    return float(accuracy(abs(float(delta)), metric)) / 100.0


def reading(metric: str, delta: float | None, signature: str | None = None) -> str:
    """The readout as text: "64.0 %", "≤ 50 % (coin toss)", "no difference", or why none."""
    if metric not in KNOWN:
        return "none known"
    if delta is None or not math.isfinite(delta):
        return ""
    if delta == 0:
        return "no difference"
    unfitted = fitted_for(metric, signature)
    if unfitted is not None:
        return unfitted
    value = _fit(metric, delta)
    return COIN_TOSS_TEXT if value <= COIN_TOSS else f"{100 * value:.1f} %"


def effect_entry(metric: str, delta: float | None, signature: str | None = None) -> dict:
    """The JSON of an effect size: {"delta", "human_agreement", "reading", "source", "scope"};
    `human_agreement` is None (and `reading` says why) for metrics without a curve, at Δ = 0,
    at or below the coin toss (`coin_toss` true) and for settings the curve was not fitted
    on (`not_fitted` the reason)."""
    if metric not in KNOWN:
        return {"delta": delta, "human_agreement": None, "reading": "none known",
                "source": f"none known for {metric}"}
    unfitted = fitted_for(metric, signature)
    agreement = None if unfitted is not None else human_agreement(metric, delta)
    entry = {"delta": delta, "human_agreement": agreement,
             "reading": reading(metric, delta, signature), "source": SOURCE, "scope": SCOPE}
    if unfitted is not None:
        entry["not_fitted"] = unfitted
    else:
        fit = _fit(metric, delta)
        if fit is not None and fit <= COIN_TOSS:
            entry["coin_toss"] = True
    return entry
