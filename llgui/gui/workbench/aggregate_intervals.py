"""Intervals on the workbench's aggregates (pooled S_base, S_adapt, S_pen; DER for
diarization): DESIGN 1.7, document unit.

When a bundle's collection job ("collection:<i>", a `penalty.BundleReplay`) is delivered, a
second job ("intervals:<i>") bootstraps its documents from the replays' cached statistics
(`llgui.core.significance.penalised.collection_intervals`); the workbench shows the point estimates
at once and the intervals when they arrive. Newest wins per bundle.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Slot

from llgui.gui.jobs.workbench import intervals_job

SAMPLES = 1000
SEED = 12345


class AggregateIntervals(QObject):
    def __init__(self, workbench) -> None:
        super().__init__(workbench)
        self.workbench, self.state = workbench, workbench.state
        self.jobs = workbench.jobs
        self.estimates: dict[int, tuple[object, dict]] = {}   # bundle -> (replay, estimates)
        self.jobs.result_ready.connect(self._on_jobs_result_ready)

    @property
    def signature(self) -> str:
        from llgui.core.significance.resample import Plan

        return Plan("bs", SAMPLES, SEED, "document").signature

    @Slot(str, object)
    def _on_jobs_result_ready(self, key: str, result) -> None:
        if key.startswith("collection:"):
            index = int(key.split(":", 1)[1])
            self.estimates.pop(index, None)
            bundles = self.state.bundles
            if (index >= len(bundles) or not result.replays
                    or bundles[index].task not in ("mt", "diarization")):
                return   # detection systems get their intervals in the Detection tab
            from llgui.core.significance.resample import Plan

            self.jobs.submit(f"intervals:{index}", intervals_job, bundles[index], result,
                             Plan("bs", SAMPLES, SEED, "document"), background=True)
        elif key.startswith("intervals:"):
            index = int(key.split(":", 1)[1])
            replay, estimates = result
            self.estimates[index] = (replay, estimates)
            self.workbench.show_intervals(index, replay, estimates, self.signature)

