"""The incident's UTC window: the last healthy training step and the first bad one.

Evidence, best first: a step-time log (CSV with `step` and a timestamp column, optionally
`seconds` and per-rank rows; or log lines carrying an ISO timestamp and `step N`/`iteration N`),
read against the analysis's first failure time and the contract's "degraded" definition: every
step over the agreed window (minutes of the log's own timestamps) at least X % above the job's
baseline, which comes from the hand-over, never from the log being judged. Without step evidence
the window is only the failure time, and says so.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.formatting import duration

from .errors import FailureInputError
from .timestamps import parse_iso

_STEP_IN_LINE = re.compile(r"\b(?:global[_ ]step|step|iteration|iter)\b\s*[=:#]?\s*(\d+)", re.I)
_SECONDS_IN_LINE = re.compile(
    r"\b(?:step[_ ]time|elapsed time per iteration \(ms\)|time)\s*[=:]\s*([0-9.]+)\s*(ms|s)?", re.I
)
_TIME_COLUMNS = ("timestamp", "time_utc", "time", "utc", "wall_time", "datetime", "end_time")
_SECONDS_COLUMNS = ("seconds", "step_time", "step_seconds", "duration_s")


@dataclass(frozen=True, slots=True)
class StepRecord:
    step: int
    time_utc: datetime | None
    seconds: float | None = None


@dataclass(slots=True)
class IncidentWindow:
    last_healthy_step: int | None
    last_healthy_at: datetime | None
    first_bad_step: int | None
    first_bad_at: datetime | None
    basis: str  # step-log | degraded-step-time | failure-time-only | none
    reasons: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "last_healthy_step": self.last_healthy_step,
            "last_healthy_at": _iso(self.last_healthy_at),
            "first_bad_step": self.first_bad_step,
            "first_bad_at": _iso(self.first_bad_at),
            "basis": self.basis,
            "reasons": self.reasons,
        }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def parse_step_records(data: bytes | str, *, name: str = "steps") -> list[StepRecord]:
    """Per-step records: one per step, at its latest time; per-rank rows give the step the
    median of its ranks' times, the figure the "degraded" definition is read against."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = [ln for ln in text.lstrip("\ufeff").splitlines() if ln.strip() and ln[0] != "#"]
    if not lines:
        raise FailureInputError(f"{name}: the step log is empty")
    header = [c.strip().strip('"').lower() for c in lines[0].split(",")]
    records = _from_csv(lines, header, name) if "step" in header else _from_log(lines)
    if not records:
        raise FailureInputError(
            f"{name}: no steps found; expected a CSV with step and timestamp columns or log "
            "lines with an ISO timestamp and 'step N'"
        )
    grouped: dict[int, list[StepRecord]] = {}
    for r in records:
        grouped.setdefault(r.step, []).append(r)
    merged = []
    for step in sorted(grouped):
        times = [r.time_utc for r in grouped[step] if r.time_utc]
        secs = [r.seconds for r in grouped[step] if r.seconds is not None]
        merged.append(
            StepRecord(
                step, max(times) if times else None, statistics.median(secs) if secs else None
            )
        )
    return merged


def _from_csv(lines: list[str], header: list[str], name: str) -> list[StepRecord]:
    i_step = header.index("step")
    i_time = next((header.index(c) for c in _TIME_COLUMNS if c in header), None)
    i_sec = next((header.index(c) for c in _SECONDS_COLUMNS if c in header), None)
    out: list[StepRecord] = []
    for n, line in enumerate(lines[1:], start=2):
        cells = [c.strip().strip('"') for c in line.split(",")]
        if len(cells) != len(header):
            raise FailureInputError(f"{name}: line {n}: expected {len(header)} values")
        try:
            step = int(cells[i_step])
            seconds = float(cells[i_sec]) if i_sec is not None and cells[i_sec] else None
        except ValueError:
            raise FailureInputError(f"{name}: line {n}: step must be an integer") from None
        when = _when(cells[i_time]) if i_time is not None else None
        if i_time is not None and cells[i_time] and when is None:
            raise FailureInputError(f"{name}: line {n}: unreadable timestamp {cells[i_time]!r}")
        out.append(StepRecord(step, when, seconds))
    return out


def _when(cell: str) -> datetime | None:
    if not cell:
        return None
    try:
        value = float(cell)  # epoch seconds
    except ValueError:
        return parse_iso(cell)
    return datetime.fromtimestamp(value, UTC) if value > 1e9 else None


def _from_log(lines: list[str]) -> list[StepRecord]:
    out: list[StepRecord] = []
    for line in lines:
        m = _STEP_IN_LINE.search(line)
        when = parse_iso(line)
        if m is None or when is None:
            continue
        seconds = None
        if s := _SECONDS_IN_LINE.search(line):
            seconds = float(s.group(1)) / (1000 if (s.group(2) or "").lower() == "ms" or
                                           "(ms)" in s.group(0) else 1)  # fmt: skip
        out.append(StepRecord(int(m.group(1)), when.astimezone(UTC), seconds))
    return out


def incident_window(
    records: list[StepRecord],
    *,
    failure_time: datetime | None,
    degraded_pct: float | None = None,
    baseline_seconds: float | None = None,
    window_minutes: float = 15,
) -> IncidentWindow:
    """Last healthy and first bad step. A step is bad when it ended after the failure, or (with
    `degraded_pct`) when it is the first slow step of a sustained rise: every step over the
    agreed window (`window_minutes`, of the log's own timestamps) at least `degraded_pct` above
    `baseline_seconds`, the job's hand-over step time. Without that baseline nothing is judged
    degraded, and the reasons say so. A lone slow step is a blip, named as such."""
    if not records:
        return _without_steps(failure_time)
    timed = [r for r in records if r.time_utc is not None]
    before = [r for r in timed if failure_time is None or r.time_utc <= failure_time]  # type: ignore[operator]
    first_bad: StepRecord | None = None
    reasons: list[str] = []
    if degraded_pct is not None:
        first_bad, reasons = _degraded_start(
            before if failure_time is not None else records,
            pct=degraded_pct,
            baseline_seconds=baseline_seconds,
            minutes=window_minutes,
        )
    basis = "step-log" if first_bad is None else "degraded-step-time"
    if first_bad is None and failure_time is not None:
        after = [r for r in timed if r.time_utc > failure_time]  # type: ignore[operator]
        first_bad = after[0] if after else None
        if first_bad is None:
            healthy = before[-1] if before else None
            reasons.append("no step completed after the failure; the next step never finished")
            return IncidentWindow(
                healthy.step if healthy else None, healthy.time_utc if healthy else None,
                healthy.step + 1 if healthy else None, failure_time, basis, reasons,
            )  # fmt: skip
    if first_bad is None:
        last = records[-1]
        reasons.append("no degraded step and no failure time: the log ends healthy")
        return IncidentWindow(last.step, last.time_utc, None, None, basis, reasons)
    healthy_list = [r for r in records if r.step < first_bad.step]
    healthy = healthy_list[-1] if healthy_list else None
    return IncidentWindow(
        healthy.step if healthy else None,
        healthy.time_utc if healthy else None,
        first_bad.step,
        first_bad.time_utc,
        basis,
        reasons,
    )


def _without_steps(failure_time: datetime | None) -> IncidentWindow:
    if failure_time is None:
        return IncidentWindow(None, None, None, None, "none", ["no step log and no failure time"])
    return IncidentWindow(
        None, None, None, failure_time, "failure-time-only",
        ["no step log: the window opens at the first failure the analysis found"],
    )  # fmt: skip


NO_BASELINE = (
    "no baseline step time for this job (the hand-over baseline records none, and no agreed "
    "baseline was given): degraded throughput is not judged"
)


def _degraded_start(
    candidates: list[StepRecord], *, pct: float, baseline_seconds: float | None, minutes: float
) -> tuple[StepRecord | None, list[str]]:
    """The first slow step of a sustained rise over the agreed baseline, and the reasons. The
    log's own early steps are never the baseline: a job slow from its first step would hide."""
    if not baseline_seconds or baseline_seconds <= 0:
        return None, [NO_BASELINE]
    return _sustained_rise(
        candidates,
        limit=baseline_seconds * (1 + pct / 100),
        minutes=minutes,
        pct=pct,
        ref=baseline_seconds,
    )


@dataclass(frozen=True, slots=True)
class StepPoint:
    """One training step as the rule reads it: its median over ranks, at its last row's time."""

    step: int
    at: datetime
    seconds: float


def step_points(records: list[StepRecord]) -> list[StepPoint]:
    """One point per step, in time order: the median over its ranks' rows, at its last time."""
    rows: dict[int, list[tuple[datetime, float]]] = {}
    for r in records:
        if r.time_utc is not None and r.seconds is not None:
            rows.setdefault(r.step, []).append((r.time_utc, r.seconds))
    points = [
        StepPoint(step, max(t for t, _ in group), statistics.median(s for _, s in group))
        for step, group in rows.items()
    ]
    return sorted(points, key=lambda p: (p.at, p.step))


@dataclass(frozen=True, slots=True)
class SlowRun:
    """Consecutive steps, each at or over the limit; the next step (if any) is under it."""

    points: tuple[StepPoint, ...]

    @property
    def first(self) -> StepPoint:
        return self.points[0]

    @property
    def last(self) -> StepPoint:
        return self.points[-1]

    @property
    def minutes(self) -> float:
        return (self.last.at - self.first.at).total_seconds() / 60


def slow_runs(points: list[StepPoint], *, limit: float) -> list[SlowRun]:
    """Every run of consecutive steps at or over `limit`, in time order."""
    runs: list[SlowRun] = []
    current: list[StepPoint] = []
    for point in points:
        if point.seconds >= limit:
            current.append(point)
        elif current:
            runs.append(SlowRun(tuple(current)))
            current = []
    if current:
        runs.append(SlowRun(tuple(current)))
    return runs


@dataclass(frozen=True, slots=True)
class Rise:
    """The first window of the agreed length in which every step is at or over the limit."""

    first_step: int  # the first slow step: the window opens here, and so does the incident
    first_at: datetime
    first_seconds: float
    start: datetime  # the window's first and last step times (UTC); start == first_at
    end: datetime
    end_step: int
    median: float  # of the window's steps, for the message; the rule reads every step
    lowest: float  # the window's fastest step, still at or over the limit
    steps: int  # steps in the window
    run: SlowRun  # the whole run of slow steps the window opens


def first_rise(records: list[StepRecord], *, limit: float, minutes: float) -> Rise | None:
    """The first window of `minutes` (the log's own timestamps, from a slow step's time to a
    later step's) in which every step is at or over `limit`; per-rank rows count once per step,
    as their median. One step under the limit ends the run, so half a window never counts."""
    window = timedelta(minutes=minutes)
    for run in slow_runs(step_points(records), limit=limit):
        if run.last.at - run.first.at < window:
            continue
        end = next(i for i, p in enumerate(run.points) if p.at - run.first.at >= window)
        inside = run.points[: end + 1]
        seconds = [p.seconds for p in inside]
        return Rise(
            first_step=run.first.step,
            first_at=run.first.at,
            first_seconds=run.first.seconds,
            start=run.first.at,
            end=inside[-1].at,
            end_step=inside[-1].step,
            median=statistics.median(seconds),
            lowest=min(seconds),
            steps=len(inside),
            run=run,
        )
    return None


def longest_run(points: list[StepPoint], *, limit: float) -> SlowRun | None:
    """The slow run that lasted longest (the earliest of equals), to name a near miss."""
    runs = slow_runs(points, limit=limit)
    return max(runs, key=lambda r: (r.last.at - r.first.at, -r.first.at.timestamp()), default=None)


def _sustained_rise(
    records: list[StepRecord], *, limit: float, minutes: float, pct: float, ref: float
) -> tuple[StepRecord | None, list[str]]:
    """The first slow step of the first qualifying window, and the reasons; slow steps that
    never last the window are reported as blips."""
    points = step_points(records)
    window = timedelta(minutes=minutes)
    rise = first_rise(records, limit=limit, minutes=minutes)
    if rise is not None:
        return StepRecord(rise.first_step, rise.first_at, rise.first_seconds), [
            f"every step from step {rise.first_step} to step {rise.end_step} "
            f"({duration(minutes)}) took at least {limit:.3f} s, +{pct:g}% of the {ref:.3f} s "
            f"baseline (the median {rise.median:.3f} s): sustained degradation from step "
            f"{rise.first_step}"
        ]
    slow = [p for p in points if p.seconds >= limit]
    span = (points[-1].at - points[0].at) if points else timedelta(0)
    if span < window:
        return None, [
            f"the step log covers {span.total_seconds() / 60:.1f} min, less than the "
            f"{duration(minutes)} window of the agreed definition: no sustained rise can be judged"
            + (f" ({len(slow)} step(s) at or over {limit:.3f} s)" if slow else "")
        ]
    if not slow:
        return None, []
    first = slow[0]
    longest = longest_run(points, limit=limit)
    blips = f"{len(slow)} slow steps" if len(slow) > 1 else "one slow step"
    lasted = f"; the longest run lasted {longest.minutes:.1f} min" if longest else ""
    return None, [
        f"{blips} at or over {limit:.3f} s (first: step {first.step}, {first.seconds:.3f} s), "
        f"but no run of slow steps lasted the {duration(minutes)} window{lasted}: a blip, not "
        "degraded throughput"
    ]
