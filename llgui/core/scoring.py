"""Scores of a bundle's hypotheses as they stand (no interaction): per document and pooled.

Pooled scores come from summed per-document statistics (corpus BLEU; DER as summed error time
over summed reference time, i.e. duration-weighted); the mean is the unweighted mean of the
per-document scores. DESIGN.md 1.5 asks that both be shown, labelled, side by side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from llgui.core.jobs import check, report
from llgui.core.penalty import make_track
from llgui.core.track import Metric, Scored
from llgui.core.types import Bundle


@dataclass(frozen=True, eq=False)
class MetricScores:
    """One metric over a bundle's documents."""

    metric: Metric
    documents: tuple[Scored, ...]

    @property
    def name(self) -> str:
        return self.metric.name

    @property
    def signature(self) -> str:
        return self.metric.signature

    @property
    def pooled(self) -> float:
        """The score of the summed statistics; NaN when nothing at all was scored."""
        total = np.sum([d.stats for d in self.documents], axis=0)
        return math.nan if nothing_scored(self.metric, total) else self.metric.score(total)

    def score(self, index: int) -> float:
        """Document `index`'s score; NaN when nothing of it was scored (see `nothing_scored`)."""
        d = self.documents[index]
        return math.nan if nothing_scored(self.metric, d.stats) else d.score

    @property
    def mean(self) -> float:
        """Unweighted mean over the documents where something was scored."""
        values = [v for i in range(len(self.documents)) if not math.isnan(v := self.score(i))]
        return float(np.mean(values)) if values else math.nan

    def weighted(self, weights: np.ndarray) -> float:
        """Weighted mean of per-document scores (e.g. policy weights over document times);
        documents where nothing was scored take no weight."""
        from llgui.core.across_time.policy import weighted_mean

        values = np.array([self.score(i) for i in range(len(self.documents))], dtype=float)
        weights = np.where(np.isnan(values), 0.0, np.asarray(weights, dtype=float))
        return weighted_mean(np.nan_to_num(values), weights)

    def components(self, index: int) -> Mapping[str, float]:
        return metric_components(self.metric, self.documents[index].stats)

    def pooled_components(self) -> Mapping[str, float]:
        return metric_components(self.metric, np.sum([d.stats for d in self.documents], axis=0))


def nothing_scored(metric: Metric, stats: np.ndarray) -> bool:
    """True when `stats` measured nothing (DER: no reference time in the scored extent; JER:
    no reference speaker), so the library's conventional value (0 %, 100 %) is no result."""
    method = getattr(metric, "scored", None)
    return method is not None and not method(stats)


def metric_components(metric: Metric, stats: np.ndarray) -> Mapping[str, float]:
    """What a score is made of (DER: miss, false_alarm, confusion, total seconds; BLEU: ...)."""
    method = getattr(metric, "components", None)
    return dict(method(stats)) if method is not None else {}


def score_bundle(
    bundle: Bundle,
    metrics: tuple[str, ...] | None = None,
    *,
    progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[MetricScores, ...]:
    """Score every document's hypothesis under each metric (default: the bundle's metrics)."""
    metrics = metrics or bundle.metrics
    results = []
    total = max(1, len(metrics) * len(bundle.documents))
    done = 0
    for name in metrics:
        scored, metric = [], None
        for document in bundle.documents:
            check(should_stop)
            track = make_track(document, name, bundle.settings, bundle.cost, bundle.documents,
                               should_stop=should_stop)
            metric = track.metric
            scored.append(track.current())
            done += 1
            report(progress, done / total)
        if metric is None:
            continue
        results.append(MetricScores(metric, tuple(scored)))
    return tuple(results)


def scores_from_replay(result) -> MetricScores:
    """The bundle's scores as they stand (S_base of each document) taken from a
    `BundleReplay`: a report that replays the log needs no second scoring pass."""
    return MetricScores(result.metric_impl,
                        tuple(Scored(r.s_base, r.stats_base) for r in result.replays))
