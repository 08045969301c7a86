"""Tests of llgui.core.significance."""
