"""Tests of llgui.gui.live and llgui.sim.live in the window."""
