"""What was observed against what was promised, per reservation: the four capacities, the start
receipts, the reclaims, and each missed promise with its diagnostic packet — the scheduler's
records and the node states of the miss's time window, so the operator starts from the evidence.

The promises checked: time to running (each job against the p95), the reclaim terms, the
health-check cadence (a node failing its checks is taken out of the pool within one cadence),
and the contracted capacity (allocatable in the scheduler every day).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.formatting import fixed

from .capacities import Day, daily_capacities
from .envelope import Envelope
from .model import NodeSnapshot, NodeState, Record, SchedulerRecords
from .receipts import Receipts, minutes, start_receipts
from .reclaims import ReclaimCheck, check_reclaims

MARGIN = timedelta(minutes=5)
MAX_ROWS = 50


@dataclass(frozen=True, slots=True)
class Miss:
    promise: str
    promised: str
    observed: str
    start: datetime
    end: datetime
    jobs: tuple[str, ...]
    nodes: tuple[str, ...]
    records: tuple[Record, ...]  # the scheduler's records of the window, at most MAX_ROWS
    node_states: tuple[tuple[datetime, NodeState], ...]


@dataclass(frozen=True, slots=True)
class Observed:
    days: tuple[Day, ...]
    receipts: Receipts
    reclaims: tuple[ReclaimCheck, ...]
    misses: tuple[Miss, ...]
    notes: tuple[str, ...]


def observe(
    *,
    start: datetime,
    end: datetime,
    contracted_gpus: int,
    envelope: Envelope,
    scheduler: Sequence[SchedulerRecords],
    snapshots: Sequence[NodeSnapshot],
    now: datetime | None = None,
) -> Observed:
    jobs = [j for s in scheduler for j in s.jobs]
    records = sorted((r for s in scheduler for r in s.records), key=lambda r: r.at)
    snaps = sorted(snapshots, key=lambda s: s.at)
    days = daily_capacities(start=start, end=end, contracted_gpus=contracted_gpus,
                            snapshots=snaps, jobs=jobs, now=now)  # fmt: skip
    # Every job's running time counts in use; receipts and reclaims are those of the window.
    submitted = [j for j in jobs if start <= j.submitted < end]
    receipts = start_receipts(
        submitted, p50=envelope.start_p50_minutes, p95=envelope.start_p95_minutes
    )
    taken = [r for s in scheduler for r in s.reclaims if start <= r.at < end]
    reclaims = check_reclaims(taken, envelope)

    def packet(promise: str, promised: str, observed: str, a: datetime, b: datetime,
               jobs: tuple[str, ...], nodes: tuple[str, ...]) -> Miss:  # fmt: skip
        return Miss(promise, promised, observed, a, b, jobs, nodes,
                    _records(records, a, b), _states(snaps, a, b, nodes))  # fmt: skip

    misses: list[Miss] = []
    for r in receipts.over_p95:
        job = next(j for j in jobs if j.key == r.job and j.source == r.source)
        misses.append(packet(
            "Time to running (p95)", f"{envelope.start_p95_minutes} min",
            f"{fixed(r.to_running_minutes)} min for {r.job}", r.submitted,
            r.started or r.submitted, (r.job,), job.nodes,
        ))  # fmt: skip
    for c in reclaims:
        if c.misses:
            back = c.reclaim.running_again_at or c.reclaim.at + timedelta(hours=1)
            misses.append(packet(
                "Reclaim terms", _terms(envelope), "; ".join(c.misses), c.reclaim.at, back,
                (c.reclaim.job,), (),
            ))  # fmt: skip
    for node, a, b in _unhealthy_in_pool(snaps, envelope.health_check_minutes):
        misses.append(packet(
            "Health-check cadence", f"a failing node out of the pool within "
            f"{envelope.health_check_minutes} min", f"{node} failing its checks and allocatable "
            f"for {fixed(minutes(a, b))} min", a, b, (), (node,),
        ))  # fmt: skip
    for day in days:
        if day.allocatable is not None and day.allocatable < day.contracted:
            a = datetime.combine(day.day, datetime.min.time(), tzinfo=start.tzinfo)
            b = a + timedelta(days=1)
            out = tuple(sorted({n for _at, n in _out_of_pool(snaps, a, b)}))
            misses.append(packet(
                "Contracted capacity allocatable", f"{fixed(day.contracted)} GPUs",
                f"{fixed(day.allocatable)} GPUs on average on {day.day}", a, b, (), out,
            ))  # fmt: skip
    notes = tuple(n for s in scheduler for n in s.notes)
    return Observed(tuple(days), receipts, tuple(reclaims), tuple(misses), notes)


def _terms(e: Envelope) -> str:
    if e.preemptible is False:
        return "running jobs are never reclaimed"
    effect = e.reclaim_effect.replace("_", ", then ") or "effect not stated"
    return f"reclaimed with {e.reclaim_notice_minutes or '?'} min notice, {effect}"


def _records(records: Sequence[Record], a: datetime, b: datetime) -> tuple[Record, ...]:
    return tuple(r for r in records if a - MARGIN <= r.at <= b + MARGIN)[:MAX_ROWS]


def _states(
    snaps: Sequence[NodeSnapshot], a: datetime, b: datetime, nodes: tuple[str, ...]
) -> tuple[tuple[datetime, NodeState], ...]:
    """The named nodes (or every node kept out) in the snapshot in force at `a` and those
    taken before `b`."""
    inside = [s for s in snaps if a < s.at <= b]
    before = [s for s in snaps if s.at <= a][-1:]

    def wanted(n: NodeState) -> bool:
        return n.node in nodes if nodes else not n.healthy

    rows = [(s.at, n) for s in before + inside for n in s.nodes if wanted(n)]
    return tuple(rows[:MAX_ROWS])


def _out_of_pool(
    snaps: Sequence[NodeSnapshot], a: datetime, b: datetime
) -> list[tuple[datetime, str]]:
    return [(at, n.node) for at, n in _states(snaps, a, b - timedelta(seconds=1), ()) if
            not n.allocatable]  # fmt: skip


def _unhealthy_in_pool(
    snaps: Sequence[NodeSnapshot], cadence: int | None
) -> list[tuple[str, datetime, datetime]]:
    """Each stretch a node stayed allocatable while failing its checks, longer than the cadence:
    from the first snapshot showing it to the first showing it healthy or out of the pool."""
    if cadence is None:
        return []
    open_since: dict[str, datetime] = {}
    out: list[tuple[str, datetime, datetime]] = []
    for snap in snaps:
        for n in snap.nodes:
            failing = n.allocatable and not n.healthy
            if failing:
                open_since.setdefault(n.node, snap.at)
            elif n.node in open_since:
                since = open_since.pop(n.node)
                if minutes(since, snap.at) > cadence:
                    out.append((n.node, since, snap.at))
    return out
