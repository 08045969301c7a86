"""The window's regressions job (no Qt): `llgui regressions CAMPAIGN --format json` in a child
process (the cells come from the cache the campaign job just filled), so the bootstrap and the
unit scores never take the interpreter from the event loop."""
from __future__ import annotations


def regressions_job(path: str, progress=None, should_stop=None) -> dict:
    """Worker job: the `regressions` report of the campaign at `path` (flips with both
    versions' outputs, relapses, replicates)."""
    import sys

    from llgui.campaign.child import json_of_child

    command = [sys.executable, "-m", "llgui", "regressions", str(path), "--format", "json"]
    return json_of_child(command, "regressions", should_stop)
