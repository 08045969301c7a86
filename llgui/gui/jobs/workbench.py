"""The workbench's worker jobs (no Qt): a document's walkthrough, a diarization step's view
(built ahead of the user for a long show), and the bootstrap intervals of a bundle's
aggregates. Every job has the signature `fn(..., progress=None, should_stop=None)`; the
workbench (`llgui.gui.workbench.tab`) submits them to the window's `JobRunner`.
"""
from __future__ import annotations

from llgui.core.metrics import WORD_METRICS, default_replay, replay_metrics
from llgui.core.walkthrough import Walkthrough, walk

SYNC_TURNS = 2000
"""Shows with at most this many turns (both sides) get their step views on the main thread."""

MEMORISE_LIMIT = 20_000
"""Segments (MT) or turns (diarization) up to which the walkthrough also replays the
memorise-only reference: it doubles the replay's time and memory, which a 100,000-sentence
document cannot afford within the window's memory bound (DESIGN.md 5, gate 9)."""

LLMT = "bleu:llmt"
"""The metric box's choice for BLEU with S_pen in mode "llmt" (`metric_and_mode`)."""

def metric_and_mode(choice: str) -> tuple[str, str]:
    """("bleu", "llmt") for the llmt choice, (metric, "paper") otherwise."""
    metric, _, mode = choice.partition(":")
    return metric, mode or "paper"


def track_metric(bundle, metric: str | None) -> str:
    """The state's metric for the bundle's task when the workbench can replay it, else the
    bundle's first that it can (a detection bundle may start from EER), else the task's
    default replay metric (`llgui.core.metrics`)."""
    allowed = [m for m in replay_metrics(bundle.task) if m not in WORD_METRICS]
    if metric is not None and metric_and_mode(metric)[0] in allowed:
        return metric
    return next((m for m in bundle.metrics if m in allowed), default_replay(bundle.task))


def zones_of(settings) -> dict:
    """The collar and overlap settings of a bundle, as the timeline's breakdown uses them."""
    settings = settings or {}
    return {"collar": float(settings.get("collar", 0.0) or 0.0),
            "skip_overlap": bool(settings.get("skip_overlap", False))}


def turns(document) -> int:
    """Turns of a diarization document, reference and hypothesis together."""
    return len(document.reference) + len(document.hypothesis)


def memorise_affordable(document) -> bool:
    if document.task == "mt":
        return document.n_segments <= MEMORISE_LIMIT
    if document.task == "diarization":
        return turns(document) <= MEMORISE_LIMIT // 4
    return False


def warm_kernels() -> None:
    """Load the compiled resampling kernel (numba), if there is one."""
    try:
        from llgui.core.significance import _penalised_kernel
    except ImportError:   # no numba: the numpy path needs no loading
        return
    _penalised_kernel.warm()


def needs_kernels(bundle) -> bool:
    """Whether the bundle's aggregate intervals will run the compiled resampling loop: only
    from `KERNEL_FROM_STEPS` steps on (below, numpy is as quick and nothing is loaded)."""
    from llgui.core.significance.penalised import KERNEL_FROM_STEPS

    return len(bundle.steps) >= KERNEL_FROM_STEPS


def walk_job(key, document, steps, metric, settings, cost, documents, progress=None,
             should_stop=None, kernels: bool = True):
    """Worker job: the walkthrough of one document, returned with the key it answers. With
    `kernels` (a bundle that `needs_kernels`) it first loads the compiled resampling kernel
    (numba), which the aggregates' interval job needs next: loaded here, before the document
    is shown, it does not compete with the user's first steps for the interpreter. Loading
    it takes about 0.8 s: for a bundle that never uses it, that doubled the time to a
    warm-cached 549-sentence document (gate 10's window)."""
    from llgui.core.jobs import collector_paused

    with collector_paused():
        if kernels:
            warm_kernels()
        if document.task == "mt":
            # a step's view counts its word edits with rapidfuzz (`textdiff.change_effect`):
            # its first import, 40-50 ms, came on the event loop at the first step ahead
            import rapidfuzz.distance  # noqa: F401
    name, mode = metric_and_mode(metric)
    result = walk(document, steps, name, settings, cost, mode=mode, should_stop=should_stop,
                  documents=documents, progress=progress, memorise=memorise_affordable(document))
    if document.task == "diarization" and turns(document) > SYNC_TURNS:
        # the first view of a long show (its base timeline) too: built here, it does not
        # run beside the window's first paint of the document
        view_job(result, 0, True, should_stop=should_stop, **zones_of(settings))
    return key, result


def questions_job(result: Walkthrough, metric, settings, cost, documents, progress=None,
                  should_stop=None):
    """Worker job, after the walkthrough is shown: its question values (issue 34), returned
    with the walkthrough they belong to."""
    from llgui.core.jobs import check

    # a checkpoint first: a background job waits there while the window draws the document
    # it belongs to (the track below has none, and its Python beside the document's slices
    # and paints stretched their turns of the event loop two- to threefold)
    check(should_stop)
    name, _ = metric_and_mode(metric)
    return result, question_values(result.document, result.log, name, settings, cost,
                                   documents, should_stop=should_stop)


def question_values(document, steps, metric, settings, cost, documents, should_stop=None
                    ) -> dict | None:
    """Step number -> question value of each active step (issue 34; `llgui.core.effort`),
    None when the document has none or its task counts no errors (detection)."""
    from llgui.core.effort.units import ERROR_METRIC, document_values, error_metric
    from llgui.core.jobs import check, collector_paused
    from llgui.core.penalty import make_track

    if document.task not in ERROR_METRIC or not any(s.initiative == "active" for s in steps):
        return None
    # the collector paused: the track's objects live as long as the job, and their growth set
    # off full collections on this thread, 50 ms each holding the interpreter (gate 9's
    # 100,000-sentence window: event-loop gaps of 60-90 ms with 5 ms of the loop's CPU)
    # (and the track freed before it comes back on: the first collection after would scan
    # it, 60-100 ms)
    with collector_paused(freeze=False):
        track = make_track(document, error_metric(document.task, metric), settings, cost,
                           documents, should_stop=should_stop)   # (MT: checkpoints inside)
        check(should_stop)
        values = {v.step: v
                  for v in document_values(track, steps, cost, should_stop=should_stop)}
        del track
    return values


def view_job(result: Walkthrough, step: int, ahead: bool = False, progress=None,
             should_stop=None, collar: float = 0.0, skip_overlap: bool = False):
    """Worker job: what step `step` looked like (its error regions, where its bars go, its
    per-speaker breakdown); returns (walkthrough, step), or (walkthrough, -1) when it
    prepared `step` ahead of time (`ahead`: nobody waits for it). Only that step: the view
    waiting for it shows it as soon as it is made, and then asks for the next one ahead
    (this job also made the next step before it returned, and on a busy machine the user
    waited for two steps' views, ~250 ms of a worker's time on a 10-hour show). Each part (a few
    tens of ms on a 10-hour show) ends at a checkpoint: a background job pauses there while
    the window draws, and a cancel is seen. What it makes is cached by the identity of the
    walkthrough's turn lists, where the view reads it."""
    from llgui.core.diarization.speakers import breakdown
    from llgui.core.diarization.verdict import step_verdict
    from llgui.core.display.lanes import error_geometry, lane_geometry, mapped_rank, stack_pieces
    from llgui.core.jobs import check

    def checkpoint() -> None:
        check(should_stop)

    if step > len(result.steps):
        return result, -1 if ahead else step
    checkpoint()
    if step == 0:   # the base: its mapping and errors, no step view
        lane_geometry(result.document.reference)
        stack_pieces(result.document.reference, mapped_rank(None))
        checkpoint()
        lane_geometry(result.hypothesis_at(0))
        stack_pieces(result.hypothesis_at(0), mapped_rank(result.base_mapping))
        checkpoint()
        error_geometry(result.errors_at(0))
        checkpoint()
        breakdown(result.document, result.base, result.base_mapping, collar, skip_overlap)
        return result, -1 if ahead else step
    view = result.view(step, checkpoint)   # (checkpoints between its sweeps)
    checkpoint()
    stack_pieces(result.document.reference, mapped_rank(None))
    for lane, mapping in ((view.seen, view.mapping), (view.corrected, view.mapping),
                          (view.impaired or (), view.mapping),
                          (view.adapted, view.adapted_mapping)):
        checkpoint()
        lane_geometry(lane)   # where the bars go: numpy, off the main thread
        if lane:   # how overlaps stack, in the view's order (`DiarView._lane_arrays`)
            stack_pieces(lane, mapped_rank(mapping))
    checkpoint()
    error_geometry(view.adapted_errors)
    checkpoint()
    # what the system did with the correction, before the breakdown the view waits for
    step_verdict(view, result.document.reference)
    checkpoint()
    breakdown(result.document, view.adapted, view.adapted_mapping, collar, skip_overlap)
    return result, -1 if ahead else step


def intervals_job(bundle, replay, plan, progress=None, should_stop=None):
    """Worker job: the bootstrap intervals of a bundle's pooled aggregates (documents
    resampled from the replays' cached statistics), returned with the replay they are of."""
    from llgui.core.significance.penalised import collection_intervals

    return replay, collection_intervals(bundle, replay, plan, progress=progress,
                                        should_stop=should_stop)
