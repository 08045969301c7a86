"""Where the bundled demo lives: `llgui.utils.demo` (Qt-free, shared with the command line and
the Python API), re-exported for the window's start-up and File › Open the demo."""
from __future__ import annotations

from llgui.utils.demo import REPO, demo_bundles, demo_campaign, demo_dir  # noqa: F401
