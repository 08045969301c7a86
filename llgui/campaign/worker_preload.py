"""Imported by the worker server (`llgui.campaign.worker_server`) before it forks a worker:
Dask's worker code and the cells' metrics, warmed up for the campaign named in
$LLGUI_WORKER_WARM, so that every worker forked from it starts with them loaded.

Nothing here may stop the server: a failure leaves the workers to warm up themselves, as a
spawned worker does (`llgui.campaign.local_workers.WarmUp`)."""
from __future__ import annotations


def _warm() -> None:
    import json
    import os

    try:
        import distributed.worker  # noqa: F401  (Dask's worker, as every worker imports it)

        from llgui.campaign.cells import warm_up

        text = os.environ.get("LLGUI_WORKER_WARM", "")
        if not text or len(text) > 100_000:
            return
        task, metrics, settings = json.loads(text)
        if task in ("mt", "diarization") and isinstance(settings, dict) and all(
                isinstance(m, str) for m in metrics):
            warm_up(task, metrics, settings)
    except BaseException:   # noqa: BLE001 - the workers warm up themselves instead
        pass


_warm()
