"""Across time: the user policy (equations 2 and 3), scores over model versions x test times, continual-learning summaries."""
