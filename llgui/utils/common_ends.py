"""The common head and tail of two sequences, found in C: `common_ends(new, old, same)`.

A step changes a few items of thousands (a system resends its whole turn list; the scorer
gets the whole hypothesis): what lies between the common head and tail is all that needs
reading or rescoring. `same` is `operator.is_` (the same objects) or `operator.eq`.
"""
from __future__ import annotations

from itertools import islice
from typing import Callable, Sequence


def common_ends(new: Sequence, old: Sequence, same: Callable[[object, object], bool]
                ) -> tuple[int, int]:
    """(p, s): the first p items of `new` and `old` are `same` pairwise, and so are their last
    s items, with p + s <= min(len(new), len(old)) (the tail never overlaps the head)."""
    k = min(len(new), len(old))
    head = list(map(same, new, old))
    p = head.index(False) if False in head else k
    tail = list(map(same, islice(reversed(new), k - p), reversed(old)))
    s = tail.index(False) if False in tail else len(tail)
    return p, s


GALLOP = 32
"""The first slice `equal_ends` compares; each next one is twice as long."""
LINEAR = 16
"""Below this many pairs `equal_ends` tests identity pair by pair."""


def _equal(new: Sequence, old: Sequence, lo: int, hi: int, tail: bool) -> bool:
    """Pairs lo..hi-1 (counted from the end with `tail`) equal: the last pair the same
    object, then the slices equal (Python's comparison tests identity before ==)."""
    if tail:
        n, m = len(new), len(old)
        return new[n - hi] is old[m - hi] and new[n - hi:n - lo] == old[m - hi:m - lo]
    return new[hi - 1] is old[hi - 1] and new[lo:hi] == old[lo:hi]


def _run(new: Sequence, old: Sequence, k: int, tail: bool) -> int:
    """The length of a run of equal pairs from the head (or the tail), at most k."""
    lo, step = 0, GALLOP
    while True:                        # gallop: slices of doubling length
        if lo >= k:
            return k
        hi = min(k, lo + step)
        if not _equal(new, old, lo, hi, tail):
            break
        lo, step = hi, 2 * step
    while hi - lo > LINEAR:            # something in lo..hi-1 is not the same object
        mid = (lo + hi) // 2
        if _equal(new, old, lo, mid, tail):
            lo = mid
        else:
            hi = mid
    n, m = len(new), len(old)
    for i in range(lo, hi):
        if (new[n - 1 - i] is not old[m - 1 - i]) if tail else (new[i] is not old[i]):
            return i
    return hi


def equal_ends(new: Sequence, old: Sequence) -> tuple[int, int]:
    """(p, s) as `common_ends`, for sequences (tuples, lists) whose unchanged items are
    mostly the same objects (a turn list in which a step replaced a few turns): the first p
    and the last s pairs are equal, p + s <= min(len(new), len(old)).

    Slices are compared in C, so a pair of the same object costs a pointer test (~6 ns; a
    `map(operator.is_, ...)` costs ~35 ns a pair: 0.8 ms on a 10-hour show's 10,000 turns).
    Each slice's last pair must be the same object before the slice is compared, and the
    search ends at the first pair that is not the same object: a list of fresh objects equal
    to the old ones (a system that rebuilt every turn) stops at its first probe instead of
    calling a Python `__eq__` per pair. So p and s may stop short of the longest equal ends
    where equal items are not the same objects; what they cover is always equal."""
    k = min(len(new), len(old))
    p = _run(new, old, k, False)
    return p, _run(new, old, k - p, True)
