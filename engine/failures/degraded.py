"""Degraded throughput (S2) from per-rank step times, by the terms' definition: the median step
time over the agreed window (minutes of the log's own timestamps) stays at least the agreed
percentage above the pre-incident baseline. A lone slow step is a blip and never opens an S2.

Two shapes are read: the burn-in step-times CSV (`rank,node,step,seconds[,timestamp]`, any
column order) and the plain CSV training jobs log (`time,step,step_seconds[,rank]`). Either needs
a timestamp column: the window is measured in minutes. Ranks are placed on nodes by the file's
`node` column, else by a rank map (`rankmap.parse_rank_map`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.formatting import duration

from .errors import FailureInputError
from .rankmap import RankMap
from .window import StepRecord, _when, first_rise

_TIME = ("timestamp", "time", "time_utc", "utc", "wall_time", "datetime", "end_time")
_SECONDS = ("seconds", "step_seconds", "step_time", "duration_s")
SLOWEST = 8
# A rank "stands out" when its median in the window is this much above the ranks' median.
STANDS_OUT_PCT = 2.0


@dataclass(frozen=True, slots=True)
class RankRow:
    rank: int | None
    node: str
    step: int
    at: datetime
    seconds: float


@dataclass(slots=True)
class Degraded:
    """What the detector found; `qualifies` is True only for a sustained rise."""

    qualifies: bool
    threshold_pct: float
    window_minutes: float
    baseline_s: float
    limit_s: float
    steps: int
    ranks: int
    message: str
    window_start: datetime | None = None
    window_end: datetime | None = None
    first_step: int | None = None
    median_s: float | None = None
    slowest: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    blip: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "qualifies": self.qualifies,
            "threshold_pct": self.threshold_pct,
            "window_minutes": self.window_minutes,
            "baseline_s": round(self.baseline_s, 4),
            "limit_s": round(self.limit_s, 4),
            "steps": self.steps,
            "ranks": self.ranks,
            "message": self.message,
            "window_start": self.window_start.isoformat() if self.window_start else None,
            "window_end": self.window_end.isoformat() if self.window_end else None,
            "first_step": self.first_step,
            "median_s": round(self.median_s, 4) if self.median_s is not None else None,
            "slowest": self.slowest,
            "nodes": self.nodes,
            "blip": self.blip,
        }


def parse_rank_steps(data: bytes | str, *, name: str = "step times") -> list[RankRow]:
    """Per-rank rows, each with its UTC time; errors name the file and the line."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = [
        (n, ln)
        for n, ln in enumerate(text.lstrip("\ufeff").splitlines(), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not lines:
        raise FailureInputError(f"{name}: the file is empty")
    head_line, head = lines[0]
    header = [c.strip().strip('"').lower() for c in head.split(",")]
    i_step = _column(header, ("step",))
    i_sec = _column(header, _SECONDS)
    i_time = _column(header, _TIME)
    missing = [
        what
        for what, i in (("step", i_step), ("seconds or step_seconds", i_sec), ("time", i_time))
        if i is None
    ]
    if missing:
        raise FailureInputError(
            f"{name}: line {head_line}: the header lacks {', '.join(missing)}; expected "
            "rank,node,step,seconds,timestamp or time,step,step_seconds[,rank] (the window is "
            "measured in minutes, so each row needs its time)"
        )
    i_rank, i_node = _column(header, ("rank",)), _column(header, ("node",))
    rows: list[RankRow] = []
    for n, line in lines[1:]:
        cells = [c.strip().strip('"') for c in line.split(",")]
        if len(cells) != len(header):
            raise FailureInputError(
                f"{name}: line {n}: expected {len(header)} values, found {len(cells)}"
            )
        rows.append(_row(cells, n, name, i_step, i_sec, i_time, i_rank, i_node))  # type: ignore[arg-type]
    if not rows:
        raise FailureInputError(f"{name}: no step rows under the header")
    return rows


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    return next((header.index(c) for c in names if c in header), None)


def _row(
    cells: list[str],
    n: int,
    name: str,
    i_step: int,
    i_sec: int,
    i_time: int,
    i_rank: int | None,
    i_node: int | None,
) -> RankRow:
    try:
        step = int(cells[i_step])
    except ValueError:
        raise FailureInputError(
            f"{name}: line {n}: step {cells[i_step]!r} is not a whole number"
        ) from None
    try:
        seconds = float(cells[i_sec])
    except ValueError:
        raise FailureInputError(
            f"{name}: line {n}: step time {cells[i_sec]!r} is not a number of seconds"
        ) from None
    if seconds <= 0:
        raise FailureInputError(f"{name}: line {n}: step time must be positive")
    rank: int | None = None
    if i_rank is not None and cells[i_rank]:
        try:
            rank = int(cells[i_rank])
        except ValueError:
            raise FailureInputError(
                f"{name}: line {n}: rank {cells[i_rank]!r} is not a whole number"
            ) from None
    at = _when(cells[i_time])
    if at is None:
        raise FailureInputError(f"{name}: line {n}: unreadable time {cells[i_time]!r}")
    node = cells[i_node] if i_node is not None else ""
    return RankRow(rank, node, step, at, seconds)


def detect_degraded(
    rows: list[RankRow],
    *,
    threshold_pct: float,
    window_minutes: float,
    rank_map: RankMap | None = None,
) -> Degraded:
    """The first window that qualifies, its slowest ranks and their nodes; else a blip (named
    with its step and rise) or 'no rise'. The baseline is the log's own early steps: the median
    of the first quarter (at least five) of its per-step medians, in time order."""
    per_step: dict[int, list[RankRow]] = {}
    for r in rows:
        per_step.setdefault(r.step, []).append(r)
    points = sorted(
        (max(r.at for r in g), step, statistics.median(r.seconds for r in g))
        for step, g in per_step.items()
    )
    early = [s for _, _, s in points[: max(5, len(points) // 4)]]
    baseline = statistics.median(early)
    limit = baseline * (1 + threshold_pct / 100)
    records = [StepRecord(r.step, r.at, r.seconds) for r in rows]
    ranks = len({r.rank for r in rows if r.rank is not None})
    base = {
        "threshold_pct": threshold_pct,
        "window_minutes": window_minutes,
        "baseline_s": baseline,
        "limit_s": limit,
        "steps": len(points),
        "ranks": ranks,
    }
    span = (points[-1][0] - points[0][0]).total_seconds() / 60 if points else 0.0
    rise = first_rise(records, limit=limit, minutes=window_minutes)
    if rise is None:
        return _no_rise(points, span=span, **base)
    slowest = _slowest(rows, rise.start, rise.end, rank_map)
    nodes = sorted({s["node"] for s in slowest if s["node"]})
    rise_pct = (rise.median / baseline - 1) * 100
    return Degraded(
        qualifies=True,
        message=(
            f"Sustained rise: the median step time over the {duration(window_minutes)} from "
            f"{rise.start:%Y-%m-%d %H:%M:%S} to {rise.end:%H:%M:%S} UTC was {rise.median:.3f} s, "
            f"+{rise_pct:.1f}% over the {baseline:.3f} s baseline (at least +{threshold_pct:g}% "
            f"needed); the first slow step is {rise.first_step}."
        ),
        window_start=rise.start,
        window_end=rise.end,
        first_step=rise.first_step,
        median_s=rise.median,
        slowest=slowest,
        nodes=nodes,
        **base,  # type: ignore[arg-type]
    )


def _no_rise(points: list[tuple[datetime, int, float]], *, span: float, **base: Any) -> Degraded:
    limit, minutes, pct = base["limit_s"], base["window_minutes"], base["threshold_pct"]
    slow = [(at, step, s) for at, step, s in points if s >= limit]
    if slow:
        at, step, seconds = max(slow, key=lambda p: p[2])
        rise_pct = (seconds / base["baseline_s"] - 1) * 100
        blip = {"step": step, "at": at.isoformat(), "seconds": round(seconds, 4),
                "rise_pct": round(rise_pct, 1), "slow_steps": len(slow)}  # fmt: skip
        many = f" ({len(slow)} slow steps in all)" if len(slow) > 1 else ""
        return Degraded(
            qualifies=False,
            blip=blip,
            message=(
                f"A blip, not degraded throughput: step {step} took {seconds:.3f} s, "
                f"+{rise_pct:.1f}% over the {base['baseline_s']:.3f} s baseline{many}, but the "
                f"median over no {duration(minutes)} window stayed +{pct:g}% above it. No S2 is "
                "opened."
            ),
            **base,
        )
    if span < minutes:
        return Degraded(
            qualifies=False,
            message=(
                f"The log covers {span:.1f} min, less than the {duration(minutes)} window of the "
                "agreed definition: no sustained rise can be judged. No S2 is opened."
            ),
            **base,
        )
    return Degraded(
        qualifies=False,
        message=(
            f"No step rose +{pct:g}% over the {base['baseline_s']:.3f} s baseline: throughput "
            "is not degraded by the agreed definition. No S2 is opened."
        ),
        **base,
    )


def _slowest(
    rows: list[RankRow], start: datetime, end: datetime, rank_map: RankMap | None
) -> list[dict[str, Any]]:
    """The ranks with the highest median step time inside the window, with their nodes: those
    that stand out from the others, else (every rank alike) the first few."""
    inside: dict[int | None, list[RankRow]] = {}
    for r in rows:
        if start <= r.at <= end:
            inside.setdefault(r.rank, []).append(r)
    found: list[tuple[float, int, str]] = []  # (median seconds, rank, node)
    for rank, group in inside.items():
        node = group[0].node
        if not node and rank is not None and rank_map is not None:
            node = rank_map.node_of(rank) or ""
        found.append(
            (statistics.median(r.seconds for r in group), -1 if rank is None else rank, node)
        )
    if not found:
        return []
    found.sort(key=lambda f: (-f[0], f[1]))
    # Ranks in step wait for each other: the culprits stand out from the ranks' median.
    typical = statistics.median(f[0] for f in found)
    standing = [f for f in found if f[0] >= typical * (1 + STANDS_OUT_PCT / 100)]
    return [
        {"rank": None if rank < 0 else rank, "node": node, "seconds": round(seconds, 4)}
        for seconds, rank, node in (standing or found)[:SLOWEST]
    ]
