"""Per-rank step times: CSV with a `rank,node,step,seconds[,timestamp]` header, any column order.

Built for 4,096+ ranks: a plain split per line (no csv module dialect sniffing), one list of
seconds per rank, statistics computed once per rank at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

from engine.evidence.parsers.base import StepTimesError, decode_text, median, percentile
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "step-times"
REQUIRED = ("rank", "node", "step", "seconds")


@dataclass(frozen=True)
class RankSteps:
    rank: int
    node: str
    steps: int
    median: float
    mean: float
    p95: float
    min: float
    max: float
    line: int  # first line of this rank
    total: float = 0.0  # the rank's logged step seconds added up


@dataclass(frozen=True)
class StepTimesResult:
    KIND: ClassVar[str] = KIND
    samples: int
    ranks: int
    per_rank: tuple[RankSteps, ...]
    run_median: float | None  # median of the per-rank medians
    nodes: tuple[str, ...] = ()
    has_timestamp: bool = False
    # How long the run lasted: first to last timestamp where the file has them, else the
    # longest rank's logged step seconds added up (a lower bound when steps are sampled).
    duration_s: float | None = None
    duration_source: str | None = None  # "timestamps" | "step sum"
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    first = text.lstrip("\ufeff \n").split("\n", 1)[0].lower()
    names = {c.strip().strip('"') for c in first.split(",")}
    if set(REQUIRED) <= names:
        return 0.95
    if {"rank", "step"} <= names and ("seconds" in names or "node" in names):
        return 0.6
    return 0.0


def _header(lines: list[str]) -> tuple[int, list[str]]:
    """(index, lower-cased column names) of the first line that is not a comment."""
    header_at = next((i for i, ln in enumerate(lines) if ln.strip() and ln[0] != "#"), None)
    if header_at is None:
        raise StepTimesError("empty step-time file", kind=KIND)
    header = [c.strip().strip('"').lower() for c in lines[header_at].split(",")]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise StepTimesError(
            f"header lacks column(s) {', '.join(missing)}; expected rank,node,step,seconds",
            line=header_at + 1,
            kind=KIND,
        )
    if len(set(header)) != len(header):
        raise StepTimesError("duplicate column names in header", line=header_at + 1, kind=KIND)
    return header_at, header


@dataclass
class _Samples:
    """Step times per rank as the rows are read, with each rank's node and first line."""

    seconds: dict[int, list[float]] = field(default_factory=dict)
    nodes: dict[int, str] = field(default_factory=dict)
    first_line: dict[int, int] = field(default_factory=dict)
    count: int = 0
    first_time: float | None = None
    last_time: float | None = None

    def seen_at(self, when: float) -> None:
        if self.first_time is None or when < self.first_time:
            self.first_time = when
        if self.last_time is None or when > self.last_time:
            self.last_time = when


def _timestamp(cell: str, lineno: int) -> float:
    """Seconds since the epoch from an ISO 8601 time ('2026-11-04T10:00:00Z') or a number."""
    text = cell.strip().strip('"')
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(seconds):
            raise StepTimesError(f"timestamp {text[:40]!r} is not a time", line=lineno, kind=KIND)
        return seconds
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise StepTimesError(
            f"timestamp must be ISO 8601 or seconds since the epoch, found {text[:40]!r}",
            line=lineno,
            kind=KIND,
        ) from None
    if when.tzinfo is None:
        raise StepTimesError(
            f"timestamp {text[:40]!r} has no time zone (add Z for UTC)", line=lineno, kind=KIND
        )
    return when.timestamp()


def _rank_and_seconds(
    cells: list[str], lineno: int, columns: tuple[int, int, int]
) -> tuple[int, float]:
    i_rank, i_step, i_sec = columns
    try:
        rank = int(cells[i_rank])
        int(cells[i_step])
        value = float(cells[i_sec])
    except ValueError:
        raise StepTimesError(
            "rank and step must be integers and seconds a number; found "
            f"rank={cells[i_rank].strip()!r} step={cells[i_step].strip()!r} "
            f"seconds={cells[i_sec].strip()!r}",
            line=lineno,
            kind=KIND,
        ) from None
    if rank < 0 or not (value >= 0.0) or math.isinf(value):
        raise StepTimesError(
            f"rank must be >= 0 and seconds a finite non-negative number (rank={rank}, "
            f"seconds={value})",
            line=lineno,
            kind=KIND,
        )
    return rank, value


def _read_rows(lines: list[str], header_at: int, header: list[str]) -> _Samples:
    found = _Samples()
    ncols, i_node = len(header), header.index("node")
    i_time = header.index("timestamp") if "timestamp" in header else None
    columns = (header.index("rank"), header.index("step"), header.index("seconds"))
    for idx in range(header_at + 1, len(lines)):
        line = lines[idx]
        if not line or line.isspace() or line[0] == "#":
            continue
        cells = line.split(",")
        if len(cells) != ncols:
            raise StepTimesError(
                f"expected {ncols} comma-separated values, found {len(cells)}",
                line=idx + 1,
                kind=KIND,
            )
        rank, value = _rank_and_seconds(cells, idx + 1, columns)
        bucket = found.seconds.get(rank)
        if bucket is None:
            bucket = found.seconds[rank] = []
            node = cells[i_node].strip().strip('"')
            if not node:
                raise StepTimesError(f"empty node for rank {rank}", line=idx + 1, kind=KIND)
            found.nodes[rank] = node
            found.first_line[rank] = idx + 1
        bucket.append(value)
        found.count += 1
        if i_time is not None:
            found.seen_at(_timestamp(cells[i_time], idx + 1))
    return found


def _per_rank(found: _Samples) -> tuple[RankSteps, ...]:
    per_rank: list[RankSteps] = []
    for rank in sorted(found.seconds):
        values = sorted(found.seconds[rank])
        per_rank.append(
            RankSteps(
                rank=rank,
                node=found.nodes[rank],
                steps=len(values),
                median=median(values),
                mean=math.fsum(values) / len(values),
                p95=percentile(values, 95.0),
                min=values[0],
                max=values[-1],
                line=found.first_line[rank],
                total=math.fsum(values),
            )
        )
    return tuple(per_rank)


def parse(text: str | bytes) -> StepTimesResult:
    text = decode_text(text, kind=KIND, error=StepTimesError)
    lines = text.split("\n")
    header_at, header = _header(lines)
    found = _read_rows(lines, header_at, header)
    if not found.count:
        raise StepTimesError("header without any step-time rows", line=header_at + 1, kind=KIND)
    per_rank = _per_rank(found)
    medians = sorted(r.median for r in per_rank)
    if found.first_time is not None and found.last_time is not None:
        duration, source = found.last_time - found.first_time, "timestamps"
    else:
        duration, source = max(r.total for r in per_rank), "step sum"
    return StepTimesResult(
        samples=found.count,
        ranks=len(per_rank),
        per_rank=per_rank,
        run_median=median(medians),
        nodes=tuple(dict.fromkeys(found.nodes[r] for r in sorted(found.nodes))),
        has_timestamp="timestamp" in header,
        duration_s=duration,
        duration_source=source,
    )
