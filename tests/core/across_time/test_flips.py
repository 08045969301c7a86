"""Exact negative flips (detection, classification) and their bootstrap interval, against
counts written out by hand and a brute-force bootstrap loop (issue 33, acceptance 1)."""
from __future__ import annotations

import numpy as np
import pytest

from llgui.core.across_time.flips import exact_flips, graded_flips

# 10 trials decided right (1) / wrong (0) by M_k and M_k+1:
#   unit       0 1 2 3 4 5 6 7 8 9
BEFORE = [1, 1, 1, 0, 0, 1, 1, 1, 0, 1]
AFTER = [1, 0, 1, 1, 0, 0, 1, 1, 0, 0]
# negative flips (1 -> 0): units 1, 5, 9 -> NFR 3/10; errors of M_k+1: 1, 4, 5, 8, 9 -> 5;
# NFI = 0.3 / 0.5 = 0.6. Unit 3 is a positive flip (0 -> 1), units 4 and 8 stay wrong.


def test_exact_flips_by_hand():
    f = exact_flips(np.array(BEFORE, bool), np.array(AFTER, bool), samples=0)
    assert (f.n_units, f.flips, f.errors_after) == (10, 3, 5)
    assert f.nfr == 0.3 and f.nfi == pytest.approx(0.6)
    assert f.units == (1, 5, 9)
    assert f.signature.startswith("unit:trial|tol:exact")


def test_exact_flips_bootstrap_equals_a_loop():
    samples, seed = 300, 7
    f = exact_flips(np.array(BEFORE, bool), np.array(AFTER, bool), samples=samples, seed=seed)
    rng = np.random.default_rng(seed)
    idx = rng.integers(10, size=(samples, 10))
    nfr, nfi = [], []
    for row in idx:
        flips = sum(1 for i in row if BEFORE[i] == 1 and AFTER[i] == 0)
        errors = sum(1 for i in row if AFTER[i] == 0)
        nfr.append(flips / 10)
        if errors:
            nfi.append(flips / errors)
    nfr, nfi = sorted(nfr), sorted(nfi)
    assert f.nfr_interval == (nfr[samples // 40], nfr[samples - samples // 40 - 1])
    assert f.nfi_interval == pytest.approx((nfi[len(nfi) // 40],
                                            nfi[len(nfi) - len(nfi) // 40 - 1]))


def test_classification_flips_from_labels():
    """Multi-class: right means the decision equals the true class."""
    truth = ["a", "b", "c", "a", "b"]
    old = ["a", "b", "a", "a", "c"]   # right: 0 1 3
    new = ["a", "c", "c", "b", "c"]   # right: 0 2; flips: 1, 3
    f = exact_flips([o == t for o, t in zip(old, truth)],
                    [n == t for n, t in zip(new, truth)], samples=0)
    assert f.units == (1, 3) and f.nfr == 0.4 and f.nfi == pytest.approx(0.4 / 0.6)


def test_graded_flips_tolerance_and_direction():
    # DER per turn (lower is better), tolerance 5 points
    before = [0.0, 10.0, 50.0, 20.0]
    after = [4.0, 30.0, 40.0, 26.0]      # worse by 4 (tie), 20 (flip), -10, 6 (flip)
    f = graded_flips(before, after, higher_is_better=False, best=0.0, tolerance=5.0,
                     unit="turn-der", samples=0)
    assert f.units == (1, 3) and f.nfr == 0.5
    assert f.errors_after == 3 and f.nfi == pytest.approx(0.5 / 0.75)
    assert "tol:5" in f.signature


def test_detection_bundle_flips_equal_the_score_files(capsys):
    """`llgui regressions` on the detection demo (three score files on one key, taken as
    consecutive versions): every flipped trial, from the files read here, at threshold 0."""
    import json

    from llgui.cli.main import main
    from llgui.resources import demo_dir

    folder = demo_dir() / "detection" / "scores"
    key = [line.split() for line in (folder / "trials.key").read_text().splitlines()]
    right = {}
    for name in ("sysA", "sysB", "sysB-adapted"):
        scores = {(e, t): float(s) for e, t, s in
                  (line.split() for line in (folder / f"{name}.txt").read_text().splitlines())}
        right[name] = [(scores[(e, t)] > 0) == (label == "target") for e, t, label in key]
    assert main(["regressions", str(demo_dir() / "detection" / "bundle.toml"), "--format",
                 "json", "--samples", "10"]) == 0
    report = json.loads(capsys.readouterr().out)
    (section,) = report["flips"]
    for pair, (a, b) in zip(section["pairs"], (("sysA", "sysB"), ("sysB", "sysB-adapted"))):
        flipped = [k for k in range(len(key)) if right[a][k] and not right[b][k]]
        errors = sum(1 for k in range(len(key)) if not right[b][k])
        assert (pair["before"], pair["after"], pair["flips"]) == (a, b, len(flipped))
        assert pair["nfr"] == pytest.approx(100 * len(flipped) / len(key))
        assert pair["nfi"] == pytest.approx(100 * len(flipped) / errors)
        rows = {r["unit"] for r in report["rows"] if (r["before"], r["after"]) == (a, b)}
        assert rows == {f"trial {k + 1}" for k in flipped}
    assert "tol:exact" in report["signature"] and "threshold:0" in report["signature"]
