"""The window's campaign job (no Qt): `llgui campaign` scored in a child process."""
from __future__ import annotations


def campaign_job(path: str, scheduler: str | None = None, progress=None, should_stop=None):
    """Worker job: `llgui campaign` in a child process (llgui.campaign.child), so scoring never
    competes with the event loop for the interpreter; on the Dask cluster at `scheduler` when
    given. Returns its `CampaignResult`."""
    from llgui.campaign.child import campaign_in_child

    return campaign_in_child(path, progress=progress, should_stop=should_stop,
                             scheduler=scheduler)
