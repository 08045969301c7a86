"""Reference adaptive systems that speak protocol v1 (DESIGN.md section 8).

Each runs as `python -m llgui.systems.NAME` and reads llgui's messages on stdin:
`static` (the floor: never asks, never adapts), `mt_memory` (learns word and phrase
substitutions from corrections), `diar_clusters` (merges clusters it is told are the same
speaker, fixes boundaries and segments), `diar_audio` (hears the document's recording:
speech activity, speaker embeddings, clustering; every answer re-labels the whole meeting),
`mt_complete` (interactive-predictive MT, protocol 1.2: completes the expert's prefix from
its sentence and what `mt_memory` learned).
Core-only (no Qt); none ever reads a reference: all they know is the bundle's hypothesis (or
its recording) and the answers the simulated human gives.
"""
