"""`common_ends`: the common head and tail never overlap, whatever repeats."""
from __future__ import annotations

import operator

from hypothesis import given, settings, strategies as st

from llgui.utils.common_ends import common_ends, equal_ends


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




@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), max_size=300), st.lists(st.integers(0, 3), max_size=300),
       st.booleans())
def test_equal_ends_of_kept_objects_are_common_ends_by_identity(new, old, as_tuple):
    """Where equal items are the same objects (a step that kept the turns it did not touch),
    `equal_ends` finds the same head and tail as the identity test pair by pair; the lists
    are long enough for its galloping and bisection to run (GALLOP 32, LINEAR 16)."""
    pool = {i: object() for i in range(4)}
    new, old = [pool[i] for i in new], [pool[i] for i in old]
    if as_tuple:
        new, old = tuple(new), tuple(old)
    assert equal_ends(new, old) == common_ends(new, old, operator.is_)


def test_equal_ends_finds_one_change_in_a_long_list():
    old = [object() for _ in range(10_000)]
    for at in (0, 1, 31, 32, 33, 1151, 5000, 9998, 9999):
        new = list(old)
        new[at] = object()
        assert equal_ends(new, old) == (at, 9999 - at)
        grown = old[:at] + [object(), object()] + old[at + 1:]
        assert equal_ends(grown, old) == (at, 9999 - at)


class _Counted:
    """Equal by value, counting the calls of its __eq__."""
    calls = 0

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        _Counted.calls += 1
        return self.value == other.value


def test_equal_ends_covers_only_equal_items_and_does_not_compare_fresh_copies_one_by_one():
    old = [_Counted(i % 7) for i in range(5000)]
    fresh = [_Counted(i % 7) for i in range(5000)]     # equal, but not the same objects
    _Counted.calls = 0
    p, s = equal_ends(fresh, old)
    assert _Counted.calls < 100                          # 5,000 would mean pair by pair
    assert all(fresh[i] == old[i] for i in range(p))
    assert all(fresh[-1 - j] == old[-1 - j] for j in range(s))
    # a copy equal but for one value: what is covered is still equal
    mixed = list(old)
    mixed[100:200] = [_Counted(i % 7) for i in range(100, 200)]
    mixed[150] = _Counted(99)
    p, s = equal_ends(mixed, old)
    assert p <= 150 and s <= 5000 - 151 and p + s <= 5000
