"""The Across time tab: the policy editor, the heatmap of s(M_i, t_j), S_P and the continual-learning summaries."""
