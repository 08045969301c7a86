"""The functions the window's workers run: Qt-free, plain data in and out, `progress` and `should_stop` (llgui.core.jobs); tested without a window."""
