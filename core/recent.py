"""A bounded, least-recently-read map of values each process keeps for itself.

Sound only for keys that name everything the value was built from (a file's digest, say):
nothing here is invalidated, only evicted, so callers must treat what they get as read-only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class Recent:
    """Values weighed in the caller's units, the least recently read dropped past `limit`; a
    lock makes it safe for threaded servers."""

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
