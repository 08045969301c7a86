"""A child process's pipes closed when its readers are done with them."""
from __future__ import annotations

import subprocess


def close_pipes(child: subprocess.Popen, readers=()) -> None:
    """Close the child's pipes once the threads reading them are done (left to the garbage
    collector, each one was an "unclosed file" ResourceWarning at some later moment); a pipe
    whose reader is still blocked in it is left open, as closing a buffered stream under a
    read blocks the closer."""
    for thread in readers:   # (a child just ended: its readers see EOF within ms; a pipe a
        thread.join(timeout=0.25)   # grandchild still holds is not waited for long)
    if any(thread.is_alive() for thread in readers):
        return
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            try:
                stream.close()
            except (OSError, ValueError):
                pass
