"""Tests of llgui.gui.detection."""
