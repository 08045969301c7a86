"""Worker job of Session › Human vs oracle…: the `llgui effort` report (Qt-free)."""
from __future__ import annotations


def effort_job(folders, simulated=(), interval: str = "exact", tolerance: float = 0.5,
               progress=None, should_stop=None) -> dict:
    """`llgui.api.effort_report` of live-session folders (and simulated run folders)."""
    from llgui import api

    return api.effort_report(folders, simulated, interval=interval, tolerance=tolerance)
