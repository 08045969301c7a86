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
