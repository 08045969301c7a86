"""The Workbench tab: a document's corrections step by step, its scores, the MT and diarization views."""
