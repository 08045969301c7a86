"""Issue 36, fifth pass: a lane's level of detail (`lanes.dominant_spans`), checked against a
per-column computation written here with plain interval arithmetic: each pixel column takes
the colour covering most of it, at a height of the share of the column covered, rounded up
to quarters, and no column holding speech (or an error) is left blank."""
from __future__ import annotations

import math

import numpy as np
import pytest

from llgui.core.display.lanes import dominant_spans


def _by_column(parts, lo, hi, pixel, steps=4):
    """(colour index or None, level) per column, from each bar's overlap with each column."""
    columns = math.ceil((hi - lo) / pixel - 1e-9)
    colours = list(dict.fromkeys(c for c, _ in parts))
    out = []
    for k in range(columns):
        a, b = lo + k * pixel, lo + (k + 1) * pixel
        cover = [0.0] * len(colours)
        for colour, (x0, width) in parts:
            for x, w in zip(x0, width):
                cover[colours.index(colour)] += max(0.0, min(b, x + w) - max(a, x)) / pixel
        share = min(sum(cover), 1.0)
        level = math.ceil(share * steps - 1e-9)
        best = max(range(len(colours)), key=lambda i: (cover[i], -i)) if level else None
        out.append((best, level))
    return out, colours


def _expand(spans, colours, lo, hi, pixel, steps=4):
    """The spans back to (colour index or None, level) per column."""
    columns = math.ceil((hi - lo) / pixel - 1e-9)
    out = [(None, 0)] * columns
    for colour, x0, width, share in spans:
        for x, w, s in zip(x0, width, share):
            first = round((x - lo) / pixel)
            assert abs(lo + first * pixel - x) < 1e-6   # spans start on a column's edge
            n = round(w / pixel)
            assert abs(n * pixel - w) < 1e-6 and n >= 1   # whole columns
            for k in range(first, first + n):
                assert out[k] == (None, 0)   # no column drawn twice
                out[k] = (colours.index(colour), round(s * steps))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_each_column_takes_the_colour_covering_most_of_it(seed):
    rng = np.random.default_rng(seed)
    colours = ["#a", "#b", "#c"][: 1 + seed % 3]
    parts = []
    for colour in colours:
        n = int(rng.integers(1, 40))
        x0 = np.sort(rng.uniform(-5, 105, n))
        # mostly short turns (a fraction of a column), some spanning many columns
        width = np.where(rng.random(n) < 0.15, rng.uniform(3, 20, n), rng.uniform(0.01, 1.5, n))
        parts.append((colour, (x0, width, np.zeros(n), np.ones(n))))
    lo, hi, pixel = 0.0, 100.0, 100.0 / 73
    spans = dominant_spans(parts, lo, hi, pixel)
    expected, names = _by_column([(c, (p[0], p[1])) for c, p in parts], lo, hi, pixel)
    assert _expand(spans, names, lo, hi, pixel) == expected


def test_a_short_turn_alone_in_its_column_is_not_lost():
    # 0.05 s of speech in a 10-s column: a quarter of the lane's height, in its colour
    parts = [("#a", (np.array([3.0, 47.0]), np.array([0.05, 30.0]))),
             ("#b", (np.array([81.0]), np.array([0.2])))]
    spans = dict((c, (x, w, s)) for c, x, w, s in dominant_spans(parts, 0.0, 100.0, 10.0))
    assert spans["#a"][0].tolist() == [0.0, 40.0, 50.0, 70.0]
    assert spans["#a"][2].tolist() == [0.25, 0.5, 1.0, 0.75]   # 0.005, 0.3, 1, 0.7 s a s
    assert spans["#b"][0].tolist() == [80.0] and spans["#b"][2].tolist() == [0.25]


def test_no_bars_no_spans():
    assert dominant_spans([], 0.0, 10.0, 1.0) == []
    assert dominant_spans([("#a", (np.zeros(0), np.zeros(0)))], 0.0, 10.0, 1.0) == []
