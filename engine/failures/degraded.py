"""Degraded throughput (S2) from per-rank step times, by the terms' definition: EVERY step over
the agreed window (minutes of the log's own timestamps) takes at least the agreed percentage
longer than the job's baseline. A step is its median over ranks (ranks wait for each other, so
one slow rank shows in its peers too, and one fast outlier cannot hide a slow step). The
baseline is the hand-over baseline's step time for the job (or one both parties agreed), never a
slice of the log being judged: a log that starts degraded must still qualify. No baseline, no
verdict: the detector says so and nothing opens. A lone slow step, or a slow run shorter than
the window, is a blip and never opens an S2.

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
from .window import (
    IncidentWindow,
    Rise,
    StepPoint,
    StepRecord,
    _when,
    first_rise,
    longest_run,
    step_points,
)

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
    """What the detector found; `qualifies` is True only for a sustained rise over a baseline.

    `window_start` is the first slow step's time (the incident's failed_at), `window_end` the
    step that completes the agreed window; `slow_until` is where the slow run ended (the last
    slow step in the log). `rank_map` is each rank's node, from the file or the rank map."""

    qualifies: bool
    threshold_pct: float
    window_minutes: float
    baseline_s: float | None
    limit_s: float | None
    steps: int
    ranks: int
    message: str
    baseline_source: str = ""
    window_start: datetime | None = None
    window_end: datetime | None = None
    first_step: int | None = None
    last_healthy_step: int | None = None
    last_healthy_at: datetime | None = None
    window_steps: int | None = None
    median_s: float | None = None
    lowest_s: float | None = None
    slow_until: datetime | None = None
    slow_until_step: int | None = None
    slowest: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    blip: dict[str, Any] | None = None
    rank_map: list[tuple[int, str]] = field(default_factory=list)
    rank_map_from: str = ""  # "columns" (the file's rank and node) | "rank map" | ""

    def to_json(self) -> dict[str, Any]:
        return {
            "qualifies": self.qualifies,
            "threshold_pct": self.threshold_pct,
            "window_minutes": self.window_minutes,
            "baseline_s": _round(self.baseline_s),
            "baseline_source": self.baseline_source,
            "limit_s": _round(self.limit_s),
            "steps": self.steps,
            "ranks": self.ranks,
            "message": self.message,
            "window_start": _iso(self.window_start),
            "window_end": _iso(self.window_end),
            "first_step": self.first_step,
            "first_at": _iso(self.window_start),
            "last_healthy_step": self.last_healthy_step,
            "last_healthy_at": _iso(self.last_healthy_at),
            "window_steps": self.window_steps,
            "median_s": _round(self.median_s),
            "lowest_s": _round(self.lowest_s),
            "slow_until": _iso(self.slow_until),
            "slow_until_step": self.slow_until_step,
            "slowest": self.slowest,
            "nodes": self.nodes,
            "blip": self.blip,
            "rank_map": [[rank, node] for rank, node in self.rank_map],
            "rank_map_from": self.rank_map_from,
        }

    def window(self) -> IncidentWindow:
        """The incident's window as the ticket reads it: the step before the first slow one,
        and the first slow step."""
        if not self.qualifies:
            return IncidentWindow(None, None, None, None, "step-log", [self.message])
        return IncidentWindow(
            self.last_healthy_step, self.last_healthy_at, self.first_step, self.window_start,
            "degraded-step-time", [self.message],
        )  # fmt: skip


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


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
    baseline_s: float | None,
    threshold_pct: float,
    window_minutes: float,
    rank_map: RankMap | None = None,
    baseline_source: str = "",
) -> Degraded:
    """The first window of the agreed length in which every step (its median over ranks) is at
    least `threshold_pct` over `baseline_s`, with its slowest ranks and their nodes; else a
    blip (named with its step, its rise and the longest slow run) or 'no rise'. `baseline_s` is
    the job's hand-over step time (or one both parties agreed); None says no verdict."""
    points = step_points([StepRecord(r.step, r.at, r.seconds) for r in rows])
    pairs, pairs_from = _rank_nodes(rows, rank_map)
    base: dict[str, Any] = {
        "threshold_pct": threshold_pct,
        "window_minutes": window_minutes,
        "baseline_s": baseline_s if baseline_s and baseline_s > 0 else None,
        "baseline_source": baseline_source,
        "limit_s": None,
        "steps": len(points),
        "ranks": len({r.rank for r in rows if r.rank is not None}),
        "rank_map": pairs,
        "rank_map_from": pairs_from,
    }
    if base["baseline_s"] is None:
        return Degraded(
            qualifies=False,
            message=(
                "No baseline step time for this job: the hand-over baseline records none and no "
                "agreed baseline was given, so degraded throughput cannot be judged (the log's "
                "own steps are never its baseline). No S2 is opened."
            ),
            **base,
        )
    limit = base["baseline_s"] * (1 + threshold_pct / 100)
    base["limit_s"] = limit
    rise = first_rise(
        [StepRecord(p.step, p.at, p.seconds) for p in points], limit=limit, minutes=window_minutes
    )
    if rise is None:
        return _no_rise(points, **base)
    return _qualifying(rows, points, rise, rank_map_in=rank_map, **base)


def _qualifying(
    rows: list[RankRow],
    points: list[StepPoint],
    rise: Rise,
    *,
    rank_map_in: RankMap | None,
    **base: Any,
) -> Degraded:
    baseline, pct = base["baseline_s"], base["threshold_pct"]
    slowest = _slowest(rows, rise.start, rise.end, rank_map_in)
    before = [p for p in points if p.at < rise.first_at and p.step != rise.first_step]
    rise_pct = (rise.lowest / baseline - 1) * 100
    return Degraded(
        qualifies=True,
        message=(
            f"Sustained rise: every one of the {rise.steps} steps from step {rise.first_step} "
            f"({rise.start:%Y-%m-%d %H:%M:%S} UTC) to step {rise.end_step} "
            f"({rise.end:%H:%M:%S} UTC), the agreed {duration(base['window_minutes'])}, took at "
            f"least {rise.lowest:.3f} s, +{rise_pct:.1f}% over the {baseline:.3f} s baseline "
            f"(+{pct:g}% needed; median {rise.median:.3f} s). The first slow step is "
            f"{rise.first_step}."
        ),
        window_start=rise.start,
        window_end=rise.end,
        first_step=rise.first_step,
        last_healthy_step=before[-1].step if before else None,
        last_healthy_at=before[-1].at if before else None,
        window_steps=rise.steps,
        median_s=rise.median,
        lowest_s=rise.lowest,
        slow_until=rise.run.last.at,
        slow_until_step=rise.run.last.step,
        slowest=slowest,
        nodes=sorted({s["node"] for s in slowest if s["node"]}),
        **base,
    )


def _rank_nodes(rows: list[RankRow], rank_map: RankMap | None) -> tuple[list[tuple[int, str]], str]:
    """Each rank's node: the file's own rank and node columns first, else the rank map."""
    found = {r.rank: r.node for r in rows if r.rank is not None and r.node}
    if found:
        return sorted(found.items()), "columns"
    if rank_map is None:
        return [], ""
    ranks = sorted({r.rank for r in rows if r.rank is not None})
    mapped = [(rank, rank_map.node_of(rank) or "") for rank in ranks]
    return [(rank, node) for rank, node in mapped if node], "rank map"


def _no_rise(points: list[StepPoint], **base: Any) -> Degraded:
    limit, minutes, pct = base["limit_s"], base["window_minutes"], base["threshold_pct"]
    baseline = base["baseline_s"]
    slow = [p for p in points if p.seconds >= limit]
    span = (points[-1].at - points[0].at).total_seconds() / 60 if points else 0.0
    if slow:
        worst = max(slow, key=lambda p: p.seconds)
        rise_pct = (worst.seconds / baseline - 1) * 100
        longest = longest_run(points, limit=limit)
        lasted = longest.minutes if longest else 0.0
        blip = {"step": worst.step, "at": worst.at.isoformat(), "seconds": round(worst.seconds, 4),
                "rise_pct": round(rise_pct, 1), "slow_steps": len(slow),
                "longest_run_minutes": round(lasted, 1),
                "longest_run_from_step": longest.first.step if longest else None}  # fmt: skip
        many = f" ({len(slow)} slow steps in all)" if len(slow) > 1 else ""
        short = " The log is shorter than the window." if span < minutes else ""
        return Degraded(
            qualifies=False,
            blip=blip,
            message=(
                f"A blip, not degraded throughput: step {worst.step} took {worst.seconds:.3f} s, "
                f"+{rise_pct:.1f}% over the {baseline:.3f} s baseline{many}, but the longest run "
                f"of steps each +{pct:g}% over it lasted {lasted:.1f} min, short of the agreed "
                f"{duration(minutes)}.{short} No S2 is opened."
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
            f"No step rose +{pct:g}% over the {baseline:.3f} s baseline: throughput is not "
            "degraded by the agreed definition. No S2 is opened."
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


def proposed_baseline(rows: list[RankRow], *, name: str = "step times") -> tuple[float, int]:
    """A baseline step time from the job's own log (a buyer's proposal): each step's median
    across ranks, then the median over the steps, as the detector reads steps; and how many
    steps it rests on. Fewer than 10 steps is too little to agree on."""
    by_step: dict[int, list[float]] = {}
    for row in rows:
        by_step.setdefault(row.step, []).append(row.seconds)
    if len(by_step) < 10:
        raise FailureInputError(
            f"{name}: {len(by_step)} steps; a baseline needs at least 10 steps of the job"
        )
    medians = [statistics.median(v) for v in by_step.values()]
    value = statistics.median(medians)
    if value <= 0:
        raise FailureInputError(f"{name}: the median step time is {value:g} s, not a baseline")
    return round(value, 6), len(medians)
