"""Where the bundled demo lives (Qt-free; the window, the command line and the Python API read
it from here): one bundle per task and a campaign, in resources/demo/ beside the package, or
$LLGUI_DEMO_DIR when set."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def demo_dir() -> Path:
    """The demo folder: $LLGUI_DEMO_DIR, else resources/demo/ of the source tree."""
    return Path(os.environ.get("LLGUI_DEMO_DIR", REPO / "resources" / "demo"))


def demo_bundles() -> list[Path]:
    """The bundled demo: one bundle per task (those present)."""
    root = demo_dir()
    return [p for p in (root / "mt" / "bundle.toml", root / "diarization" / "bundle.toml",
                        root / "detection" / "bundle.toml",
                        root / "detection-lifelong" / "bundle.toml") if p.exists()]


def demo_campaign() -> Path | None:
    """The demo campaign (three synthetic systems), or None when it is absent."""
    path = demo_dir() / "campaign" / "campaign.toml"
    return path if path.exists() else None
