"""Fixtures of the workbench's timeline tests."""
from __future__ import annotations

import pytest

from tests.conftest import REPO

DIAR_BUNDLE = REPO / "resources" / "demo" / "diarization" / "bundle.toml"


@pytest.fixture(scope="module")
def demo_walk():
    """The walkthrough (DER) of the demo's first show with at least four steps (a module may
    define its own, with another condition)."""
    from llgui.core.walkthrough import walk
    from llgui.io.bundle import load_bundle

    bundle = load_bundle(DIAR_BUNDLE)
    for document in bundle.documents:
        result = walk(document, bundle.steps_of(document.id), "der", bundle.settings,
                      bundle.cost)
        if len(result.steps) >= 4:
            return result
    pytest.fail("no demo show with 4 steps")
