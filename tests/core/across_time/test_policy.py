"""The user policy: curve, validation, editing, presets, weight matrix, policy file.

Every expected number is worked out by hand in the comments next to it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from llgui.core.errors import LoadError
from llgui.core.across_time.policy import PRESETS, Policy, policy_weights, window_weights
from llgui.io.policy_file import load_policy, save_policy
from llgui.core.types import Stamp

NAN = float("nan")


# --------------------------------------------------------------------------------------------
# The curve


def test_weight_is_piecewise_linear_and_constant_beyond_the_ends():
    p = Policy("relative", ((1.0, 3.0), (0.0, 1.0)))  # given out of order: sorted
    assert p.points == ((0.0, 1.0), (1.0, 3.0))
    # left of 0: 1; 0.25: 1 + 0.25 * (3 - 1) = 1.5; 0.5: 2; right of 1: 3
    np.testing.assert_allclose(p.weight([-5.0, 0.0, 0.25, 0.5, 1.0, 7.0]),
                               [1.0, 1.0, 1.5, 2.0, 3.0, 3.0], rtol=0, atol=1e-15)


def test_weight_keeps_the_shape_of_its_input():
    p = Policy("relative", ((0.0, 0.0), (2.0, 4.0)))
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    # slope 2 between 0 and 2, then 4
    np.testing.assert_allclose(p.weight(x), [[0.0, 2.0], [4.0, 4.0]])


def test_single_point_is_a_constant():
    p = Policy("absolute", ((5.0, 2.0),))
    np.testing.assert_array_equal(p.weight([-1e9, 5.0, 1e9]), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("mode, points, reason", [
    ("relative", (), "at least one point"),
    ("relative", ((0.0, 1.0), (0.0, 2.0)), "same x"),
    ("relative", ((0.0, -0.5),), "negative weight"),
    ("relative", ((NAN, 1.0),), "finite"),
    ("relative", ((0.0, math.inf),), "finite"),
    ("relative", ((0.0,),), "pair"),
    ("sideways", ((0.0, 1.0),), "mode"),
])
def test_invalid_policies_are_refused(mode, points, reason):
    with pytest.raises(ValueError, match=reason):
        Policy(mode, points)


def test_editing_returns_new_policies():
    p = Policy("relative", ((0.0, 1.0), (0.5, 2.0), (1.0, 3.0)))
    moved = p.moved(1, 0.25, 4.0)
    assert moved.points == ((0.0, 1.0), (0.25, 4.0), (1.0, 3.0))
    assert p.points == ((0.0, 1.0), (0.5, 2.0), (1.0, 3.0))  # unchanged
    # dragged past its right neighbour: sorted again, so it is now the last point
    assert p.moved(1, 2.0, 0.0).points == ((0.0, 1.0), (1.0, 3.0), (2.0, 0.0))
    assert p.added(0.75, 0.0).points == ((0.0, 1.0), (0.5, 2.0), (0.75, 0.0), (1.0, 3.0))
    assert p.removed(0).points == ((0.5, 2.0), (1.0, 3.0))
    assert p.removed(-1).points == ((0.0, 1.0), (0.5, 2.0))
    with pytest.raises(ValueError, match="same x"):
        p.moved(1, 1.0, 1.0)  # onto the x of point 2
    with pytest.raises(ValueError, match="same x"):
        p.added(0.5, 9.0)
    with pytest.raises(ValueError, match="last point"):
        Policy("relative", ((0.0, 1.0),)).removed(0)
    with pytest.raises(IndexError):
        p.removed(3)


def test_presets_favour_what_they_say():
    a, b, c = PRESETS["A"], PRESETS["B"], PRESETS["C"]
    assert {p.mode for p in (a, b, c)} == {"relative"}
    assert all(p.normalise for p in (a, b, c))
    x = np.linspace(0.0, 1.0, 11)
    assert np.all(np.diff(a.weight(x)) > 0)             # A: rises towards now (x = 1)
    assert np.all(np.diff(b.weight(x)) == 0)            # B: uniform
    assert np.all(np.diff(c.weight(x)) < 0)             # C: falls towards now
    # documented points: A 0.1 -> 1, C 1 -> 0.1
    assert a.points == ((0.0, 0.1), (1.0, 1.0))
    assert c.points == ((0.0, 1.0), (1.0, 0.1))


# --------------------------------------------------------------------------------------------
# The weight matrix

MODELS = np.array([0.0, 2.0, 4.0])              # l_1 = 0, l_2 = 2, l_3 = 4
TESTS = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])


def test_relative_weights_by_hand():
    p = Policy("relative", ((0.0, 0.1), (1.0, 1.0)))   # preset A
    raw, window = window_weights(p, MODELS, TESTS)
    # M_1 (l=0): window {t=0}, l_1 = l_i so x = 1 -> weight 1
    # M_2 (l=2): t = 0, 1, 2 at x = 0, 0.5, 1 -> 0.1, 0.55, 1
    # M_3 (l=4): t = 0..4 at x = 0, .25, .5, .75, 1 -> 0.1, 0.325, 0.55, 0.775, 1; t=5 > l_3
    expected_raw = np.array([
        [1.0, 0, 0, 0, 0, 0],
        [0.1, 0.55, 1.0, 0, 0, 0],
        [0.1, 0.325, 0.55, 0.775, 1.0, 0],
    ])
    np.testing.assert_allclose(raw, expected_raw, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(window, expected_raw > 0)
    # normalised: row sums 1, 1.65, 2.75
    np.testing.assert_allclose(policy_weights(p, MODELS, TESTS),
                               expected_raw / np.array([[1.0], [1.65], [2.75]]),
                               rtol=1e-14, atol=0)
    np.testing.assert_allclose(policy_weights(p.with_normalise(False), MODELS, TESTS),
                               expected_raw, rtol=0, atol=1e-15)


def test_absolute_weights_by_hand():
    # weight 0 up to t=1, rising to 2 at t=3, then 2
    p = Policy("absolute", ((1.0, 0.0), (3.0, 2.0)))
    # P(t) for t = 0..5: 0, 0, 1, 2, 2, 2
    # M_1 window {0}: weight 0 -> normalised row is NaN (nothing to normalise), raw row is 0
    # M_2 window {0,1,2}: 0, 0, 1 -> normalised 0, 0, 1
    # M_3 window {0..4}: 0, 0, 1, 2, 2 (sum 5) -> 0, 0, .2, .4, .4; t=5 outside
    w = policy_weights(p, MODELS, TESTS)
    assert np.isnan(w[0]).all()
    np.testing.assert_allclose(w[1:], [[0, 0, 1, 0, 0, 0], [0, 0, 0.2, 0.4, 0.4, 0]],
                               rtol=0, atol=1e-15)
    raw = policy_weights(p.with_normalise(False), MODELS, TESTS)
    np.testing.assert_allclose(raw, [[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0],
                                     [0, 0, 1, 2, 2, 0]], rtol=0, atol=1e-15)


def test_empty_window_is_nan_in_both_modes():
    # tests only after the first model: M_1's window [0, 0] holds no test
    tests = np.array([1.0, 3.0])
    for normalise in (True, False):
        w = policy_weights(Policy("relative", ((0.0, 1.0),), normalise), MODELS, tests)
        assert np.isnan(w[0]).all()
        # M_2 (l=2): only t=1 -> 1; M_3: t=1, 3 -> uniform
        expected = [[1.0, 0.0], [0.5, 0.5]] if normalise else [[1.0, 0.0], [1.0, 1.0]]
        np.testing.assert_allclose(w[1:], expected)


def test_tests_before_the_first_model_never_count():
    w = policy_weights(PRESETS["B"], np.array([10.0, 20.0]), np.array([5.0, 10.0, 15.0, 20.0]))
    # M_1: window [10, 10] -> t=10 only; M_2: t = 10, 15, 20 uniform; t=5 < l_1 never counts
    np.testing.assert_allclose(w, [[0, 1, 0, 0], [0, 1 / 3, 1 / 3, 1 / 3]], rtol=1e-15)


def test_weights_accept_stamps():
    models = [Stamp.parse("2020-01-01"), Stamp.parse("2020-01-03")]
    tests = [Stamp.parse("2020-01-01"), Stamp.parse("2020-01-02"), Stamp.parse("2020-01-03")]
    # relative x = 0, 0.5, 1 for the second model: preset A weights 0.1, 0.55, 1 (sum 1.65)
    w = policy_weights(PRESETS["A"], models, tests)
    np.testing.assert_allclose(w[1], np.array([0.1, 0.55, 1.0]) / 1.65, rtol=1e-14)


# --------------------------------------------------------------------------------------------
# The policy file


def _write(tmp_path: Path, text: str, name: str = "policy.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[str]:
    with pytest.raises(LoadError) as info:
        load_policy(path)
    return [str(p) for p in info.value.problems]


def test_round_trip(tmp_path):
    for policy in (PRESETS["A"], Policy("relative", ((0.0, 0.3), (0.4, 1.0 / 3.0)), False),
                   Policy("absolute", ((1.5, 2.0), (1e6, 0.0)))):
        path = tmp_path / "p.json"
        save_policy(policy, path)
        assert load_policy(path) == policy
        assert json.loads(path.read_text(encoding="utf-8")) == policy.to_dict()
    assert list(tmp_path.iterdir()) == [tmp_path / "p.json"]  # no temporary file left


def test_absolute_dates_load_and_round_trip(tmp_path):
    path = _write(tmp_path, '{"mode": "absolute",\n "points": [["2014-01-05", 1],\n'
                            '  ["2014-01-06T12:00:00", 3]]}\n')
    policy = load_policy(path)
    day = Stamp.parse("2014-01-05").value
    assert policy.dates and policy.normalise
    assert policy.points == ((day, 1.0), (day + 36 * 3600, 3.0))
    # midway in time, midway in weight
    assert policy.weight(day + 18 * 3600) == pytest.approx(2.0, abs=1e-12)
    save_policy(policy, path)
    assert json.loads(path.read_text(encoding="utf-8"))["points"] == [
        ["2014-01-05", 1.0], ["2014-01-06T12:00:00", 3.0]]
    assert load_policy(path) == policy


def test_from_dict_ignores_the_session_name_and_refuses_bad_input():
    data = {"name": "custom", "mode": "relative", "points": [[0, 1], [1, 2]],
            "normalise": False}
    assert Policy.from_dict(data) == Policy("relative", ((0.0, 1.0), (1.0, 2.0)), False)
    with pytest.raises(ValueError, match="weight must be >= 0"):
        Policy.from_dict({"mode": "relative", "points": [[0, -1]]})


def test_invalid_json_names_the_line(tmp_path):
    path = _write(tmp_path, '{"mode": "relative",\n "points": [[0, 1],]\n}\n')
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(path.read_text(encoding="utf-8"))
    error = info.value
    assert error.lineno == 2  # the trailing comma
    assert _problems(path) == [
        f"{path}:2: not valid JSON: {error.msg} (column {error.colno})"]


def test_every_problem_is_reported_at_its_line(tmp_path):
    text = "\n".join([
        "{",                                     # 1
        '  "mode": "relative",',                 # 2
        '  "points": [',                         # 3
        "    [0, 1],",                           # 4
        "    [0.5, -2],",                        # 5
        '    ["2020-01-01", 1],',                # 6
        "    [0, 3],",                           # 7
        "    [1]",                               # 8
        "  ],",                                  # 9
        '  "normalise": "yes",',                 # 10
        '  "colour": "red"',                     # 11
        "}",                                     # 12
    ])
    path = _write(tmp_path, text)
    assert _problems(path) == [  # all of them, top to bottom
        f"{path}:5: point 2: weight must be >= 0, not -2",
        f"{path}:6: point 3: x must be a number in relative mode (0 = oldest, 1 = now), "
        'not "2020-01-01"',
        f"{path}:7: point 4 has the same x as point 1 (0.0); each x must differ",
        f"{path}:8: point 5 must be a pair [x, weight]",
        f"{path}:10: normalise must be true or false, not \"yes\"",
        f"{path}:11: unknown key 'colour' (a policy has mode, points, normalise, name)",
    ]


@pytest.mark.parametrize("text, expected", [
    ("", " policy file is empty"),
    ("[[0, 1]]\n", "1: a policy file holds one JSON object"),
    ('{\n "points": [[0, 1]]\n}\n', "1: missing key 'mode'"),
    ('{\n "mode": "absolute"\n}\n', "1: missing key 'points'"),
    ('{\n "mode": "relative",\n "points": []\n}\n', "3: points is empty"),
    ('{\n "mode": "relative",\n "points": {"0": 1}\n}\n', "3: points must be a list"),
    ('{"mode": "cyclic",\n "points": [[0, 1]]}\n', '1: mode must be "relative" or "absolute"'),
    ('{"mode": "relative", "points": [[0, NaN]]}\n', "1: point 1: weight must be a finite"),
    ('{"mode": "relative", "points": [[true, 1]]}\n', "1: point 1: x must be a number"),
    ('{"mode": "absolute",\n "points": [["2020-01-01", 1],\n [5, 1]]}\n',
     "3: point 2: points mix ISO dates and numbers"),
    ('{"mode": "absolute",\n "points": [["2020-13-01", 1]]}\n',
     "2: point 1: time '2020-13-01' is neither a number nor an ISO date"),
])
def test_malformed_policy_files(tmp_path, text, expected):
    path = _write(tmp_path, text)
    problems = _problems(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:{expected}"), problems[0]


def test_missing_file(tmp_path):
    assert _problems(tmp_path / "nope.json") == [f"{tmp_path / 'nope.json'}: policy file not found"]


def test_a_policy_keeps_its_curve_across_modes():
    from llgui.core.across_time.policy import Policy

    relative = Policy("relative", ((0.0, 0.1), (0.5, 0.4), (1.0, 1.0)))
    # the span [100, 300]: x = 0.5 is the calendar time 100 + 0.5 * 200 = 200
    absolute = relative.in_mode("absolute", 100.0, 300.0)
    assert absolute.mode == "absolute"
    assert absolute.points == ((100.0, 0.1), (200.0, 0.4), (300.0, 1.0))
    assert absolute.in_mode("relative", 100.0, 300.0).points == relative.points
    assert relative.in_mode("relative", 100.0, 300.0) is relative


def test_one_models_window_its_tests_and_columns():
    from llgui.core.across_time.policy import window_columns, window_tests

    p = Policy("relative", ((0.0, 0.1), (1.0, 1.0)))   # preset A, as by hand above
    xs, ws = window_tests(p, MODELS, TESTS, 2)
    np.testing.assert_allclose(xs, [0.0, 0.25, 0.5, 0.75, 1.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(ws, [0.1, 0.325, 0.55, 0.775, 1.0], rtol=0, atol=1e-15)
    raw, window = window_weights(p, MODELS, TESTS)
    np.testing.assert_allclose(ws, raw[2][window[2]], rtol=0, atol=0)
    assert window_columns("relative", MODELS, TESTS, 1) == (0, 2)
    assert window_columns("absolute", MODELS, TESTS, 0) == (0, 0)
    assert window_columns("relative", MODELS, np.array([1.0, 3.0]), 0) is None   # empty
