"""The Across-time tab's worker job (no Qt): the bootstrap band of S_P and the intervals of
ACC / BWT / FWT (`llgui.core.significance.across_time.lifelong_intervals`)."""
from __future__ import annotations


def bands_job(table, metric, policy, plan, progress=None, should_stop=None):
    """Worker job: the test times of `table` resampled with one set of indices for every
    cell; returns the `LifelongIntervals` (S_P band per model, ACC / BWT / FWT)."""
    from llgui.core.significance.across_time import lifelong_intervals

    return lifelong_intervals(table, metric, policy, plan, progress=progress,
                              should_stop=should_stop)
