"""Fixtures and helpers of the workbench's tests."""
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


def event_count(widget, kind):
    """An object counting the events of `kind` (QEvent.Type) `widget` receives: `.count`."""
    from PySide6.QtCore import QObject

    class Count(QObject):
        def __init__(self):
            super().__init__()
            self.count = 0
            widget.installEventFilter(self)

        def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
            if event.type() == kind:
                self.count += 1
            return False

    return Count()


def shown_timeline(qtbot, width: int, height: int, split: bool = True):
    """A diarization timeline (`DiarView`; `split=False`: a panel's, never split) built,
    sized, shown and exposed."""
    from llgui.gui.workbench.diar_view import DiarView
    from tests.gui.conftest import shown

    return shown(qtbot, DiarView(split=split), width, height)


def step_shown(qtbot, view, walk, step: int, errors=None, live: bool = True) -> None:
    """`view.show_step(walk, step, errors)`, then wait until the step is on screen whole: the
    step that opens a long show's split view draws its panels on a later turn of the event
    loop (`diar_split.fill_split`), and says the step `shown` then. `live`: and its panels
    hold the step (a step shown by their pictures gives it to them on a later turn:
    `diar_photo`), for a test that reads them."""
    view.show_step(walk, step, errors)
    qtbot.waitUntil(lambda: view.shown == (walk.document.id, step), timeout=10000)
    if live:
        view._panels_live()
