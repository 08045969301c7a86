"""Compiled kernel of the detection resampling (numba): a resample's DET curve, ROCCH EER,
minDCF and DET-band row, one loop per resample.

`llgui.core.significance.detection` builds one `DetCurve` per resample and hands it to the
core's `det.eer` / `det.min_dcf` / `miss_at`: about 0.1 ms of numpy calls a resample, 1,000
resamples and a jackknife of up to 1,000 per system in the Detection tab. This kernel does the
same arithmetic in the same order on the counts (the curve's points from cumulative counts of
the distinct scores a resample drew, the hull's vertices by exact integer cross products, the
BOSARIS crossing of each hull segment's line with the diagonal, the first minimum of the
cost), so its values equal the numpy path's to the last bit; tests/core/significance/
test_det_kernel.py holds them equal on tied, skewed and one-class resamples.

Only the ROCCH EER (the window's and the CLI's default) has a compiled form; the threshold
method goes through the numpy path. Compiled once and cached on disk.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _rows(group, is_target, n_groups, counts, grid, w_miss, w_fa, normaliser,
          band, eer, dcf):
    n_rows, n = counts.shape
    tar = np.zeros(n_groups, np.int64)
    non = np.zeros(n_groups, np.int64)
    n_miss = np.zeros(n_groups + 1, np.int64)
    n_fa = np.zeros(n_groups + 1, np.int64)
    p_miss = np.zeros(n_groups + 1)
    p_fa = np.zeros(n_groups + 1)
    hx = np.zeros(n_groups + 1, np.int64)
    hy = np.zeros(n_groups + 1, np.int64)
    chain = np.zeros(n_groups + 1, np.int64)
    for r in range(n_rows):
        tar[:] = 0
        non[:] = 0
        for i in range(n):
            c = np.int64(counts[r, i])
            if c != 0:
                if is_target[i]:
                    tar[group[i]] += c
                else:
                    non[group[i]] += c
        # the curve: one point below every distinct score drawn, and one above them all
        m = 0
        n_t = 0
        n_n = 0
        for g in range(n_groups):
            if tar[g] + non[g] > 0:
                tar[m] = tar[g]
                non[m] = non[g]
                n_t += tar[g]
                n_n += non[g]
                m += 1
        if n_t == 0 or n_n == 0:
            eer[r] = np.nan
            dcf[r] = np.nan
            band[r, :] = np.nan
            continue
        points = m + 1
        n_miss[0] = 0
        n_fa[0] = n_n
        for k in range(m):
            n_miss[k + 1] = n_miss[k] + tar[k]
            n_fa[k + 1] = n_fa[k] - non[k]
        for k in range(points):
            p_miss[k] = n_miss[k] / n_t
            p_fa[k] = n_fa[k] / n_n
        # DET band: the miss rate of the best point with p_fa <= x (det.miss_at)
        for j in range(grid.size):
            x = grid[j]
            lo = 0
            hi = points
            while lo < hi:             # the number of points with p_fa > x
                mid = (lo + hi) // 2
                if p_fa[mid] > x:
                    lo = mid + 1
                else:
                    hi = mid
            band[r, j] = p_miss[min(lo, points - 1)]
        # minDCF: the first point of least cost (det._min_dcf)
        best = 0
        best_cost = w_miss * p_miss[0] + w_fa * p_fa[0]
        for k in range(1, points):
            cost = w_miss * p_miss[k] + w_fa * p_fa[k]
            if cost < best_cost:
                best_cost = cost
                best = k
        dcf[r] = best_cost / normaliser
        # ROCCH (det._hull_indices): backwards, false alarms rise and misses fall; repeated
        # points are one; the lower chain of strict left turns (Andrew's monotone chain)
        kept = 0
        for k in range(points - 1, -1, -1):
            if kept > 0 and hx[kept - 1] == n_fa[k] and hy[kept - 1] == n_miss[k]:
                continue
            hx[kept] = n_fa[k]
            hy[kept] = n_miss[k]
            kept += 1
        size = 0
        for k in range(kept):
            while size >= 2:
                o = chain[size - 2]
                a = chain[size - 1]
                if (hx[a] - hx[o]) * (hy[k] - hy[o]) - (hy[a] - hy[o]) * (hx[k] - hx[o]) > 0:
                    break
                size -= 1
            chain[size] = k
            size += 1
        # BOSARIS rocch2eer on the vertices in curve order (det._rocch_eer)
        value = 0.0
        for v in range(size - 1, 0, -1):
            x1 = hx[chain[v]] / n_n
            y1 = hy[chain[v]] / n_t
            x2 = hx[chain[v - 1]] / n_n
            y2 = hy[chain[v - 1]] / n_t
            if x1 != x2 and y1 != y2:
                slope = (y2 - y1) - (x2 - x1)
                if slope != 0:
                    candidate = (x1 * y2 - x2 * y1) / slope
                    if candidate > value:
                        value = candidate
        eer[r] = value


def rows(group: np.ndarray, is_target: np.ndarray, n_groups: int, counts: np.ndarray,
         grid: np.ndarray, dcf: tuple[float, float, float]
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every row of `counts` (resamples x trials, multiplicities): the DET band row at
    `grid` (fractions), the ROCCH EER (fraction) and minDCF at `dcf` = (p_target, c_miss,
    c_fa); NaN for a resample without both classes. `group` is each trial's distinct-score
    index (ascending scores), `is_target` its class."""
    p_target, c_miss, c_fa = dcf
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    grid = np.ascontiguousarray(grid, dtype=np.float64)
    n_rows = counts.shape[0]
    band = np.empty((n_rows, grid.size))
    eer = np.empty(n_rows)
    out_dcf = np.empty(n_rows)
    _rows(np.ascontiguousarray(group, dtype=np.int64),
          np.ascontiguousarray(is_target, dtype=np.bool_), int(n_groups), counts, grid,
          c_miss * p_target, c_fa * (1.0 - p_target),
          min(c_miss * p_target, c_fa * (1.0 - p_target)), band, eer, out_dcf)
    return band, eer, out_dcf


def warm() -> None:
    """Load the compiled kernel (or compile it) once per process, on a tiny input."""
    rows(np.array([0, 1]), np.array([True, False]), 2, np.ones((1, 2)), np.array([0.5]),
         (0.01, 1.0, 1.0))
