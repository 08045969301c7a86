"""One resampling engine (DESIGN 1.7): bootstrap, approximate randomisation and intervals over cached additive statistics, for MT vectors, penalised scores, detection and across time."""
