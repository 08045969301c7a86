"""Tests of llgui.gui.systems."""
