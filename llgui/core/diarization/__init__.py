"""Speaker diarization: DER and JER with pyannote.metrics semantics, incremental, held to pyannote itself; per-speaker breakdown; corrections; the diarization track."""
