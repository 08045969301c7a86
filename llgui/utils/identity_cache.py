"""The last few results of a function of immutable objects, keyed by the objects' identity.

A walkthrough shares its turn tuples between steps, and a step's view asks several functions
for results on the same tuples (their arrays, the DER sweep, lane geometry, the per-speaker
breakdown); hashing 10,000 turns to find them would cost what it saves. Each entry keeps its
objects alive, so an id cannot be reused while the entry exists, and a hit checks that the
objects are the very ones stored. Thread-safe (workers and the event loop share them); the
entry least recently used goes first (the reference lane's geometry, read at every step, was
stored first and so dropped first when the oldest went: the window then rebuilt it on the
event loop, 60-90 ms on a 10-hour show).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable


class IdentityCache:
    def __init__(self, size: int):
        self._size = size
        self._entries: OrderedDict[tuple, tuple[tuple, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, objects: tuple, extra: tuple[Hashable, ...] = (), default: Any = None) -> Any:
        """The value stored for these very `objects` (and the hashable `extra`), else
        `default`."""
        key = tuple(map(id, objects)) + extra
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objects)):
            return hit[1]
        return default

    def put(self, objects: tuple, extra: tuple[Hashable, ...], value: Any) -> Any:
        with self._lock:
            self._entries[tuple(map(id, objects)) + extra] = (objects, value)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value

    def get_or_make(self, objects: tuple, extra: tuple[Hashable, ...],
                    make: Callable[[], Any]) -> Any:
        """The stored value, or `make()` stored and returned (made outside the lock: two
        threads may both make it, and either result is the same)."""
        found = self.get(objects, extra, _MISSING)
        return self.put(objects, extra, make()) if found is _MISSING else found


_MISSING = object()
