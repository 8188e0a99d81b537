"""The four capacities of each day (UTC), as the average GPUs over the day's hours in the term:

- contracted: the allocation's GPUs;
- allocatable: what the scheduler could place work on, from the node snapshots (each holds until
  the next; hours before the first snapshot are unobserved and left out of the average);
- healthy: the allocatable GPUs on nodes passing their checks, read the same way;
- in use: the GPUs the buyer's jobs held while running.

Rounded (half up, two places) only when printed; sums are worked in GPU-hours.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from .model import Job, NodeSnapshot

HOUR = Decimal(3600)


@dataclass(frozen=True, slots=True)
class Day:
    day: date
    hours: Decimal  # the day's hours inside the term
    contracted: Decimal
    allocatable: Decimal | None
    healthy: Decimal | None
    in_use: Decimal
    in_use_gpu_hours: Decimal


def _hours(start: datetime, end: datetime) -> Decimal:
    return Decimal(max(0, int((end - start).total_seconds()))) / HOUR


def _overlap(a: datetime, b: datetime, c: datetime, d: datetime) -> Decimal:
    return _hours(max(a, c), min(b, d))


def _per_day(start: datetime, end: datetime) -> Iterable[tuple[date, datetime, datetime]]:
    day = start.replace(hour=0, minute=0, second=0, microsecond=0)
    while day < end:
        nxt = day + timedelta(days=1)
        yield day.date(), max(day, start), min(nxt, end)
        day = nxt


def _observed(
    snapshots: Sequence[NodeSnapshot], a: datetime, b: datetime, end: datetime
) -> tuple[Decimal, Decimal, Decimal]:
    """(hours covered, allocatable GPU-hours, healthy GPU-hours) in [a, b)."""
    covered = alloc = healthy = Decimal(0)
    for i, snap in enumerate(snapshots):
        until = snapshots[i + 1].at if i + 1 < len(snapshots) else end
        hours = _overlap(snap.at, until, a, b)
        covered += hours
        alloc += hours * snap.allocatable_gpus
        healthy += hours * snap.healthy_gpus
    return covered, alloc, healthy


def _in_use(jobs: Sequence[Job], a: datetime, b: datetime, until: datetime) -> Decimal:
    return sum(
        (
            _overlap(start, stop or until, a, b) * job.gpus
            for job in jobs
            for start, stop in job.running
        ),
        Decimal(0),
    )


def daily_capacities(
    *,
    start: datetime,
    end: datetime,
    contracted_gpus: int,
    snapshots: Sequence[NodeSnapshot],
    jobs: Sequence[Job],
    now: datetime | None = None,
) -> list[Day]:
    """One `Day` per UTC day of [start, end) that has begun by `now` (a job still running counts
    up to `now`, or the term's end)."""
    until = min(end, now) if now is not None else end
    ordered = sorted(snapshots, key=lambda s: s.at)
    days = []
    for day, a, b in _per_day(start, until):
        hours = _hours(a, b)
        covered, alloc, healthy = _observed(ordered, a, b, end)
        used = _in_use(jobs, a, b, until)
        days.append(
            Day(
                day, hours, Decimal(contracted_gpus),
                alloc / covered if covered else None,
                healthy / covered if covered else None,
                used / hours if hours else Decimal(0), used,
            )
        )  # fmt: skip
    return days
