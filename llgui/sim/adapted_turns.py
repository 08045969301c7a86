"""A diarization system's adapted turn lists made into the session's turns, one document's.

What the session makes of a list (`AdaptedTurns.make`): the turns sorted as tuples (the
order of Turn's fields), empty ones dropped, each `Turn` made once per document and reused
whenever the same (start, end, speaker) comes again; a list whose latest end lies more than an
hour past the document is handed to the caller's time check (which names the turn).

A show has thousands of turns and a step changes a few: the list `TurnReuse` read is mostly
the previous list's tuples, the same objects. When the previous list was clean (sorted, no
empty turn), its common head and tail with the new one (found by identity, in C) keep their
turns; only the middle is checked (its turns not empty, the order strict through both joins)
and made. Anything else (a list to sort or filter, a mostly new list, an end near the limit)
takes the whole path, which is what the session always did.
"""
from __future__ import annotations

import operator
from itertools import compress, islice, repeat
from typing import Callable, Iterable

from llgui.core.types import Turn

_START, _END = operator.itemgetter(0), operator.itemgetter(1)
LATE = 3600.0
"""Seconds past the document's end a turn may reach before the time check looks at it."""


class AdaptedTurns:
    """One document's turn lists as turns (see the module text)."""

    def __init__(self, extent_end: float, check: Callable[[list], None],
                 known: Iterable[Turn] = ()):
        self.limit = float(extent_end) + LATE
        self.check = check                    # the whole time check: raises, naming the turn
        # (start, end, speaker) -> the Turn made once; `known`: turns already made (h0's)
        self.cache: dict[tuple, Turn] = {(t.start, t.end, t.speaker): t for t in known}
        self.parsed: tuple | None = None      # the last list given ...
        self.turns: tuple[Turn, ...] = ()     # ... and its turns
        self.clean = False                    # ... which were its items one for one
        self.bound = 0.0                      # an upper bound of its latest end

    def make(self, parsed: tuple) -> tuple[Turn, ...]:
        if parsed is self.parsed:             # the list of the step before (TurnReuse)
            return self.turns
        turns = self._spliced(parsed) if self.clean else None
        if turns is None:
            turns = self._whole(parsed)
        self.parsed, self.turns = parsed, turns
        return turns

    def _whole(self, parsed) -> tuple[Turn, ...]:
        raw = list(parsed)
        clean = True
        if not all(map(operator.lt, map(_START, raw), map(_END, raw))):
            raw = [t for t in raw if t[1] > t[0]]
            clean = False
        if not all(map(operator.lt, raw, islice(raw, 1, None))):  # mostly sorted already
            raw.sort()
            clean = False
        latest = max(map(_END, raw), default=0.0)
        if raw and latest > self.limit:   # ends > starts
            self.check([x for t in raw for x in (t[0], t[1])])
        cache = self.cache
        turns = list(map(cache.get, raw))
        for i in compress(range(len(turns)), map(operator.is_, turns, repeat(None))):
            turns[i] = cache.setdefault(raw[i], Turn(*raw[i]))
        self.clean, self.bound = clean, latest
        return tuple(turns)

    def _spliced(self, parsed) -> tuple[Turn, ...] | None:
        """The turns of `parsed` from the previous (clean) list's where the items are the
        same objects; None when the whole path must decide."""
        before = self.parsed
        n, m = len(parsed), len(before)
        k = min(n, m)
        head = list(map(operator.is_, parsed, before))
        p = head.index(False) if False in head else k
        tail = list(map(operator.is_, islice(reversed(parsed), k - p), reversed(before)))
        s = tail.index(False) if False in tail else len(tail)
        if 2 * (p + s) < n:
            return None                        # mostly new: the whole path
        middle = parsed[p:n - s]
        if not all(map(operator.lt, map(_START, middle), map(_END, middle))):
            return None                        # an empty turn to drop
        joined = before[p - 1:p] + middle + before[m - s:m - s + 1]   # with both neighbours
        if not all(map(operator.lt, joined, islice(joined, 1, None))):
            return None                        # to sort
        bound = max(self.bound, max(map(_END, middle), default=0.0))
        if bound > self.limit:
            return None                        # the time check looks at it
        cache = self.cache
        made = tuple([cache.get(t) or cache.setdefault(t, Turn(*t)) for t in middle])
        self.bound = bound
        return self.turns[:p] + made + self.turns[m - s:]
