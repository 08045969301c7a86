"""Which compiled formula (`_penalised_kernel`) scores a metric, and with what settings.

Kept apart from the kernel so that a resampling that runs the numpy path (fewer than
`penalised.KERNEL_FROM_STEPS` steps) never imports numba: its import alone takes 0.3 s of
Python that holds the interpreter, the window's whole budget for a warm document.
"""
from __future__ import annotations

import numpy as np

KIND = {"bleu": 0, "chrf": 1, "ter": 2, "wer": 3, "der": 4, "jer": 5}
_SMOOTH = {"none": 0, "floor": 1, "add-k": 2, "exp": 3}


def kernel_params(metric) -> tuple[int, np.ndarray] | None:
    """(kind, float64 parameters) of `metric`, or None."""
    name = getattr(metric, "name", "")
    library = getattr(metric, "_library", None)
    if name == "bleu" and library is not None:
        value = library.smooth_value
        if value is None:
            value = type(library).SMOOTH_DEFAULTS[library.smooth_method]
        return KIND[name], np.array([library.max_ngram_order, _SMOOTH[library.smooth_method],
                                     value, float(bool(library.effective_order))])
    if name == "chrf" and library is not None:
        return KIND[name], np.array([library.order, library.beta,
                                     float(bool(library.eps_smoothing))])
    if name in ("ter", "wer", "der", "jer") and (name != "ter" or library is not None):
        return KIND[name], np.zeros(1)
    return None
