"""The user policy: a weight curve over test times, its presets, its file, its weight matrix.

A `Policy` is a piecewise-linear curve through control points (x, w), constant beyond the end
points, with weights w >= 0 (DESIGN.md sections 1.4 and 7). It weighs the test times t_j of a
lifelong score table when a model version M_i is scored by equation 2 of Prokopalo et al.
(LREC 2020): S_P(M_i) = sum over t_j in [l_1, l_i] of s(M_i, t_j) * P(t_j).

- mode "relative": for model M_i (time l_i; l_1 the earliest model time), test t_j sits at
  x = (t_j - l_1) / (l_i - l_1), so x = 0 is the oldest data and x = 1 is "now" for M_i
  (x = 1 when l_i = l_1, where the window holds only t_j = l_1).
- mode "absolute": x is the test time itself, in the units of the score table (POSIX seconds
  when the table's times are ISO dates; a policy file may then give x as ISO dates).
- Only t_j in [l_1, l_i] count (weight 0 elsewhere). With `normalise` (the default) the
  weights of each window are divided by their sum, so S_P stays in score units; otherwise
  the raw weighted sum is used.

Policy file (JSON): ``{"mode": "relative", "points": [[0, 0.1], [1, 1]], "normalise": true}``,
optionally with a ``"name"`` string (ignored here, kept by the GUI's session). The file is read
and written by `llgui.io.policy_file`; `policy_from_node` checks its parsed content here.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from llgui.core.errors import Problems
from llgui.core.numbers import check_number, show_value
from llgui.core.types import MAX_TIME, Stamp

MODES = ("relative", "absolute")
MAX_X = MAX_TIME
"""Bound on |x|: an absolute x is a time (see `Stamp`), a relative one is near [0, 1]."""
MAX_WEIGHT = 1e6
"""Bound on a weight: sums of weights over a window must stay finite."""
FILE_KEYS = ("mode", "points", "normalise", "name")


@dataclass(frozen=True)
class Policy:
    """A user policy: control points (x, weight) sorted by x, and how x is read.

    `points` is a tuple of (x, w) float pairs with x strictly increasing (the constructor
    sorts them) and w finite and >= 0; at least one point. `dates` says the x of an absolute
    policy were given as ISO dates (POSIX seconds here), so files and the GUI show them as
    dates again. Construction raises ValueError with the reason when the points are invalid.
    """

    mode: str
    points: tuple[tuple[float, float], ...]
    normalise: bool = True
    dates: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be 'relative' or 'absolute', not {self.mode!r}")
        if not isinstance(self.normalise, bool):
            raise ValueError(f"normalise must be true or false, not {self.normalise!r}")
        if self.dates and self.mode != "absolute":
            raise ValueError("only an absolute policy can have dates as x")
        points = []
        for k, point in enumerate(self.points, 1):
            try:
                x, w = point
                x, w = float(x), float(w)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"point {k} must be a pair of finite numbers (x, weight), not "
                                 f"{show_value(point)}") from None
            if not (math.isfinite(x) and math.isfinite(w)) or abs(x) > MAX_X or w > MAX_WEIGHT:
                raise ValueError(f"point {k} must be finite, not ({x!r}, {w!r}) (|x| <= "
                                 f"{MAX_X:g}, weight <= {MAX_WEIGHT:g})")
            if w < 0:
                raise ValueError(f"point {k} has a negative weight ({w!r})")
            points.append((x, w))
        if not points:
            raise ValueError("a policy needs at least one point")
        points.sort()
        for (x0, _), (x1, _) in zip(points, points[1:]):
            if x0 == x1:
                raise ValueError(f"two points have the same x ({_x_text(x0, self.dates)})")
        object.__setattr__(self, "points", tuple(points))

    # ---------------------------------------------------------------------------------------
    @property
    def xs(self) -> np.ndarray:
        """The points' x, ascending, shape (n_points,)."""
        return np.array([x for x, _ in self.points], dtype=float)

    @property
    def ws(self) -> np.ndarray:
        """The points' weights, shape (n_points,)."""
        return np.array([w for _, w in self.points], dtype=float)

    def weight(self, x) -> np.ndarray:
        """P(x) for an array of x of any shape: linear between points, constant outside."""
        return np.interp(np.asarray(x, dtype=float), self.xs, self.ws)

    # Editing: each returns a new Policy (a drag builds one per mouse move) -------------------
    def moved(self, i: int, x: float, w: float) -> "Policy":
        """Point i (in x order) moved to (x, w). The result is sorted again, so a point dragged
        past a neighbour changes index; landing on another point's x raises ValueError."""
        points = list(self.points)
        points[self._index(i)] = (x, w)
        return Policy(self.mode, tuple(points), self.normalise, self.dates)

    def added(self, x: float, w: float) -> "Policy":
        """A new point (x, w); ValueError if a point already has that x."""
        return Policy(self.mode, self.points + ((x, w),), self.normalise, self.dates)

    def removed(self, i: int) -> "Policy":
        """Point i (in x order) removed; ValueError for the last remaining point."""
        if len(self.points) == 1:
            raise ValueError("cannot remove the last point of a policy")
        i = self._index(i)
        return Policy(self.mode, self.points[:i] + self.points[i + 1:], self.normalise,
                      self.dates)

    def in_mode(self, mode: str, start: float, end: float, dates: bool = False) -> "Policy":
        """The same curve in the other mode, over the calendar span [start, end] (the first
        and last model times): relative x = 0..1 maps onto [start, end], and back. A span of
        zero length is taken as one unit. `dates` marks absolute x as POSIX seconds."""
        if mode not in MODES:
            raise ValueError(f"policy mode must be one of {', '.join(MODES)}, not {mode!r}")
        if mode == self.mode:
            return self
        span = end - start if end > start else 1.0
        if mode == "absolute":
            points = tuple((start + x * span, w) for x, w in self.points)
            return Policy("absolute", points, self.normalise, dates=dates)
        points = tuple(((x - start) / span, w) for x, w in self.points)
        return Policy("relative", points, self.normalise)

    def with_normalise(self, normalise: bool) -> "Policy":
        return Policy(self.mode, self.points, bool(normalise), self.dates)

    def _index(self, i: int) -> int:
        if not -len(self.points) <= i < len(self.points):
            raise IndexError(f"point {i} out of range (policy has {len(self.points)})")
        return i % len(self.points)

    # Serialisation ----------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The policy file's object: {"mode", "points": [[x, w], ...], "normalise"}; x as ISO
        dates when `dates` (to the microsecond)."""
        return {"mode": self.mode,
                "points": [[_x_json(x, self.dates), w] for x, w in self.points],
                "normalise": self.normalise}

    def to_json(self) -> str:
        """The policy file's text: one point a line, numbers as Python's shortest repr."""
        d = self.to_dict()
        points = ",\n".join(f"    [{json.dumps(x)}, {json.dumps(w)}]" for x, w in d["points"])
        return (f'{{\n  "mode": {json.dumps(d["mode"])},\n  "points": [\n{points}\n  ],\n'
                f'  "normalise": {json.dumps(d["normalise"])}\n}}\n')

    @classmethod
    def from_dict(cls, data: Mapping) -> "Policy":
        """A policy from a parsed policy file (or session) object; a "name" key is ignored.
        Raises ValueError listing every problem."""
        problems = Problems("policy")
        policy = policy_from_node(_plain_node(data), problems)
        if problems or policy is None:
            raise ValueError("; ".join(p.reason for p in problems.items))
        return policy


PRESETS: dict[str, Policy] = {
    "A": Policy("relative", ((0.0, 0.1), (1.0, 1.0))),
    "B": Policy("relative", ((0.0, 1.0), (1.0, 1.0))),
    "C": Policy("relative", ((0.0, 1.0), (1.0, 0.1))),
}
"""The paper's three policies (figure 5), in relative mode, normalised:

- A favours contemporary data: weight rises linearly from 0.1 on the oldest test (x = 0) to 1
  on the model's own time (x = 1), so the newest data count ten times the oldest;
- B is uniform: every test in the window counts the same;
- C favours the past: the mirror image of A, 1 at x = 0 down to 0.1 at x = 1.
Neither end goes to 0 so that every test in the window still counts a little.
"""

PRESET_DESCRIPTIONS = {
    "A": "favours contemporary data",
    "B": "uniform over the past",
    "C": "favours the past",
}


# --------------------------------------------------------------------------------------------
# The weight matrix


def _time_values(times) -> np.ndarray:
    if isinstance(times, np.ndarray):
        return times.astype(float, copy=False)
    return np.array([t.value if isinstance(t, Stamp) else t for t in times], dtype=float)


def window_positions(mode: str, model_times, test_times) -> tuple[np.ndarray, np.ndarray]:
    """Where each test sits on the policy's x axis for each model, and the window mask, both
    of shape (n_models, n_tests). Relative: x = (t_j - l_1) / (l_i - l_1) (1 when l_i = l_1);
    absolute: x = t_j. The mask is t_j in [l_1, l_i]."""
    l = _time_values(model_times)
    t = _time_values(test_times)
    if l.size == 0:
        empty = np.zeros((0, t.size))
        return empty, empty.astype(bool)
    l1 = l.min()
    window = (t[None, :] >= l1) & (t[None, :] <= l[:, None])
    if mode == "relative":
        span = (l - l1)[:, None]
        safe = np.where(span > 0, span, 1.0)
        x = np.where(span > 0, (t[None, :] - l1) / safe, 1.0)
    else:
        x = np.broadcast_to(t[None, :], window.shape)
    return x, window


def window_weights(policy: Policy, model_times, test_times) -> tuple[np.ndarray, np.ndarray]:
    """Un-normalised weights P(x_ij) and the window mask, both of shape (n_models, n_tests).

    Times are arrays of floats (or sequences of `Stamp`). Weights outside the window are 0.
    """
    x, window = window_positions(policy.mode, model_times, test_times)
    if window.size == 0:
        return x, window
    return np.where(window, policy.weight(x), 0.0), window


def window_tests(policy: Policy, model_times, test_times, model: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(x, P(x)) of the tests in model `model`'s window [l_1, l_i] (equation 2): where each
    sits on the policy's axis and the un-normalised weight it gets."""
    x, window = window_positions(policy.mode, model_times, test_times)
    xs = x[model][window[model]]
    return xs, policy.weight(xs)


def window_columns(mode: str, model_times, test_times, model: int) -> tuple[int, int] | None:
    """The first and last test (column) in model `model`'s window, None when it is empty."""
    _x, window = window_positions(mode, model_times, test_times)
    cols = np.flatnonzero(window[model])
    return (int(cols[0]), int(cols[-1])) if cols.size else None


def policy_weights(policy: Policy, model_times, test_times) -> np.ndarray:
    """Weights P(t_j) seen from each model version, shape (n_models, n_tests).

    0 outside the window [l_1, l_i]. Normalised policies: each row sums to 1; a row whose
    window is empty or whose weights there are all 0 is NaN (no score can be formed). Raw
    policies: the weights as they are, NaN rows only for an empty window.
    """
    raw, window = window_weights(policy, model_times, test_times)
    if policy.normalise:
        total = raw.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = raw / total
        out[(total == 0)[:, 0]] = np.nan
        return out
    out = raw.copy()
    out[~window.any(axis=1)] = np.nan
    return out


# --------------------------------------------------------------------------------------------
# The policy file


@dataclass(frozen=True)
class _Node:
    """A parsed JSON value with the line it starts on (0 when unknown). `value` is a dict of
    _Node for objects, a list of _Node for arrays, the plain value otherwise."""

    value: object
    line: int


def _plain_node(value: object) -> _Node:
    if isinstance(value, Mapping):
        return _Node({str(k): _plain_node(v) for k, v in value.items()}, 0)
    if isinstance(value, (list, tuple)):
        return _Node([_plain_node(v) for v in value], 0)
    return _Node(value, 0)


def _float_or_inf(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _json_show(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return show_value(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def policy_from_node(root: _Node, problems: Problems) -> Policy | None:
    """Check a parsed policy object, adding every problem; the Policy when there is none."""
    if not isinstance(root.value, dict):
        problems.add(root.line, "a policy file holds one JSON object "
                                '{"mode": ..., "points": [[x, w], ...], "normalise": true}')
        return None
    fields: dict[str, _Node] = root.value
    for key, node in fields.items():
        if key not in FILE_KEYS:
            problems.add(node.line, f"unknown key {key!r} (a policy has "
                                    f"{', '.join(FILE_KEYS)})")
    mode = None
    if "mode" not in fields:
        problems.add(root.line, "missing key 'mode' (\"relative\" or \"absolute\")")
    elif fields["mode"].value not in MODES:
        problems.add(fields["mode"].line, f"mode must be \"relative\" or \"absolute\", not "
                                          f"{json.dumps(fields['mode'].value)}")
    else:
        mode = fields["mode"].value
    normalise = True
    if "normalise" in fields:
        normalise = fields["normalise"].value
        if not isinstance(normalise, bool):
            problems.add(fields["normalise"].line,
                         f"normalise must be true or false, not {json.dumps(normalise)}")
    if "name" in fields and not isinstance(fields["name"].value, str):
        problems.add(fields["name"].line, "name must be a string")
    points = _points(fields.get("points"), root.line, mode, problems)
    if points is None:
        return None
    dates = {p.date for p in points}
    if len(dates) > 1:
        first_number = next(p for p in points if not p.date)
        problems.add(first_number.line, f"point {first_number.k}: points mix ISO dates and "
                                        "numbers as x; use one kind")
    seen: dict[float, int] = {}
    for p in points:
        if p.x in seen:
            problems.add(p.line, f"point {p.k} has the same x as point {seen[p.x]} "
                                 f"({_x_text(p.x, p.date)}); each x must differ")
        else:
            seen[p.x] = p.k
    if problems or mode is None:
        return None
    return Policy(mode, tuple((p.x, p.w) for p in points), normalise, dates=dates == {True})


class _FilePoint(NamedTuple):
    x: float
    w: float
    line: int
    date: bool   # x was written as an ISO date
    k: int       # 1-based position in the file's list


def _points(node: _Node | None, root_line: int, mode: str | None, problems: Problems
            ) -> list[_FilePoint] | None:
    """Every valid point of the list, or None if the list itself is unusable."""
    if node is None:
        problems.add(root_line, "missing key 'points' (a list of [x, weight] pairs)")
        return None
    if not isinstance(node.value, list):
        problems.add(node.line, "points must be a list of [x, weight] pairs")
        return None
    if not node.value:
        problems.add(node.line, "points is empty: a policy needs at least one point")
        return None
    out = []
    for k, item in enumerate(node.value, 1):
        pair = item.value
        if not isinstance(pair, list) or len(pair) != 2:
            problems.add(item.line, f"point {k} must be a pair [x, weight]")
            continue
        x_node, w_node = pair
        x = _point_x(k, x_node, mode, problems)
        w = w_node.value
        if not _is_number(w) or not math.isfinite(_float_or_inf(w)):
            problems.add(w_node.line, f"point {k}: weight must be a finite number, not "
                                      f"{_json_show(w)}")
            continue
        if w < 0:
            problems.add(w_node.line, f"point {k}: weight must be >= 0, not {w!r}")
            continue
        try:
            w = check_number(w, f"point {k}: weight", minimum=0, maximum=MAX_WEIGHT)
        except ValueError as error:
            problems.add(w_node.line, str(error))
            continue
        if x is not None:
            out.append(_FilePoint(x[0], float(w), x_node.line, x[1], k))
    return out


def _point_x(k: int, node: _Node, mode: str | None, problems: Problems
             ) -> tuple[float, bool] | None:
    value = node.value
    if _is_number(value):
        try:
            return check_number(value, f"point {k}: x", minimum=-MAX_X, maximum=MAX_X), False
        except ValueError as error:
            problems.add(node.line, str(error))
            return None
    if isinstance(value, str):
        if mode == "relative":
            problems.add(node.line, f"point {k}: x must be a number in relative mode "
                                    f"(0 = oldest, 1 = now), not {json.dumps(value)}")
            return None
        try:
            stamp = Stamp.parse(value)
        except ValueError as error:
            problems.add(node.line, f"point {k}: {error}")
            return None
        return stamp.value, stamp.is_date
    shown = "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) \
        else json.dumps(value)
    problems.add(node.line, f"point {k}: x must be a number or an ISO date, not {shown}")
    return None


def _x_json(x: float, dates: bool) -> float | str:
    if not dates:
        return x
    moment = datetime.fromtimestamp(x, tz=timezone.utc).replace(tzinfo=None)
    if moment.hour == moment.minute == moment.second == moment.microsecond == 0:
        return moment.date().isoformat()
    return moment.isoformat()


def _x_text(x: float, dates: bool) -> str:
    return str(_x_json(x, dates)) if dates else repr(x)


def presets() -> Iterable[tuple[str, Policy, str]]:
    """(letter, policy, description) of each preset, in order."""
    for letter, policy in PRESETS.items():
        yield letter, policy, PRESET_DESCRIPTIONS[letter]


__all__: Sequence[str] = (
    "MODES", "PRESETS", "PRESET_DESCRIPTIONS", "Policy", "policy_from_node", "policy_weights",
    "presets", "window_weights",
)


def document_weights(policy: Policy, times) -> np.ndarray:
    """Weights of documents at `times` under `policy`, seen from the last document's time:
    the documents play the test times and the system's final state the last model version,
    so a relative policy spans [first time, last time] (DESIGN.md 1.5, policy-weighted)."""
    times = np.asarray(times, dtype=float)
    models = np.array([times.min(), times.max()], dtype=float)
    return policy_weights(policy, models, times)[-1]


def weighted_mean(values, weights) -> float:
    """sum(w v) / sum(w); NaN when the weights sum to 0."""
    values = np.asarray(values, dtype=float)
    weights = np.asarray(weights, dtype=float)
    total = float(np.sum(weights))
    return float(np.sum(values * weights) / total) if total > 0 else math.nan
