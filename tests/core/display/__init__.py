"""Tests of llgui.core.display."""
