"""Start receipts: each job's submit, admission and running times against the promised time to
running (p50 and p95 in minutes). Percentiles are nearest-rank: the p95 of n receipts is the
⌈0.95 n⌉-th shortest, so every printed figure is one of the receipts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from .model import Job

MINUTE = Decimal(60)


@dataclass(frozen=True, slots=True)
class Receipt:
    job: str
    gpus: int
    submitted: datetime
    admitted: datetime | None
    started: datetime | None
    queued_minutes: Decimal | None  # submit → admission
    to_running_minutes: Decimal | None  # submit → running
    within_p95: bool | None  # None: no promise, or not running yet
    source: str
    line: int


@dataclass(frozen=True, slots=True)
class Receipts:
    rows: tuple[Receipt, ...]
    promised_p50: int | None
    promised_p95: int | None
    observed_p50: Decimal | None
    observed_p95: Decimal | None

    @property
    def over_p95(self) -> tuple[Receipt, ...]:
        return tuple(r for r in self.rows if r.within_p95 is False)


def minutes(a: datetime, b: datetime) -> Decimal:
    return Decimal(int((b - a).total_seconds())) / MINUTE


def nearest_rank(values: Sequence[Decimal], q: float) -> Decimal | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def start_receipts(jobs: Sequence[Job], *, p50: int | None, p95: int | None) -> Receipts:
    rows = []
    for job in sorted(jobs, key=lambda j: (j.submitted, j.key)):
        running = minutes(job.submitted, job.started) if job.started else None
        rows.append(
            Receipt(
                job.key, job.gpus, job.submitted, job.admitted, job.started,
                minutes(job.submitted, job.admitted) if job.admitted else None, running,
                None if p95 is None or running is None else running <= p95,
                job.source, job.line,
            )
        )  # fmt: skip
    waits = [r.to_running_minutes for r in rows if r.to_running_minutes is not None]
    return Receipts(tuple(rows), p50, p95, nearest_rank(waits, 0.5), nearest_rank(waits, 0.95))
