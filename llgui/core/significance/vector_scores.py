"""Scores of many statistics vectors at once: the resampling engine's inner loop.

`vector_score(metric)` returns a function mapping summed additive statistics of shape
(..., n_stats) to scores of shape (...), the metric's own formula written with numpy array
operations in the same order as the library's scalar code (sacrebleu's `compute_bleu`,
`CHRF._compute_f_score`, `TER._compute_score_from_stats`; jiwer's WER; pyannote's DER and JER).
`tests/core/significance/test_resample.py` holds each equal to `metric.score` row by row.

Arithmetic follows the input's dtype as the library's scalar code does under numpy 2 (NEP 50):
sacrebleu's significance tests cast statistics to float32, and its BLEU precisions, chrF and
TER then come out in float32 arithmetic. Given float32 statistics these functions round at the
same places, so resampled scores equal sacrebleu's bit for bit (logs and exponentials aside,
which are float64 in both); given float64 statistics they are float64 throughout.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

VectorScore = Callable[[np.ndarray], np.ndarray]
"""(..., n_stats) summed statistics -> (...) scores, percentages as `metric.score` gives."""


def vector_score(metric) -> VectorScore:
    """The vectorised score of `metric` (an llgui metric object: MT, DER, JER, ...).

    Metrics without a vectorised formula fall back to `metric.score` row by row (correct,
    slower)."""
    name = getattr(metric, "name", "")
    library = getattr(metric, "_library", None)
    if name == "bleu" and library is not None:
        return lambda stats: bleu_scores(stats, library)
    if name == "chrf" and library is not None:
        return lambda stats: chrf_scores(stats, library)
    if name == "ter" and library is not None:
        return ter_scores
    if name == "wer":
        return wer_scores
    if name == "der":
        return der_scores
    if name == "jer":
        return jer_scores
    return lambda stats: _row_by_row(metric, stats)


def _row_by_row(metric, stats: np.ndarray) -> np.ndarray:
    stats = np.asarray(stats)
    flat = stats.reshape(-1, stats.shape[-1])
    out = np.array([metric.score(row) for row in flat], dtype=np.float64)
    return out.reshape(stats.shape[:-1])


def bleu_scores(stats: np.ndarray, library) -> np.ndarray:
    """sacrebleu's `BLEU.compute_bleu` on every row: [sys_len, ref_len, correct_1..N,
    total_1..N]. `library` is the sacrebleu BLEU object (its smoothing and orders)."""
    stats = np.asarray(stats)
    order = int(library.max_ngram_order)
    method = library.smooth_method
    value = library.smooth_value
    if value is None:
        value = type(library).SMOOTH_DEFAULTS[method]
    effective = bool(library.effective_order)
    sys_len = np.trunc(stats[..., 0].astype(np.float64))  # int(stats[0]) in the library
    ref_len = np.trunc(stats[..., 1].astype(np.float64))
    correct = [stats[..., 2 + n] for n in range(order)]
    total = [stats[..., 2 + order + n] for n in range(order)]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        short = sys_len < ref_len
        bp = np.where(short, np.where(sys_len > 0, np.exp(1 - ref_len / np.where(
            sys_len > 0, sys_len, 1.0)), 0.0), 1.0)
        any_correct = np.zeros(stats.shape[:-1], dtype=bool)
        for c in correct:  # the early stop looks at the counts before add-k
            any_correct |= c != 0
        precisions = [np.zeros(stats.shape[:-1], dtype=np.float64) for _ in range(order)]
        smooth = np.ones(stats.shape[:-1], dtype=stats.dtype)
        stopped = np.zeros(stats.shape[:-1], dtype=bool)
        eff_order = np.full(stats.shape[:-1], order, dtype=np.int64)
        for n in range(1, order + 1):
            c, t = correct[n - 1], total[n - 1]
            if method == "add-k" and n > 1:
                c = c + value
                t = t + value
            stopped = stopped | (t == 0)
            live = ~stopped
            if effective:
                eff_order = np.where(live, n, eff_order)
            safe_t = np.where(t == 0, 1, t).astype(stats.dtype)
            zero = c == 0
            if method == "exp":
                smooth = np.where(live & zero, smooth * 2, smooth)
                p_zero = 100. / (smooth * safe_t)
            elif method == "floor":
                p_zero = 100. * value / safe_t
            else:
                p_zero = np.zeros_like(safe_t)
            p = np.where(zero, p_zero, 100. * c / safe_t)
            precisions[n - 1] = np.where(live, p.astype(np.float64), 0.0)
        # my_log: log(p) if p > 0 else -9999999999, summed left to right over eff_order
        total_log = np.zeros(stats.shape[:-1], dtype=np.float64)
        for n in range(order):
            p = precisions[n]
            term = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), -9999999999.0)
            total_log = np.where(n < eff_order, total_log + term, total_log)
        score = bp * np.exp(total_log / eff_order)
    return np.where(any_correct, score, 0.0)


def chrf_scores(stats: np.ndarray, library) -> np.ndarray:
    """sacrebleu's `CHRF._compute_f_score` on every row: [hyp, ref, match] per order."""
    stats = np.asarray(stats)
    dtype = stats.dtype if stats.dtype in (np.float32, np.float64) else np.float64
    stats = stats.astype(dtype, copy=False)
    eps = 1e-16
    factor = library.beta ** 2
    shape = stats.shape[:-1]
    score = np.zeros(shape, dtype=dtype)
    avg_prec = np.zeros(shape, dtype=dtype)
    avg_rec = np.zeros(shape, dtype=dtype)
    effective = np.zeros(shape, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(int(library.order)):
            n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1), eps)
            rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1), eps)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec
                                     / np.where(denom > 0, denom, 1), eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + prec, avg_prec)
            avg_rec = np.where(both, avg_rec + rec, avg_rec)
            effective = effective + both
        if library.eps_smoothing:
            return 100 * score / int(library.order)
        some = effective > 0
        divisor = np.where(some, effective, 1).astype(dtype)
        avg_prec = np.where(some, avg_prec / divisor, 0)
        avg_rec = np.where(some, avg_rec / divisor, 0)
        both = avg_prec + avg_rec
        value = (1 + factor) * avg_prec * avg_rec
        value = value / np.where(both != 0, (factor * avg_prec) + avg_rec, 1)
        return np.where(both != 0, 100 * value, 0).astype(dtype, copy=False)


def ter_scores(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's TER from [edits, reference length] rows (1.0 for edits on an empty
    reference, 0.0 when both are empty), in percent."""
    stats = np.asarray(stats)
    edits, ref = stats[..., 0], stats[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = edits / np.where(ref > 0, ref, 1)
    value = np.where(ref > 0, ratio, np.where(edits > 0, 1.0, 0.0).astype(ratio.dtype))
    return 100 * value


def wer_scores(stats: np.ndarray) -> np.ndarray:
    """WER as `WERMetric.score`: 100 * edits / reference words (100 * edits with none)."""
    stats = np.asarray(stats, dtype=np.float64)
    edits, words = stats[..., 0], stats[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(words == 0, 100.0 * edits, 100.0 * (edits / np.where(words == 0, 1, words)))


def der_scores(stats: np.ndarray) -> np.ndarray:
    """DER from [miss, false_alarm, confusion, correct, total] seconds, pyannote's 0/0 = 0 and
    x/0 = 100 (`der_from_seconds`)."""
    stats = np.asarray(stats, dtype=np.float64)
    error = stats[..., 2] + stats[..., 1] + stats[..., 0]  # pyannote's order of summation
    total = stats[..., 4]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 100.0 * (error / np.where(total == 0, 1, total))
    return np.where(total == 0, np.where(error == 0, 0.0, 100.0), value)


def jer_scores(stats: np.ndarray) -> np.ndarray:
    """JER from [summed per-speaker errors, speakers]; 100 with no reference speaker."""
    stats = np.asarray(stats, dtype=np.float64)
    count = stats[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 100.0 * (stats[..., 0] / np.where(count > 0, count, 1))
    return np.where(count > 0, value, 100.0)
