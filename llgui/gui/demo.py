"""Where the bundled demo lives: one bundle per task, a lifelong detection bundle, a campaign and a meeting with audio, in resources/demo/
($LLGUI_DEMO_DIR overrides). Plain paths, no Qt: the start-up (`llgui.gui.app`) and the
window's File › Open the demo (`llgui.gui.main_window`) both read them from here."""
from __future__ import annotations

from pathlib import Path

from llgui.resources import demo_dir


def _root() -> Path:
    return demo_dir()


def demo_bundles() -> list[Path]:
    """The bundled demo's bundles (one per task), in resources/demo/ ($LLGUI_DEMO_DIR overrides)."""
    root = _root()
    return [p for p in (root / "mt" / "bundle.toml", root / "diarization" / "bundle.toml",
                        root / "detection" / "bundle.toml",
                        root / "detection-lifelong" / "bundle.toml") if p.exists()]


def demo_campaign() -> Path | None:
    """The demo campaign (three synthetic systems), or None when it is absent."""
    path = _root() / "campaign" / "campaign.toml"
    return path if path.exists() else None
