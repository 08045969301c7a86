"""The identity cache the step views share: a hit needs the very objects, not equal ones."""
from __future__ import annotations

from llgui.utils.identity_cache import IdentityCache


def test_a_hit_needs_the_same_objects_and_the_oldest_goes_first():
    cache = IdentityCache(2)
    a, equal_to_a = (1.0, 2.0), tuple([1.0, 2.0])
    made = []
    assert cache.get_or_make((a,), ("x",), lambda: made.append(1) or "A") == "A"
    assert cache.get_or_make((a,), ("x",), lambda: made.append(1) or "again") == "A"
    assert cache.get((equal_to_a,), ("x",)) is None          # equal, not identical
    assert cache.get((a,), ("y",)) is None                   # another `extra`
    cache.put((equal_to_a,), ("x",), "B")
    cache.put((a,), ("z",), "C")                             # the third entry: `a, x` goes
    assert cache.get((a,), ("x",)) is None and cache.get((a,), ("z",)) == "C"
    assert made == [1]
