"""Issue 36 (gate 8): the worst-first oracle's order is found lazily (`oracles.largest_first`:
the few largest by a partition, the rest sorted only when asked for) and must be exactly the
stable sort it replaces, `np.argsort(-values, kind="stable")`, ties in index order, whatever
the size, the ties around the cut and how far it is read."""
from __future__ import annotations

from itertools import islice

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llgui.sim.oracles import largest_first


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 6), max_size=150), st.integers(1, 12), st.integers(0, 160))
def test_lazy_order_is_the_stable_sort(raw, head, read):
    values = np.array(raw, dtype=float) * 0.25     # few distinct values: many ties
    want = np.argsort(-values, kind="stable").tolist()
    assert list(largest_first(values, head)) == want
    assert list(islice(largest_first(values, head), read)) == want[:read]


def test_lazy_order_of_a_show_sized_array_with_a_nan():
    rng = np.random.default_rng(7)
    values = np.round(rng.exponential(3.0, 4000), 1)      # rounded: ties at the cut
    assert list(largest_first(values)) == np.argsort(-values, kind="stable").tolist()
    values[5] = np.nan
    assert list(largest_first(values)) == np.argsort(-values, kind="stable").tolist()
    ints = rng.integers(0, 9, 3000)                        # MT: TER edits per sentence
    assert list(largest_first(ints)) == np.argsort(-ints, kind="stable").tolist()
