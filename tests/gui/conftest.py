"""GUI fixtures: a main window with the demo open, an isolated session file."""
from __future__ import annotations

import pytest

from llgui.gui.demo import demo_bundles


@pytest.fixture(autouse=True)
def isolated_session(tmp_path, monkeypatch):
    """No test reads or writes the user's real session file."""
    path = tmp_path / "session.json"
    monkeypatch.setenv("LLGUI_SESSION_FILE", str(path))
    return path


def settle(qtbot, window, timeout=60000) -> None:
    """Wait until no background job runs and the workbench shows its document."""
    qtbot.waitUntil(lambda: not window.jobs.busy and (
        window.state.document() is None or window.workbench.ready()), timeout=timeout)


@pytest.fixture
def demo_window(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.resize(1500, 950)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_bundles(demo_bundles())
    settle(qtbot, window)
    yield window
    window.jobs.shutdown(2000)


@pytest.fixture(scope="module")
def _module_demo_window(qapp):
    """The window of `demo_window`, built once per module (see `read_only_demo_window`)."""
    from llgui.gui.main_window import MainWindow
    from tests.gui.across_time.test_policy_item import wait_for

    window = MainWindow(use_session=False)
    window.resize(1500, 950)
    window.show()
    wait_for(lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    assert window.open_bundles(demo_bundles())
    wait_for(lambda: not window.jobs.busy and (
        window.state.document() is None or window.workbench.ready()))
    yield window
    window.jobs.shutdown(2000)
    window.close()


@pytest.fixture
def read_only_demo_window(_module_demo_window, qtbot):
    """`demo_window`, shared by the tests of a module that only move through it (select a
    document and step, press keys, click, export) and change nothing a later test reads: no
    metric, cost model, policy or bundle is changed. Building the window and opening the demo
    took ~0.7 s of CPU per test. Each test selects what it reads; a message box it opened is
    closed after it."""
    window = _module_demo_window
    settle(qtbot, window)
    yield window
    if window._error_box is not None:
        window._error_box.close()
    settle(qtbot, window)


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    """One demo window shared by a module's tests (the across-time and detection tabs),
    with every job done; its own session file."""
    from tests.gui.across_time.test_policy_item import open_demo_window

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LLGUI_SESSION_FILE",
                     str(tmp_path_factory.mktemp("session") / "session.json"))
        w = open_demo_window(tmp_path_factory.mktemp("work"))
        yield w
        w.jobs.shutdown(2000)
        w.close()
