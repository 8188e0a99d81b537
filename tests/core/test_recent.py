"""What a process keeps for itself: the most recently read values, within their weight."""

from __future__ import annotations

from core.recent import Recent


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
