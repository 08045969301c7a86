"""Gate 4: dragging a policy point over 200 model versions x 200 test times.

Each drag step builds the moved `Policy` and recomputes S_P for every model version
(`policy_scores`, which forms the weight matrix of `policy_weights` internally). PASS iff the
median step is <= 5 ms and the result equals, to 1e-9, a straightforward pure-Python loop over
equation 2 written here. That loop is our own reference (no library computes S_P); the ratio
says how much the vectorised path gains over it.
"""
from __future__ import annotations

import bisect
import statistics
import time

import numpy as np

from benchmarks.common import GateResult, timed

NAME = "policy-drag"
N_MODELS = 200
N_TESTS = 200
LIMIT_MS = 5.0


def _table():
    from llgui.core.types import LifelongScores, Stamp

    rng = np.random.default_rng(4)
    model_times = np.sort(rng.uniform(0, 1000, N_MODELS))
    test_times = np.sort(rng.uniform(-20, 1050, N_TESTS))
    values = rng.uniform(5, 60, (N_MODELS, N_TESTS))
    values[rng.random(values.shape) < 0.05] = np.nan   # a few missing rows
    return LifelongScores(
        models=tuple(f"M{i}" for i in range(N_MODELS)),
        model_times=tuple(Stamp.parse(float(t)) for t in model_times),
        tests=tuple(f"t{j}" for j in range(N_TESTS)),
        test_times=tuple(Stamp.parse(float(t)) for t in test_times),
        metrics=("wer",), values={"wer": values},
    )


def reference_scores(table, policy) -> list[float]:
    """Equation 2 by loops: for each model, each test in [l_1, l_i] with a score, weight by
    the piecewise-linear policy (relative x), renormalise over the present cells."""
    xs = [x for x, _ in policy.points]
    ws = [w for _, w in policy.points]

    def weight(x: float) -> float:
        if x <= xs[0]:
            return ws[0]
        if x >= xs[-1]:
            return ws[-1]
        k = bisect.bisect_right(xs, x)
        x0, x1, w0, w1 = xs[k - 1], xs[k], ws[k - 1], ws[k]
        return w0 + (w1 - w0) * (x - x0) / (x1 - x0)

    l = [s.value for s in table.model_times]
    t = [s.value for s in table.test_times]
    v = table.values["wer"].tolist()
    l1 = min(l)
    out = []
    for i, li in enumerate(l):
        num = den = 0.0
        for j, tj in enumerate(t):
            if not (l1 <= tj <= li) or v[i][j] != v[i][j]:
                continue
            x = (tj - l1) / (li - l1) if li > l1 else 1.0
            w = weight(x)
            num += w * v[i][j]
            den += w
        out.append(num / den if den > 0 else float("nan"))
    return out


def _tab_step_times(table, start, path) -> list[float]:
    """Seconds per drag step of the Across-time tab itself: what it does on each (throttled)
    `policy_dragging` signal (S_P of every version, the test stems, the curves' setData)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtWidgets import QApplication

    from llgui.core.cost import CostModel
    from llgui.core.types import Bundle
    from llgui.gui.across_time.tab import AcrossTimeTab
    from llgui.gui.state import SessionState
    from llgui.gui.workers import JobRunner

    class _Window:  # the two window services the tab may call
        def show_error(self, title, lines):
            raise RuntimeError(f"{title}: {lines}")

        def show_tab(self, name):
            pass

    app = QApplication.instance() or QApplication([])
    from llgui.gui.app import _quiet_offscreen_notes

    _quiet_offscreen_notes()   # (Qt's offscreen notes, as the app drops them: not a problem)
    state, jobs = SessionState(), JobRunner()
    tab = AcrossTimeTab(state, jobs, _Window())
    tab.resize(1200, 800)
    tab.show()   # a hidden tab defers its drawing
    state.add_bundles([Bundle(path=None, task="mt", name="gate 4", metrics=("wer",),
                              settings={}, cost=CostModel(), documents=(), lifelong=table)])
    state.edit_policy(start, "custom")
    app.processEvents()
    times = []
    for x, w in path:
        policy = start.moved(1, x, w)
        t0 = time.perf_counter()
        tab._on_state_policy_dragging(policy)
        times.append(time.perf_counter() - t0)
    jobs.shutdown(0)
    tab.deleteLater()
    return times


def run() -> GateResult:
    from llgui.core.across_time.scores import policy_scores
    from llgui.core.across_time.policy import Policy

    table = _table()
    start = Policy("relative", ((0.0, 0.1), (0.4, 0.6), (1.0, 1.0)))
    # A drag: the middle point follows the mouse through 400 positions.
    path = [(0.05 + 0.9 * k / 399, 0.2 + 1.5 * abs(np.sin(k / 37.0))) for k in range(400)]
    policy_scores(table, "wer", start)  # warm up
    times = []
    result = None
    policy = start
    for x, w in path:
        t0 = time.perf_counter()
        policy = start.moved(1, x, w)
        result = policy_scores(table, "wer", policy)
        times.append(time.perf_counter() - t0)
    ours = statistics.median(times)
    ref_time, expected = timed(lambda: reference_scores(table, policy), repeat=3)
    expected = np.array(expected)
    equal = bool(np.allclose(result, expected, rtol=0, atol=1e-9, equal_nan=True))
    diff = float(np.nanmax(np.abs(result - expected)))
    passed = ours * 1e3 <= LIMIT_MS and equal
    tab_times = _tab_step_times(table, start, path)
    return GateResult(
        figure=f"{ours * 1e3:.3f} ms median per drag step",
        ratio=ref_time / ours,
        library="a pure-Python loop of equation 2 (ours)",
        passed=passed,
        details=[
            f"{N_MODELS} models x {N_TESTS} tests, {len(path)} drag steps; limit {LIMIT_MS} ms",
            f"p95 {np.percentile(times, 95) * 1e3:.3f} ms, max {max(times) * 1e3:.3f} ms",
            f"reference loop {ref_time * 1e3:.1f} ms; max |difference| {diff:.2e} "
            f"({'equal' if equal else 'NOT equal'} to 1e-9)",
            f"the Across-time tab's whole live step (S_P, stems, curves redrawn): median "
            f"{statistics.median(tab_times) * 1e3:.3f} ms, p95 "
            f"{np.percentile(tab_times, 95) * 1e3:.3f} ms (the drag signal is throttled to "
            f"one per 30 ms)",
        ],
    )
