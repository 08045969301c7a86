"""Compiled kernel of the pooled-S_pen resampling (numba): the plain loop, run fast.

For every resample it walks the documents in processing order exactly as
`llgui.core.penalty.pooled_scores` does (the context starts with every drawn copy at its first
hypothesis; each copy in turn leaves it, its steps are scored, and it comes back at its final
hypothesis), scoring with scalar versions of the metrics' formulas (sacrebleu's BLEU, chrF,
TER; WER; pyannote's DER, JER) in float64. The additions happen in the loop's order, so the
result equals the loop's to the last bits of the scores' logarithms and exponentials.

`kernel_params.kernel_params(metric)` says which formula and its settings, or None when the
metric has no compiled formula (the numpy path is used then). Compiled once and cached on disk.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from llgui.core.significance.kernel_params import KIND, kernel_params  # noqa: F401


@njit(cache=True, nogil=True)
def bleu(s, p):
    order = int(p[0])
    method = int(p[1])
    value = p[2]
    effective = p[3] != 0.0
    sys_len = math.floor(s[0])
    ref_len = math.floor(s[1])
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    anyc = False
    for n in range(order):
        if s[2 + n] != 0:
            anyc = True
    if not anyc:
        return 0.0
    smooth = 1.0
    eff = order
    logs = 0.0
    # the geometric mean by one logarithm of the product while every precision is > 0
    # (the same to ~1e-15 relative as the library's sum of logarithms; held to 1e-9)
    product = 1.0
    for n in range(1, order + 1):
        c = s[1 + n]
        t = s[1 + order + n]
        if method == 2 and n > 1:
            c += value
            t += value
        if t == 0:
            # later precisions stay 0: log -9999999999 each, unless effective order
            if not effective:
                for _ in range(n, order + 1):
                    logs += -9999999999.0
            break
        if effective:
            eff = n
        if c == 0:
            if method == 3:
                smooth *= 2
                prec = 100. / (smooth * t)
            elif method == 1:
                prec = 100. * value / t
            else:
                prec = 0.0
        else:
            prec = 100. * c / t
        if prec > 0:
            product *= prec
        else:
            logs += -9999999999.0
    return bp * math.exp((logs + math.log(product)) / eff)

@njit(cache=True, nogil=True)
def chrf(s, p):
    order = int(p[0])
    factor = p[1] ** 2
    eps = 1e-16
    score = 0.0
    effective = 0
    avg_prec = 0.0
    avg_rec = 0.0
    for i in range(order):
        n_hyp, n_ref, n_match = s[3 * i], s[3 * i + 1], s[3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    if p[2] != 0.0:
        return 100 * score / order
    if effective == 0:
        avg_prec = 0.0
        avg_rec = 0.0
    else:
        avg_prec /= effective
        avg_rec /= effective
    if avg_prec + avg_rec:
        value = (1 + factor) * avg_prec * avg_rec
        value /= (factor * avg_prec) + avg_rec
        return 100 * value
    return 0.0

@njit(cache=True, nogil=True)
def score(kind, s, p):
    if kind == 0:
        return bleu(s, p)
    if kind == 1:
        return chrf(s, p)
    if kind == 2:  # TER
        if s[1] > 0:
            return 100 * (s[0] / s[1])
        return 100.0 if s[0] > 0 else 0.0
    if kind == 3:  # WER
        if s[1] == 0:
            return 100.0 * s[0]
        return 100.0 * s[0] / s[1]
    if kind == 4:  # DER
        error = s[2] + s[1] + s[0]
        if s[4] == 0.0:
            return 0.0 if error == 0 else 100.0
        return 100.0 * (error / s[4])
    if s[1] > 0.0:  # JER
        return 100.0 * (s[0] / s[1])
    return 100.0

@njit(cache=True, nogil=True)
def penalties(counts, base, final, first_step, n_steps, cor, imp, kind, params):
    n_rows, n_docs = counts.shape
    k = base.shape[1]
    out = np.zeros(n_rows)
    ctx = np.empty(k)
    tmp = np.empty(k)
    for b in range(n_rows):
        ctx[:] = 0.0
        for d in range(n_docs):
            c = counts[b, d]
            for j in range(k):
                ctx[j] += c * base[d, j]
        pen = 0.0
        for d in range(n_docs):
            c = counts[b, d]
            for _copy in range(c):
                for j in range(k):
                    ctx[j] -= base[d, j]
                for s in range(first_step[d], first_step[d] + n_steps[d]):
                    for j in range(k):
                        tmp[j] = ctx[j] + imp[s, j]
                    a = score(kind, tmp, params)
                    for j in range(k):
                        tmp[j] = ctx[j] + cor[s, j]
                    pen += a - score(kind, tmp, params)
                for j in range(k):
                    ctx[j] += final[d, j]
        out[b] = pen
    return out


def run_penalties(counts: np.ndarray, base: np.ndarray, final: np.ndarray,
                  first_step: np.ndarray, n_steps: np.ndarray, cor: np.ndarray,
                  imp: np.ndarray, kind: int, params: np.ndarray) -> np.ndarray:
    """Summed step penalties (B,) of each resample (counts (B, n_docs))."""
    as_f = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    as_i = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    return penalties(as_i(counts), as_f(base), as_f(final), as_i(first_step), as_i(n_steps),
                     as_f(cor), as_f(imp), int(kind), as_f(params))


@functools.cache
def warm() -> None:
    """Load the compiled kernel (its on-disk cache: ~0.6 s of Python that holds the
    interpreter) on one tiny input, once per process. The window's walkthrough job does
    this before its document is shown, so that the interval job that follows does not pay
    it while the user steps (gate 9)."""
    # DER's five statistics (the kernel reads s[0] to s[4]: a narrower row was read past
    # its end, which compiled code does silently and NUMBA_DISABLE_JIT=1 refuses)
    one = np.ones((1, 5))
    run_penalties(np.ones((1, 1), dtype=np.int64), one, one, np.zeros(1, dtype=np.int64),
                  np.ones(1, dtype=np.int64), one, one, KIND["der"], np.zeros(1))
