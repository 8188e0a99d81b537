"""Causal lines logged before any stamped line of their file, known only to precede it.

A line without a timestamp takes its time from its stamped neighbours. At the top of a file it
has none before it, only the next stamped line after: srun's `Node failure on gpu-017` printed
before slurmstepd's `CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE`. Such a line has no
time to be ordered by, yet it surely came before that bound, and so before anything the bound
does not follow.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from .model import Event


def upper_bound(e: Event) -> datetime | None:
    """The time `e` was logged at or before, when that is all its neighbours say."""
    low, high = e.detail.get("time_range") or [None, None]
    if e.time_utc is not None or low is not None or high is None:
        return None
    return datetime.fromisoformat(high)


def logged_before(timed: list[Event], untimed: Iterable[Event]) -> Event | None:
    """The earliest-logged of `untimed` that surely precedes `timed[0]` (the earliest timed
    causal event): its bound is before that event's own time, or is that time and it sits above
    it in the same file. A line of a rank some timed event already speaks for is that failure
    told twice (torchrun's agent line above its summary's entry): the timed one keeps its place."""
    first = timed[0]
    if first.time_utc is None or first.detail.get("time_inferred"):
        return None
    told = {e.rank for e in timed if e.rank is not None}
    found: list[tuple[datetime, int, Event]] = []
    for e in untimed:
        bound = upper_bound(e)
        if bound is None or bound > first.time_utc or e.rank in told:
            continue
        if bound == first.time_utc and (e.source != first.source or e.line_no > first.line_no):
            continue
        found.append((bound, e.line_no, e))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None
