"""Machine translation: BLEU, chrF, TER, WER as additive per-segment statistics (sacrebleu/jiwer adapter), the MT track, fast exact kernels, the text diff, the statistics cache."""
