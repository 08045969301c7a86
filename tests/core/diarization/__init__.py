"""Tests of llgui.core.diarization."""
