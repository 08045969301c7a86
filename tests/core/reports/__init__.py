"""Tests of llgui.core.reports."""
