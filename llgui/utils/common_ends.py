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
