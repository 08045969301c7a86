"""The window's jobs on a whole bundle (no Qt): every document replayed (the Documents list,
the workbench's aggregates, the across-time series) and the `llgui score` JSON export.
Signature `fn(..., progress=None, should_stop=None)`; `llgui.gui.main_window` submits them."""
from __future__ import annotations


def collection_job(bundle, metric, cost_model, mode="paper", progress=None,
                   should_stop=None):
    """Worker job: every document of `bundle` replayed (a `BundleReplay`), with the
    documents table's summaries built here rather than on the main thread."""
    from llgui.core.jobs import collector_paused
    from llgui.core.metrics import info
    from llgui.core.penalty import replay_bundle

    with collector_paused():   # the metric's libraries (sacrebleu...), loaded first
        try:
            info(metric).make_metric(bundle.settings, bundle.documents)
        except Exception:  # noqa: BLE001 - the replay below fails on it and says why
            pass
    result = replay_bundle(bundle, metric, cost_model, mode=mode, progress=progress,
                           should_stop=should_stop)
    result.summaries()
    return result


def export_scores_job(bundle, path, progress=None, should_stop=None) -> str:
    """Worker job: the `llgui score` JSON of `bundle`, written atomically to `path`."""
    from llgui.core.reports.commands import score_report
    from llgui.io.export import to_json
    from llgui.utils.atomic import write_atomic

    write_atomic(path, to_json(score_report(bundle, bundle.metrics)))
    return str(path)
