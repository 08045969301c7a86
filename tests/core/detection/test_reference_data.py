"""DET and EER against published numbers: bob.measure (BOSARIS ROCCH) and pyeer's examples.

The numbers come from EXPECTED.json / PROVENANCE.md of the reference data (fixture
`expected`); the scores are read from the reference data folder, never copied here.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from llgui.core.detection.det import det_curve, eer, evaluate, roc_hull
from llgui.core.types import Trials


def _case(expected: dict, prefix: str) -> dict:
    return next(c for c in expected["detection"] if c["id"].startswith(prefix))


def _trials(root: Path, target: str, nontarget: str) -> Trials:
    tar = np.loadtxt(root / target, dtype=float, ndmin=1)
    non = np.loadtxt(root / nontarget, dtype=float, ndmin=1)
    return Trials(target, np.concatenate([tar, non]),
                  np.concatenate([np.ones(tar.size, bool), np.zeros(non.size, bool)]))


def test_bob_measure_nonsep_rocch(reference_data, expected):
    case = _case(expected, "bob-measure-nonsep")
    published = case["published"]["ROCCH_BOSARIS_1.06"]
    trials = _trials(reference_data, case["target"], case["nontarget"])
    hull = roc_hull(det_curve(trials.scores, trials.is_target))
    np.testing.assert_allclose(hull.p_fa, published["pfa"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(hull.p_miss, published["pmiss"], rtol=0, atol=1e-12)
    value, method = eer(trials.scores, trials.is_target)
    assert method == "rocch"
    assert value == pytest.approx(published["EER"], abs=1e-9)
    assert value == pytest.approx(0.116363636363636, abs=1e-9)


def test_bob_measure_nonsep_two_column_file_agrees(reference_data, expected):
    """The same trials as `score target|nontarget` lines give the same ROCCH EER."""
    case = _case(expected, "bob-measure-nonsep")
    rows = [line.split() for line in
            (reference_data / case["trials"]).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    scores = np.array([float(r[0]) for r in rows])
    labels = np.array([r[1] == "target" for r in rows])
    assert (labels.sum(), (~labels).sum()) == (50, 50)
    assert eer(scores, labels)[0] == pytest.approx(
        case["published"]["ROCCH_BOSARIS_1.06"]["EER"], abs=1e-9)


def test_bob_measure_nonsep_tie_aware_operating_points(reference_data, expected):
    """FAR = P(non >= t), FRR = P(tar < t), as the provenance computed them on the ties."""
    case = _case(expected, "bob-measure-nonsep")
    computed = case["computed_here"]
    points = computed["steppy_operating_points(FAR=P(non>=t),FRR=P(tar<t))"]
    curve = det_curve(*_arrays(_trials(reference_data, case["target"], case["nontarget"])))
    for key, (far, frr) in points.items():
        t = float(key.split("=")[1])
        # the data are decimal scores read as floats: 5.3 may be stored a hair below 5.3
        k = int(np.argmin(np.abs(curve.thresholds[:-1] - t)))
        assert (curve.p_fa[k], curve.p_miss[k]) == pytest.approx((far, frr), abs=1e-12), key
    # min over thresholds of max(FAR, FRR)
    assert np.maximum(curve.p_fa, curve.p_miss).min() == pytest.approx(
        computed["min_t max(FAR,FRR)"], abs=1e-12)


def test_bob_measure_linsep(reference_data, expected):
    case = _case(expected, "bob-measure-linsep")
    trials = _trials(reference_data, case["target"], case["nontarget"])
    r = evaluate(trials)
    assert r.eer == case["published"]["ROCCH_EER"] == 0.0
    # separable: the hull goes through (0, 0), and the EER point is there
    assert (r.eer_point.p_fa, r.eer_point.p_miss) == (0.0, 0.0)
    assert r.min_dcf == 0.0


@pytest.mark.parametrize("name, printed", [("exp1", 0.080392), ("exp2", 0.040087)])
def test_pyeer_examples_rocch(reference_data, expected, name, printed):
    case = _case(expected, "pyeer")["cases"][name]
    trials = _trials(reference_data, case["target"], case["nontarget"])
    assert (trials.n_target, trials.n_nontarget) == (case["n_target"], case["n_nontarget"])
    value = evaluate(trials).eer
    assert round(value, 6) == printed                       # PROVENANCE.md's table
    assert value == pytest.approx(case["ROCCH_EER"], abs=1e-12)  # EXPECTED.json, all digits


@pytest.mark.parametrize("name", ["exp1", "exp2"])
def test_pyeer_examples_curve_equals_pyannote(reference_data, expected, name):
    from pyannote.metrics.binary_classification import det_curve as pyannote_det_curve

    case = _case(expected, "pyeer")["cases"][name]
    scores, labels = _arrays(_trials(reference_data, case["target"], case["nontarget"]))
    fpr, fnr, thresholds, pyannote_eer = pyannote_det_curve(labels, scores, distances=False)
    finite = np.isfinite(thresholds)
    ours = det_curve(scores, labels)
    k = np.searchsorted(ours.thresholds, thresholds[finite])
    np.testing.assert_array_equal(ours.thresholds[k], thresholds[finite])
    np.testing.assert_allclose(ours.p_fa[k], fpr[finite], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.p_miss[k], fnr[finite], rtol=0, atol=1e-12)
    # and pyannote's own EER convention reproduces the provenance's column
    assert pyannote_eer == pytest.approx(case["pyannote_det_curve_eer"], abs=1e-12)


def _arrays(trials: Trials) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(trials.scores), np.asarray(trials.is_target)


def test_bob_measure_roc_for_far(reference_data, expected):
    """bob.measure's active roc_for_far test: the operating point of the curve with the
    largest false-alarm rate not above each requested one (and, there, the fewest misses)."""
    case = _case(expected, "bob-measure-nonsep")
    published = case["published"]["roc_for_far"]
    trials = _trials(reference_data, case["target"], case["nontarget"])
    curve = det_curve(trials.scores, trials.is_target)
    for request, far, frr in zip(published["requested_far"], published["far"],
                                 published["frr"]):
        allowed = curve.p_fa <= request
        best_far = curve.p_fa[allowed].max()
        best_frr = curve.p_miss[allowed & (curve.p_fa == best_far)].min()
        assert (best_far, best_frr) == (pytest.approx(far, abs=1e-12),
                                        pytest.approx(frr, abs=1e-12))
