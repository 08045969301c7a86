"""How far a metric agrees with human judgments of the same systems (issue 32).

Two measures, over the systems that have both a metric score and a human score:

- **Pairwise accuracy** (Kocmi et al. 2021, "To Ship or Not to Ship: An Extensive Evaluation
  of Automatic Metrics for Machine Translation", WMT 2021): over the m = n(n-1)/2 pairs of
  systems, the share whose order by the metric is the order by the humans:
  sign(metric_i - metric_j) = sign(human_i - human_j), the metric's sign taken so that
  "better" points the same way (TER: lower is better). A pair tied on either side counts as
  agreeing only when tied on both.
- **Soft pairwise accuracy** (Thompson et al. 2024, "Improving Statistical Significance in
  Human Evaluation of Automatic Metrics via Soft Pairwise Accuracy", WMT 2024; the WMT24
  metrics task's main measure): SPA = 1 - mean over pairs of |p^h_ij - p^m_ij|, where p_ij is
  the one-sided p-value of "system i is better than system j" from a paired permutation test,
  on the humans' segment scores (p^h) and on the metric (p^m). It needs segment-level human
  scores (where the significance of a human difference is known); with system-level human
  scores only, it is not given (said so in the report).

The p-values are Thompson et al.'s (their `compute_pairwise_p_values`): N permutations, each
segment's two scores swapped with probability 1/2 (one draw of the swaps, seeded, for every
pair), p = share of permutations whose difference i - j reaches the real one (>=; no +1). The
humans' test sums segment scores over the segments both systems have a human score for; the
metric's is the approximate randomisation of its corpus score on the compared units (the same
swaps as the `ar` test of `compare`), read one-sided.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Mapping, Sequence

import numpy as np

DEFAULT_PERMUTATIONS = 1000
DEFAULT_SEED = 4   # Thompson et al.'s default


@dataclass(frozen=True)
class HumanScores:
    """Human judgments of systems: a system-level score each (the mean of its judgments),
    and, when the file had them, segment-level scores aligned across systems (NaN where a
    system's segment was not judged; `segment_ids` name the columns). Higher is better."""

    path: str
    kind: str                                   # e.g. "wmt-annotations", "mt-metrics-eval"
    systems: Mapping[str, float]
    segments: Mapping[str, np.ndarray] | None = None
    segment_ids: tuple = ()
    pair: str | None = None                     # the language pair read, when named
    notes: tuple[str, ...] = field(default=())


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def pairwise_accuracy(metric: Mapping[str, float], human: Mapping[str, float],
                      higher_is_better: bool = True) -> tuple[float, int]:
    """(accuracy, pairs) over the systems in both mappings (Kocmi et al. 2021)."""
    names = [n for n in metric if n in human]
    agree = total = 0
    for a, b in combinations(names, 2):
        dm = metric[a] - metric[b]
        if not higher_is_better:
            dm = -dm
        total += 1
        agree += _sign(dm) == _sign(human[a] - human[b])
    return (agree / total if total else float("nan")), total


def permutation_signs(n_segments: int, permutations: int = DEFAULT_PERMUTATIONS,
                      seed: int = DEFAULT_SEED) -> np.ndarray:
    """(permutations, n_segments) of +-1 float32, drawn as Thompson et al. draw them."""
    rng = np.random.default_rng(seed)
    signs = rng.random(size=(permutations, n_segments), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    return signs


def human_p_values(segments: Mapping[str, np.ndarray], names: Sequence[str],
                   permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED
                   ) -> dict[tuple[str, str], float]:
    """One-sided p of "a is better than b" for every pair (a before b in `names`), a paired
    permutation test on the segments both have a score for."""
    n_segments = len(next(iter(segments.values())))
    signs = permutation_signs(n_segments, permutations, seed)
    out = {}
    for a, b in combinations(names, 2):
        x = np.asarray(segments[a], dtype=np.float64)
        y = np.asarray(segments[b], dtype=np.float64)
        both = np.isfinite(x) & np.isfinite(y)
        xa = np.where(both, x, 0.0).astype(np.float32)
        yb = np.where(both, y, 0.0).astype(np.float32)
        null = signs @ xa - signs @ yb
        real = float(np.sum(xa) - np.sum(yb))
        out[(a, b)] = float(np.sum(null >= real) / permutations)
    return out


def metric_p_values(samples: Mapping[str, object], names: Sequence[str],
                    higher_is_better: bool, permutations: int = DEFAULT_PERMUTATIONS,
                    seed: int = DEFAULT_SEED) -> dict[tuple[str, str], float]:
    """One-sided p of "a is better than b" by the metric: approximate randomisation of its
    corpus score (additive samples: `swapped`), the same swap draw for every pair."""
    n_units = next(iter(samples.values())).n_units
    take = permutation_signs(n_units, permutations, seed) > 0
    take = take.astype(np.float64)
    out = {}
    for a, b in combinations(names, 2):
        # swapped: first = b with a's units where take, second = a with b's units there
        sb, sa = samples[b].swapped(samples[a], take)
        null = np.asarray(sa) - np.asarray(sb)
        real = samples[a].point() - samples[b].point()
        if not higher_is_better:
            null, real = -null, -real
        out[(a, b)] = float(np.sum(null >= real) / permutations)
    return out


def soft_pairwise_accuracy(human_p: Mapping[tuple[str, str], float],
                           metric_p: Mapping[tuple[str, str], float]) -> float:
    """1 - mean |p^h - p^m| over the pairs (Thompson et al. 2024)."""
    keys = list(human_p)
    if not keys:
        return float("nan")
    return 1.0 - float(np.mean([abs(human_p[k] - metric_p[k]) for k in keys]))


def agreement(metric_scores: Mapping[str, Mapping[str, float]],
              higher: Mapping[str, bool], human: HumanScores,
              samples: Mapping[str, Mapping[str, object]] | None = None,
              permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED) -> dict:
    """The `human` block of a report: per metric, pairwise accuracy and (segment-level human
    scores and the metric's paired samples given) soft pairwise accuracy.

    `metric_scores`: {metric: {system: score}}; `higher`: {metric: higher_is_better};
    `samples`: {metric: {system: Sample}} on the compared units."""
    some = next(iter(metric_scores.values()), {})
    names = [n for n in some if n in human.systems]
    unmatched = sorted(set(some) - set(human.systems))
    out = {"file": human.path, "kind": human.kind, "pair": human.pair,
           "systems": names, "n_systems": len(names),
           "n_pairs": len(names) * (len(names) - 1) // 2,
           "systems_without_human_score": unmatched,
           "human_scores": {n: float(human.systems[n]) for n in names},
           "segment_level": human.segments is not None,
           "permutations": permutations, "seed": seed,
           "notes": list(human.notes), "metrics": {}}
    human_p = None
    if human.segments is not None and len(names) >= 2:
        human_p = human_p_values(human.segments, names, permutations, seed)
    for key, scores in metric_scores.items():
        accuracy, pairs = pairwise_accuracy({n: scores[n] for n in names}, human.systems,
                                            higher.get(key, True))
        entry = {"pairwise_accuracy": accuracy, "pairs": pairs, "soft_pairwise_accuracy": None,
                 "spa_reason": None}
        if human_p is None:
            entry["spa_reason"] = ("needs segment-level human scores" if human.segments is None
                                   else "needs two systems with human scores")
        elif samples is None or key not in samples:
            entry["spa_reason"] = "needs the metric's paired statistics"
        else:
            metric_p = metric_p_values(samples[key], names, higher.get(key, True),
                                       permutations, seed)
            entry["soft_pairwise_accuracy"] = soft_pairwise_accuracy(human_p, metric_p)
        out["metrics"][key] = entry
    return out
