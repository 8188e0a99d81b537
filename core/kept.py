"""Values that never change once built, kept under keys that name what they were built from.

The shared cache (Redis in production) lets every process reuse one build. Each process also
keeps the values it read last, already unpickled: reading a 20-bid comparison back from the
cache took a third of its API call, and a 200-bid one about 25 ms of its page.

Sound only for keys that change whenever the value would (a finished scoring run's id and
finishing instant, say): nothing here is invalidated, only evicted, so callers must treat what
they get as read-only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

T = TypeVar("T")

#: What one process keeps, in the callers' units of weight (a comparison weighs its bid count:
#: 600 is three 200-bid comparisons, about 40 MB of objects).
PROCESS_WEIGHT_LIMIT = 600


class Recent:
    """A bounded, least-recently-read map; a lock makes it safe for threaded servers."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: str, value: Any, weight: int) -> None:
        weight = max(1, weight)
        if weight > self.limit:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while self._weight > self.limit:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weight = 0


recent = Recent(PROCESS_WEIGHT_LIMIT)


def kept(key: str, build: Callable[[], T], *, seconds: int, weight: int = 1) -> T:
    """The value under `key`: from this process, else the shared cache, else `build()` (then
    stored in both). `seconds` is how long the shared cache keeps it after a build."""
    value = recent.get(key)
    if value is None:
        value = cache.get(key)
        if value is None:
            value = build()
            cache.set(key, value, seconds)
        recent.put(key, value, weight)
    return value
