"""The files llgui ships beside its code: the synthetic demo (one bundle per task and a
campaign, `demo/`) and the fallback fonts for scripts a machine may have no font for
(`fonts/`). They are package data, so a wheel or `pip install` carries them; a clone reads them
in place. `$LLGUI_DEMO_DIR` and `$LLGUI_FONT_DIR` point elsewhere. Plain paths, no Qt."""
from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent


def demo_dir() -> Path:
    """The demo's folder ($LLGUI_DEMO_DIR overrides)."""
    return Path(os.environ.get("LLGUI_DEMO_DIR") or HERE / "demo")


def font_dir() -> Path:
    """The fallback fonts' folder ($LLGUI_FONT_DIR overrides)."""
    return Path(os.environ.get("LLGUI_FONT_DIR") or HERE / "fonts")
