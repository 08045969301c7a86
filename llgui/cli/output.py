"""Writing a command's report to standard output, whole or not at all said to be written.

A report cut by a full disk (`> /dev/full`), a file-size limit (`ulimit -f`) or a closed
pipe used to be exit 0 over a truncated file, or a traceback from `sys.stdout.write`
(issue 38.3): Python's buffered writer returns a short count for a large write that the
file-size limit cut, and the text layer above it drops that count, so no exception is ever
raised. `write_whole` therefore writes the encoded report to file descriptor 1 itself, in a
loop until every byte is written (the write after a short one raises: EFBIG, ENOSPC); when
one fails it says why on stderr and returns 2, and points file descriptor 1 at /dev/null so that Python's own flush at exit does
not fail a second time (exit 120, "Exception ignored"). A reader that stopped reading (a
closed pipe: `llgui score B | head -1`) is not an error of the report: exit 0, as before.
"""
from __future__ import annotations

import os
import sys


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):   # pragma: no cover - no fd 1
        pass


def write_whole(text: str, command: str) -> int:
    """Write `text` to stdout: 0 when it was written whole, 2 (after a line on stderr) when
    not."""
    try:
        stream = sys.stdout
        try:
            fd = stream.fileno()
        except (OSError, ValueError, AttributeError):   # not a file (a test's capture)
            fd = None
        if fd is None:
            stream.write(text)
            stream.flush()
        else:
            stream.flush()   # what was printed before, in order
            data = memoryview(text.encode(getattr(stream, "encoding", None) or "utf-8",
                                          getattr(stream, "errors", None) or "strict"))
            while data:
                data = data[os.write(fd, data):]
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as error:
        _silence_stdout()
        reason = error.strerror or type(error).__name__
        print(f"llgui {command}: cannot write the report to standard output ({reason}); "
              f"what was written is incomplete", file=sys.stderr)
        return 2
    return 0
