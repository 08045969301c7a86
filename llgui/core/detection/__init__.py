"""Detection: DET, EER, DCF, LLR checks, the lecture's views (ROC, P/R/F, Q-Q), the detection track."""
