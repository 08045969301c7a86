"""One document replayed with everything a reviewer looks at, step by step.

`walk()` runs the penalty engine (`llgui.core.penalty.replay`) and keeps, for every step, the
hypothesis the human saw (h_{n-1}), its corrected and impaired versions, the system's adapted
hypothesis (h_n), the corrected part (MT segments, diarization windows) and, for MT, the
segments the system changed by itself (generalisation). The GUI draws these; the numbers are
the replay's, so the window and `llgui replay` cannot disagree.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from llgui.core.cost import CostModel
from llgui.core.penalty import Replay, StepScores, make_track, replay
from llgui.core.track import Track
from llgui.core.types import Document, Step

Hypothesis = tuple  # MT: tuple[str, ...] (segments); diarization: tuple[Turn, ...]


@dataclass(frozen=True, eq=False)
class StepView:
    """What step n looked like. MT `corrected_segments` are 0-based; diarization `windows`
    are (start, end) seconds of this document."""

    step: Step
    scores: StepScores
    seen: Hypothesis
    corrected: Hypothesis
    impaired: Hypothesis | None
    adapted: Hypothesis
    corrected_segments: tuple[int, ...] = ()
    changed_segments: tuple[int, ...] = ()
    windows: tuple[tuple[float, float], ...] = ()
    unmappable: str | None = None
    mapping: dict | None = None          # diarization: optimal mapping of `seen` (hyp -> ref)
    adapted_mapping: dict | None = None  # diarization: optimal mapping of `adapted`
    adapted_errors: tuple = ()           # diarization: (start, end, kind) regions of `adapted`


@dataclass(frozen=True, eq=False)
class Walkthrough:
    document: Document
    replay: Replay
    base: Hypothesis
    steps: tuple[StepView, ...]
    base_mapping: dict | None = None
    base_errors: tuple = ()              # diarization: (start, end, kind) regions of h_0

    def errors_at(self, n: int) -> tuple:
        """Diarization: where h_n is correct, missed, false alarm or confused."""
        return self.base_errors if n <= 0 else self.steps[min(n, len(self.steps)) - 1].adapted_errors

    def hypothesis_at(self, n: int) -> Hypothesis:
        """h_n: the base for n = 0, the adapted hypothesis of step n otherwise."""
        return self.base if n <= 0 else self.steps[min(n, len(self.steps)) - 1].adapted


def walk(
    document: Document,
    steps: tuple[Step, ...],
    metric_name: str,
    settings,
    cost_model: CostModel,
    *,
    mode: str = "paper",
    should_stop: Callable[[], bool] | None = None,
    documents: tuple[Document, ...] = (),
) -> Walkthrough:
    """The walkthrough of `document` through `steps`; `documents` are the bundle's others."""
    track = make_track(document, metric_name, settings, cost_model, documents, should_stop)
    is_mt = document.task == "mt"
    base = tuple(track.hypothesis)
    base_mapping = None if is_mt else dict(track.mapping())
    base_errors = () if is_mt else tuple(track.error_regions(base_mapping))
    captured: list[dict] = []

    def before(step: Step, tr: Track) -> None:
        seen = tuple(tr.hypothesis)  # type: ignore[attr-defined]
        if is_mt:
            index = step.target.sentence - 1  # type: ignore[union-attr]
            captured.append(dict(seen=seen, corrected=tuple(tr.corrected_hypothesis(step)),
                                 impaired=None, corrected_segments=(index,),
                                 changed_segments=tuple(tr.changed_segments(step))))
        else:
            impaired, label = tr.impaired_hypothesis(step)
            mapping = dict(tr.mapping())
            captured.append(dict(seen=seen, corrected=tuple(tr.corrected_hypothesis(step)),
                                 impaired=tuple(impaired), unmappable=label,
                                 windows=tuple(tr.windows(step)), mapping=mapping,
                                 errors=tuple(tr.error_regions(mapping))))

    result = replay(track, steps, cost_model, doc=document.id, mode=mode,
                    should_stop=should_stop, before_step=before)
    final_mapping = None if is_mt else dict(track.mapping())
    final_errors = () if is_mt else tuple(track.error_regions(final_mapping))
    views = []
    for i, (step, scores) in enumerate(zip(steps, result.steps)):
        last = i + 1 >= len(captured)
        nxt = {} if last else captured[i + 1]
        fields = {k: v for k, v in captured[i].items() if k != "errors"}
        views.append(StepView(
            step=step, scores=scores,
            adapted=tuple(track.hypothesis) if last else nxt["seen"],
            adapted_mapping=final_mapping if last else nxt.get("mapping"),
            adapted_errors=final_errors if last else nxt.get("errors", ()),
            **fields))
    return Walkthrough(document, result, base, tuple(views), base_mapping, base_errors)
