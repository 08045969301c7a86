"""Can these scores be log-likelihood ratios? actDCF only means something if they are.

actDCF applies the Bayes threshold log(C_fa (1 - P) / (C_miss P)) to the scores as if they were
natural-log likelihood ratios. Scores that are not (similarities, distances, probabilities)
give an actDCF that measures nothing: bob.measure's example scores give 89.1 next to a fine
minDCF. `llr_warning` says why a set of scores cannot be LLRs, using three signs, each one a
property every set of calibrated LLRs has:

- plausible range: |s| <= 100 (odds of e^100 : 1 are beyond any real detector);
- a threshold inside the scores: the Bayes threshold falls between the smallest and the
  largest score, so the decision is not the same for every trial;
- calibration: for calibrated LLRs E[exp(-s) | target] = 1 and E[exp(s) | non-target] = 1;
  we flag only gross departures (either mean beyond 100, or below 1/100), which no mildly
  miscalibrated LLR reaches on a few hundred trials.

It is a warning, not a refusal: the user can say the system is calibrated.
"""
from __future__ import annotations

import math

import numpy as np

PLAUSIBLE_LLR = 100.0
CALIBRATION_FACTOR = 100.0


def _log_mean_exp(values: np.ndarray) -> float:
    if values.size == 0:
        return 0.0
    top = float(values.max())
    return top + math.log(float(np.mean(np.exp(values - top))))


def llr_warning(scores, is_target, threshold: float) -> str | None:
    """Why `scores` (with labels `is_target`) cannot be log-likelihood ratios for a Bayes
    `threshold` (`llgui.core.detection.det.bayes_threshold`), or None when nothing says so."""
    s = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(is_target, dtype=bool)
    return llr_warning_split(s[labels], s[~labels], threshold)


def llr_warning_split(tar: np.ndarray, non: np.ndarray, threshold: float) -> str | None:
    """`llr_warning` from the target and non-target scores (any order)."""
    if tar.size + non.size == 0:
        return None
    low = float(min(tar.min() if tar.size else np.inf, non.min() if non.size else np.inf))
    high = float(max(tar.max() if tar.size else -np.inf, non.max() if non.size else -np.inf))
    if max(abs(low), abs(high)) > PLAUSIBLE_LLR:
        return (f"scores reach {low if abs(low) > abs(high) else high:g}; log-likelihood ratios "
                f"beyond +-{PLAUSIBLE_LLR:g} are not plausible")
    if not low < threshold < high:
        side = "below" if high <= threshold else "above"
        return (f"every score is {side} the Bayes threshold {threshold:.3g} (scores from "
                f"{low:.3g} to {high:.3g}), so every trial gets the same decision")
    bound = math.log(CALIBRATION_FACTOR)
    for name, values in (("target", -tar), ("non-target", non)):
        if values.size and abs(_log_mean_exp(values)) > bound:
            sign = "-" if name == "target" else ""
            return (f"E[exp({sign}s) | {name}] = {math.exp(min(_log_mean_exp(values), 700)):.3g}"
                    f", where calibrated log-likelihood ratios give 1")
    return None
