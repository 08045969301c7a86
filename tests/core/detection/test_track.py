"""DetTrack: penalised detection scores per step equal a plain recomputation (DESIGN.md 1.8)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.core.detection.track import DET_TRACK_METRICS, DetMetric, DetTrack, brute_force
from llgui.core.penalty import replay
from llgui.core.types import Adapted, DetDocument, ItemsTarget, Stamp, Step, Trials
from tests.conftest import DEMO

LIFELONG = DEMO / "detection-lifelong" / "bundle.toml"


def document(scores, labels) -> DetDocument:
    trials = Trials("sys", np.asarray(scores, dtype=float), np.asarray(labels, dtype=bool))
    return DetDocument("sys", Stamp(0.0, "0"), trials,
                       tuple(str(i) for i in range(1, len(scores) + 1)))


# Scores on a coarse grid, so ties (between classes too) are frequent.
score = st.integers(-6, 6).map(lambda k: k / 2)


@st.composite
def runs(draw):
    n = draw(st.integers(2, 30))
    labels = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    labels[0], labels[1] = True, False          # both classes
    scores = draw(st.lists(score, min_size=n, max_size=n))
    steps = []
    for k in range(draw(st.integers(1, 4))):
        items = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
        changed = draw(st.dictionaries(st.integers(0, n - 1), score, max_size=5))
        adapted = Adapted(scores={str(i + 1): s for i, s in changed.items()}) if changed else None
        steps.append(Step("sys", k + 1, "active", "label",
                          ItemsTarget(tuple(str(i + 1) for i in items)),
                          tuple("target" if labels[i] else "nontarget" for i in items),
                          adapted=adapted))
    dcf = draw(st.sampled_from([(0.01, 1.0, 1.0), (0.5, 1.0, 1.0), (0.2, 10.0, 1.0)]))
    threshold = draw(st.one_of(st.none(), score))
    return scores, labels, steps, dcf, threshold


@settings(max_examples=40, deadline=None)
@given(runs(), st.sampled_from(DET_TRACK_METRICS))
def test_each_step_equals_a_brute_force_recomputation(run, name):
    scores, labels, steps, dcf, threshold = run
    metric = DetMetric(name, dcf, threshold if name == "err" else None)
    result = replay(DetTrack(document(scores, labels), metric), steps)
    current = list(scores)
    assert result.s_base == pytest.approx(brute_force(current, labels, {}, metric), abs=1e-12)
    penalty = 0.0
    for step, got in zip(steps, result.steps):
        items = [int(i) - 1 for i in step.target.items]
        s_cor = brute_force(current, labels, {i: True for i in items}, metric)
        s_imp = brute_force(current, labels, {i: False for i in items}, metric)
        if step.adapted is not None:
            for i, s in step.adapted.scores.items():
                current[int(i) - 1] = s
        s_adapt = brute_force(current, labels, {}, metric)
        penalty += s_imp - s_cor
        assert (got.s_cor, got.s_imp, got.s_adapt) == pytest.approx((s_cor, s_imp, s_adapt),
                                                                   abs=1e-12)
        assert got.s_pen == pytest.approx(s_adapt + penalty, abs=1e-12)
        assert got.s_cor <= got.s_imp            # right decisions never cost more


def test_error_rate_equals_sklearn_at_the_threshold():
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(3)
    scores = rng.normal(size=500).round(1)
    labels = rng.random(500) < 0.3
    metric = DetMetric("err", (0.3, 1.0, 1.0), 0.2)
    track = DetTrack(document(scores, labels), metric)
    expected = 100.0 * (1.0 - accuracy_score(labels, scores >= 0.2))
    assert track.current().score == pytest.approx(expected, abs=1e-12)
    # with the Bayes threshold of the DCF instead
    bayes = DetMetric("err", (0.3, 1.0, 1.0))
    t = math.log(0.7 / 0.3)
    assert DetTrack(document(scores, labels), bayes).current().score == pytest.approx(
        100.0 * (1.0 - accuracy_score(labels, scores >= t)), abs=1e-12)


def test_min_and_act_dcf_of_the_base_equal_det_module():
    from llgui.core.detection.det import act_dcf, min_dcf

    rng = np.random.default_rng(4)
    scores = rng.normal(size=800).round(2)
    labels = rng.random(800) < 0.2
    for name, fn in (("min_dcf", min_dcf), ("act_dcf", act_dcf)):
        track = DetTrack(document(scores, labels), DetMetric(name, (0.2, 2.0, 1.0)))
        assert track.current().score == pytest.approx(
            fn(scores, labels, 0.2, 2.0, 1.0), abs=1e-12)


# --------------------------------------------------------------------------------------------
# The demo's lifelong detection bundle


@pytest.fixture(scope="module")
def demo():
    from llgui.io.bundle import load_bundle

    return load_bundle(LIFELONG)


@pytest.mark.parametrize("metric", DET_TRACK_METRICS)
def test_demo_replay_identity_and_a_system_that_ignores_corrections(demo, metric):
    from llgui.core.penalty import make_track

    results = {}
    for doc in demo.documents:
        track = make_track(doc, metric, demo.settings, demo.cost, demo.documents)
        results[doc.id] = r = replay(track, demo.steps_of(doc.id), demo.cost, doc=doc.id)
        penalty = 0.0
        for s in r.steps:   # S_pen,n = S_adapt,n + sum_k (S_imp,k - S_cor,k), bit for bit
            penalty += s.s_imp - s.s_cor
            assert s.s_pen == s.s_adapt + penalty
    static, adaptive = results["static"], results["adaptive"]
    assert static.s_adapt == static.s_base
    assert static.s_pen > static.s_base           # ignoring corrections is penalised
    assert adaptive.s_adapt < adaptive.s_base      # the adapting system improves
    assert adaptive.s_pen < static.s_pen
    if metric == "err":
        assert adaptive.s_pen < adaptive.s_base    # and generalises beyond what it was shown
