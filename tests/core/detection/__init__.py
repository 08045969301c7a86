"""Tests of llgui.core.detection."""
