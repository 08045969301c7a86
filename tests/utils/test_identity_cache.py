"""The identity cache the step views share: a hit needs the very objects, not equal ones, and
the entry least recently used goes first."""
from __future__ import annotations

from llgui.utils.identity_cache import IdentityCache


def test_a_hit_needs_the_same_objects_and_the_least_recently_used_goes_first():
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


def test_an_entry_read_again_outlives_a_newer_one():
    cache = IdentityCache(2)
    reference, step1, step2 = (1,), (2,), (3,)
    cache.put((reference,), (), "R")   # stored first, read at every step
    cache.put((step1,), (), "S1")
    assert cache.get((reference,)) == "R"
    cache.put((step2,), (), "S2")      # the third entry: step 1's goes, not the reference's
    assert cache.get((reference,)) == "R"
    assert cache.get((step1,)) is None and cache.get((step2,)) == "S2"
