"""llgui: an evaluator for lifelong-learning systems that learn from a human expert.

As a library (`llgui.api`, reachable from here without importing it up front)::

    import llgui
    bundle = llgui.load(llgui.demo_dir() / "mt" / "bundle.toml")   # or llgui.load_files(...)
    llgui.score(bundle)        # a pandas DataFrame; signatures and settings in .attrs

Layers: `llgui.core` (computation, no Qt), `llgui.io` (file formats, no Qt), `llgui.api` and
`llgui.cli` (the library and the headless commands over it) and `llgui.gui` (PySide6 +
pyqtgraph). Only `llgui.gui` imports Qt; `import llgui` imports nothing but this file.
"""
from llgui._version import __version__  # noqa: F401

# `score_campaign`, not `campaign`: llgui.campaign is the subpackage that runs campaigns, and
# importing it sets that attribute of this package (a function of the same name would vanish).
_API = ("load", "load_files", "with_settings", "score", "replay", "lifelong", "det", "compare",
        "score_campaign", "regressions", "demo_dir", "LoadError", "UsageError")


def __getattr__(name: str):
    """`llgui.score` and the rest of the API, imported on first use (PEP 562)."""
    if name in _API:
        from llgui import api

        return getattr(api, name)
    raise AttributeError(f"module 'llgui' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
