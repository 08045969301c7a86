"""PySide6's check of every imported module, made a file read instead of a source parse.

Once PySide6 is imported, its `__feature__` machinery (shibokensupport.feature,
PYSIDE-2029) looks at each module imported after it, and at every module already imported,
for the text "PySide6" in its source, with `inspect.getsource`: linecache reads each file
line by line and tokenize decodes it. Over the ~430 modules of the window's start that was
~110 ms of the ~1.2 s to its first paint here, and every later import paid it too (sacrebleu
or pyannote on a worker, holding the interpreter). `quicken()` gives it the same answer from
the module's file read whole: "PySide6" is ASCII, so it is in the decoded source exactly when
its bytes are in the file (any source encoding Python accepts keeps ASCII as is, but
UTF-16, which a source file cannot be). Modules without a `.py` file (built-in, extension,
zipped) go to PySide6's own check. Where PySide6 has no such check (another version), nothing
changes.
"""
from __future__ import annotations

import sys

MAX_BYTES = 8 << 20
"""A module file larger than this goes to PySide6's own check (no such module is expected)."""


def quicken() -> bool:
    """Replace PySide6's module check by the file read; True when it was replaced (or had
    been), False when this PySide6 has no such check."""
    import PySide6.QtCore  # noqa: F401  (sets the feature machinery up)

    feature = sys.modules.get("shibokensupport.feature") or sys.modules.get(
        "PySide6.support.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None:
        return False
    if getattr(original, "quickened", False):
        return True

    def uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as source:
                text = source.read(MAX_BYTES + 1)
        except OSError:
            return original(module)
        if len(text) > MAX_BYTES:
            return original(module)
        return b"PySide6" in text

    uses_pyside.quickened = True
    uses_pyside.original = original   # (PySide6's own, for what has no .py file)
    feature._mod_uses_pyside = uses_pyside
    return True
