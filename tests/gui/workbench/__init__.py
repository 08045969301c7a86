"""Tests of llgui.gui.workbench."""
