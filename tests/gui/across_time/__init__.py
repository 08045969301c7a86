"""Tests of llgui.gui.across_time."""
