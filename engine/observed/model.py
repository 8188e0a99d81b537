"""What the parsers read: jobs with their submit, admit and running times, reclaims, node
snapshots and result rows, each kept with the file and line it came from so a miss can quote it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Record:
    """One line of the scheduler's own record, as evidence a diagnostic packet quotes."""

    at: datetime
    subject: str  # the workload, job or node it is about
    what: str  # the scheduler's reason or state (Admitted, Preempted, PREEMPTED, NotReady…)
    detail: str
    source: str
    line: int


@dataclass(frozen=True, slots=True)
class Job:
    """One job as the scheduler saw it: a Kueue workload or a Slurm job."""

    key: str
    gpus: int
    submitted: datetime
    admitted: datetime | None
    started: datetime | None
    # Each stretch the job ran: from its pods (or its allocation) starting to the next
    # preemption, eviction or end; an open end is still running when the records stop.
    running: tuple[tuple[datetime, datetime | None], ...]
    completed: bool
    nodes: tuple[str, ...]
    source: str
    line: int


@dataclass(frozen=True, slots=True)
class Reclaim:
    """Capacity taken back from a running job, and what became of the job."""

    job: str
    at: datetime
    gpus: int
    reason: str
    requeued: bool
    running_again_at: datetime | None
    source: str
    line: int


@dataclass(frozen=True, slots=True)
class NodeState:
    node: str
    gpus: int
    allocatable: bool  # in the scheduler's pool: registered, not cordoned or drained
    healthy: bool  # allocatable and passing its checks (Ready, no failing condition or taint)
    why: str  # what keeps it out, for the packet; "" when healthy


@dataclass(frozen=True, slots=True)
class NodeSnapshot:
    at: datetime
    nodes: tuple[NodeState, ...]
    source: str
    line: int

    @property
    def allocatable_gpus(self) -> int:
        return sum(n.gpus for n in self.nodes if n.allocatable)

    @property
    def healthy_gpus(self) -> int:
        return sum(n.gpus for n in self.nodes if n.healthy)


@dataclass(frozen=True, slots=True)
class SchedulerRecords:
    """Everything one scheduler file says."""

    jobs: tuple[Job, ...] = ()
    reclaims: tuple[Reclaim, ...] = ()
    records: tuple[Record, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResultRow:
    at: datetime
    job: str
    step: int
    tokens: int
    accepted: bool
    line: int


@dataclass(frozen=True, slots=True)
class Results:
    source: str
    rows: tuple[ResultRow, ...] = field(default=())
