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


def shown(qtbot, widget, width: int, height: int):
    """`widget`, kept by qtbot, at this size, shown and exposed."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shown_window(qtbot, width: int = 1500, height: int = 950):
    """A main window (no session file read) at this size, shown and exposed."""
    from llgui.gui.main_window import MainWindow

    return shown(qtbot, MainWindow(use_session=False), width, height)


def diar_bundle(folder, reference, hypothesis, doc: str, name: str | None = None):
    """A one-document diarization bundle (DER) of these RTTM files, written in `folder`."""
    bundle = folder / "bundle.toml"
    named = f'name = "{name}"\n' if name is not None else ""
    bundle.write_text(f'[bundle]\ntask = "diarization"\n{named}metrics = ["der"]\n\n'
                      f'[[documents]]\nid = "{doc}"\ntime = "1"\nreferences = ["{reference}"]\n'
                      f'hypothesis = "{hypothesis}"\n')
    return bundle


def window_for_module(paths, width: int = 1500, height: int = 950):
    """A main window of `paths` for a module's tests (no qtbot: its scope is one test), shown,
    every job done; the caller shuts its jobs down and closes it."""
    from llgui.gui.main_window import MainWindow
    from tests.gui.across_time.test_policy_item import wait_for

    window = MainWindow(use_session=False)
    window.resize(width, height)
    window.show()
    wait_for(lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    assert window.open_bundles([str(p) for p in paths])
    wait_for(lambda: not window.jobs.busy and (
        window.state.document() is None or window.workbench.ready()))
    return window


def settle(qtbot, window, timeout=60000) -> None:
    """Wait until no background job runs and the workbench shows its document."""
    qtbot.waitUntil(lambda: not window.jobs.busy and (
        window.state.document() is None or window.workbench.ready()), timeout=timeout)


@pytest.fixture
def demo_window(qtbot):
    window = shown_window(qtbot)
    assert window.open_bundles(demo_bundles())
    settle(qtbot, window)
    yield window
    window.jobs.shutdown(2000)


@pytest.fixture(scope="module")
def _module_demo_window(qapp):
    """The window of `demo_window`, built once per module (see `module_demo_window`)."""
    window = window_for_module(demo_bundles())
    yield window
    window.jobs.shutdown(2000)
    window.close()


@pytest.fixture
def module_demo_window(_module_demo_window, qtbot):
    """`demo_window`, shared by the tests of a module (building the window and opening the
    demo took ~0.7 s of CPU per test). Each test selects what it reads; what a test may change
    that a later one reads is put back after it: the metrics, the cost models, the policy (the
    undo stack emptied), a message box it opened."""
    from PySide6.QtWidgets import QApplication

    window = _module_demo_window
    settle(qtbot, window)
    state = window.state
    metrics, costs = dict(state.metrics), list(state.cost_models)
    policy = (state.policy, state.policy_name)
    yield window
    if window._error_box is not None:
        window._error_box.close()
        # the window is active again, as it was, so that its key shortcuts reach it
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10000)
    for task, metric in metrics.items():
        state.set_metric(task, metric)
    for index, model in enumerate(costs):
        if state.cost_models[index] != model:
            state._apply_cost_model(index, model)
    if (state.policy, state.policy_name) != policy:
        state._apply_policy(*policy)
    state.undo_stack.clear()
    settle(qtbot, window)
    assert (dict(state.metrics), list(state.cost_models), (state.policy, state.policy_name)) \
        == (metrics, costs, policy)


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
