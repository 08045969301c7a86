"""Issue 36 (gate 8): `IncrementalDER.advance` reads a new turn list's arrays only where it
differs from the current one (the turns of a common head and tail are the same objects: their
arrays are taken from the current ones). The arrays must be those of the whole list read
afresh, and the components those of a full sweep, for lists that share a head, a tail, both,
or nothing with the current one."""
from __future__ import annotations

import random

import numpy as np
import pytest

from llgui.core.diarization.der import der_components
from llgui.core.diarization.incremental import IncrementalDER, _raw
from llgui.core.types import Turn
from tests.core.diarization.test_incremental import assert_same, turns


@pytest.mark.parametrize("seed", range(12))
def test_arrays_spliced_on_advance_are_the_whole_lists(seed):
    rng = random.Random(seed)
    reference = turns(rng, "ABC", 40)
    inc = IncrementalDER(reference, turns(rng, "abcd", 40))
    for _ in range(10):
        current = list(inc.hypothesis)
        i = rng.randrange(len(current))
        j = min(len(current), i + rng.choice([0, 1, 3]))
        t = current[i]
        new = [Turn(t.start, t.end, rng.choice("abcde")) for _ in range(rng.choice([0, 1, 2]))]
        if rng.random() < 0.2:                            # mostly new: read whole
            current = [Turn(x.start, x.end, x.speaker) for x in current]
        whole = tuple(current[:i] + new + current[j:]) or (Turn(1.0, 2.0, "a"),)
        got = inc.advance(whole)
        for mine, fresh in zip(inc._raw, _raw(whole)):
            assert mine.dtype == fresh.dtype
            assert np.array_equal(mine, fresh)
        assert_same(got, der_components(reference, whole))


@pytest.mark.parametrize("seed", range(40))
def test_first_difference_found_by_chunks_is_the_plain_one(seed):
    """`_first_differing` (times at once, labels in growing chunks, a known-equal head
    skipped) gives the first index where any column differs, as one comparison does."""
    from llgui.core.diarization.incremental import _first_differing

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 700))
    x = [rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float),
         np.array([f"s{v}" for v in rng.integers(0, 2, n)] or [], dtype=object)]
    y = [a.copy() for a in x]
    for _ in range(int(rng.integers(0, 3))):
        if n:
            at, column = int(rng.integers(0, n)), int(rng.integers(0, 3))
            y[column][at] = "s9" if column == 2 else 7.0
    differs = (x[0] != y[0]) | (x[1] != y[1]) | (x[2] != y[2])
    want = int(np.argmax(differs)) if differs.any() else n
    assert _first_differing(x, y, 0) == want
    assert _first_differing(x, y, int(rng.integers(0, want + 1))) == want
