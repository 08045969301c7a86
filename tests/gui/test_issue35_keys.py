"""Issue 35's minors in the main window: a documented key per tab (Ctrl+1..4), whatever has
the focus."""
from __future__ import annotations

from PySide6.QtCore import Qt


def test_ctrl_digit_switches_tabs_from_anywhere(qtbot):
    from llgui.gui.main_window import MainWindow

    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitActive(window)      # shortcuts go to the active window
    try:
        window.documents_view.setFocus()          # focus outside the tabs
        for key, widget in ((Qt.Key.Key_4, window.systems_view), (Qt.Key.Key_2, window.time_tab),
                            (Qt.Key.Key_3, window.detection_tab),
                            (Qt.Key.Key_1, window.workbench)):
            # through the window system, as a key press arrives (a widget-level key event
            # never reaches the shortcut map)
            qtbot.keyClick(window.windowHandle(), key, Qt.KeyboardModifier.ControlModifier)
            assert window.tabs.currentWidget() is widget
    finally:
        window.jobs.shutdown(2000)
        window.close()


def test_a_bundle_that_fails_to_open_leaves_its_reason_in_the_window(qtbot, tmp_path):
    from llgui.gui.main_window import MainWindow

    bad = tmp_path / "bundle.toml"
    bad.write_text('[bundle]\ntask = "mt"\nname = "x"\n\n[[documents]]\nid = "d"\ntime = "1"\n'
                   'references = ["missing.txt"]\nhypothesis = "missing.txt"\n')
    window = MainWindow(use_session=False)
    qtbot.addWidget(window)
    try:
        assert not window.open_bundles([str(bad)])
        qtbot.waitUntil(lambda: not window.jobs.busy, timeout=30000)
        window.statusBar().clearMessage()           # the timed message is gone
        text = window.workbench.empty.text()
        assert "Could not open bundle.toml" in text and "missing.txt" in text
        assert f"{bad}:" in text and "Open a bundle" in text
    finally:
        window.jobs.shutdown(2000)
        window.close()
