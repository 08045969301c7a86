"""Tests of llgui.core.mt."""
