"""Values kept under keys that name what they were built from: built once, then read back."""

from __future__ import annotations

import uuid

from django.core.cache import cache

from core.kept import Recent, kept, recent


def _key() -> str:
    return f"test-kept:{uuid.uuid4()}"


def test_a_value_is_built_once_and_then_read_back():
    key, builds = _key(), []

    def build() -> dict[str, int]:
        builds.append(1)
        return {"cells": 50_000}

    first = kept(key, build, seconds=60)
    again = kept(key, build, seconds=60)
    assert first == again == {"cells": 50_000}
    assert len(builds) == 1
    assert cache.get(key) == {"cells": 50_000}  # another process reads the shared copy


def test_another_process_reads_the_shared_copy_without_building():
    key = _key()
    cache.set(key, ["built elsewhere"], 60)
    assert kept(key, lambda: ["built here"], seconds=60) == ["built elsewhere"]
    recent.clear()
    cache.delete(key)
    assert kept(key, lambda: ["built here"], seconds=60) == ["built here"]


def test_the_process_keeps_its_most_recently_read_values_within_its_weight():
    memo = Recent(limit=300)
    memo.put("run-1", "a", 200)
    memo.put("run-2", "b", 50)
    assert memo.get("run-1") == "a"  # read last, so run-2 is the oldest now
    memo.put("run-3", "c", 100)
    assert memo.get("run-2") is None
    assert memo.get("run-1") == "a" and memo.get("run-3") == "c"
    memo.put("huge", "z", 301)  # heavier than the whole limit: not kept, nothing evicted
    assert memo.get("huge") is None and memo.get("run-1") == "a"
