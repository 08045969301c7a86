"""`common_ends`: the common head and tail never overlap, whatever repeats."""
from __future__ import annotations

import operator

from hypothesis import given, settings, strategies as st

from llgui.utils.common_ends import common_ends


def test_hand_cases():
    eq = operator.eq
    assert common_ends([1, 2, 3], [1, 2, 3], eq) == (3, 0)
    assert common_ends([1, 9, 3], [1, 2, 3], eq) == (1, 1)
    assert common_ends([1, 1], [1], eq) == (1, 0)          # the tail does not reuse the head
    assert common_ends([], [1, 2], eq) == (0, 0)
    a, b = object(), object()
    assert common_ends([a, b], [a, object()], operator.is_) == (1, 0)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), max_size=12), st.lists(st.integers(0, 3), max_size=12))
def test_the_ends_are_the_longest_that_fit(new, old):
    p, s = common_ends(new, old, operator.eq)
    assert p + s <= min(len(new), len(old))
    assert new[:p] == old[:p] and (s == 0 or new[len(new) - s:] == old[len(old) - s:])
    # the plain definition: the longest head, then the longest tail in what is left
    k = min(len(new), len(old))
    want_p = next((i for i in range(k) if new[i] != old[i]), k)
    want_s = next((j for j in range(k - want_p) if new[-1 - j] != old[-1 - j]), k - want_p)
    assert (p, s) == (want_p, want_s)
