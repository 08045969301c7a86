"""Tests of llgui.core.across_time."""
