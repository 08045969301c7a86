"""The window's regressions job (no Qt): `llgui regressions CAMPAIGN --format json` in a child
process (the cells come from the cache the campaign job just filled), so the bootstrap and the
unit scores never take the interpreter from the event loop."""
from __future__ import annotations


def regressions_job(path: str, progress=None, should_stop=None) -> dict:
    """Worker job: the `regressions` report of the campaign at `path` (flips with both
    versions' outputs, relapses, replicates)."""
    import json
    import os
    import subprocess
    import sys

    from llgui.campaign.child import wait_for_child

    command = [sys.executable, "-m", "llgui", "regressions", str(path), "--format", "json"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=os.name != "nt")
    out: list[bytes] = []
    err: list[bytes] = []
    wait_for_child(child, (lambda: out.append(child.stdout.read()),
                           lambda: err.append(child.stderr.read())), should_stop)
    if child.returncode != 0 or not out or not out[0].strip():
        tail = (err[0] if err else b"").decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RuntimeError(f"llgui regressions failed (exit {child.returncode}): "
                           + " | ".join(tail))
    return json.loads(out[0].decode("utf-8"))
