"""Tests of llgui.core.classification."""
