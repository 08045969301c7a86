"""Tests of llgui.utils."""
