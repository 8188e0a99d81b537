"""The incident's UTC window: the last healthy training step and the first bad one.

Evidence, best first: a step-time log (CSV with `step` and a timestamp column, optionally
`seconds` and per-rank rows; or log lines carrying an ISO timestamp and `step N`/`iteration N`),
read against the analysis's first failure time and the contract's "degraded" definition
(median step time more than X % above the job's own baseline). Without step evidence the window
is only the failure time, and says so.
"""

from __future__ import annotations

import bisect
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
    """Per-step records (one per step; per-rank rows keep the slowest rank and latest time)."""
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
    merged: dict[int, StepRecord] = {}
    for r in records:
        old = merged.get(r.step)
        if old is None:
            merged[r.step] = r
            continue
        times = [t for t in (old.time_utc, r.time_utc) if t]
        secs = [s for s in (old.seconds, r.seconds) if s is not None]
        merged[r.step] = StepRecord(
            r.step, max(times) if times else None, max(secs) if secs else None
        )
    return [merged[k] for k in sorted(merged)]


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
    `degraded_pct`) when it starts a sustained rise: the median step time over the agreed
    window (`window_minutes`, of the log's own timestamps) stays at least `degraded_pct` above
    the baseline. A lone slow step is a blip, named as such, never the start of an incident."""
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


def _degraded_start(
    candidates: list[StepRecord], *, pct: float, baseline_seconds: float | None, minutes: float
) -> tuple[StepRecord | None, list[str]]:
    """The step that starts a sustained rise over the baseline (the one agreed, else the median
    of the log's first quarter, at least its first five steps), and the reasons."""
    secs = [r.seconds for r in candidates if r.seconds is not None]
    ref = baseline_seconds or (statistics.median(secs[: max(5, len(secs) // 4)]) if secs else None)
    if not ref:
        return None, []
    return _sustained_rise(
        candidates, limit=ref * (1 + pct / 100), minutes=minutes, pct=pct, ref=ref
    )


@dataclass(frozen=True, slots=True)
class _Point:
    step: int
    at: datetime
    seconds: float


def _per_step(records: list[StepRecord]) -> list[_Point]:
    """One point per step, in time order: the median over its ranks' rows, at its last time."""
    rows: dict[int, list[tuple[datetime, float]]] = {}
    for r in records:
        if r.time_utc is not None and r.seconds is not None:
            rows.setdefault(r.step, []).append((r.time_utc, r.seconds))
    points = [
        _Point(step, max(t for t, _ in group), statistics.median(s for _, s in group))
        for step, group in rows.items()
    ]
    return sorted(points, key=lambda p: (p.at, p.step))


@dataclass(frozen=True, slots=True)
class Rise:
    """The first window of the agreed length whose median step time is at or over the limit."""

    first_step: int  # the first step over the limit inside that window
    first_at: datetime
    first_seconds: float
    start: datetime  # the window's first and last step times (UTC)
    end: datetime
    end_step: int
    median: float


def first_rise(records: list[StepRecord], *, limit: float, minutes: float) -> Rise | None:
    """The first whole window (`minutes` of the log's own timestamps) whose median step time is
    at or over `limit`; per-rank rows count once per step (their median)."""
    points = _per_step(records)
    window = timedelta(minutes=minutes)
    ordered: list[float] = []  # the window's step times, sorted, for its median
    start = 0
    for i, point in enumerate(points):
        bisect.insort(ordered, point.seconds)
        while points[start].at <= point.at - window:
            ordered.pop(bisect.bisect_left(ordered, points[start].seconds))
            start += 1
        if point.at - points[0].at < window:
            continue  # not a whole window of the log yet
        median = statistics.median(ordered)
        if median >= limit:
            first = next((p for p in points[start : i + 1] if p.seconds >= limit), points[start])
            return Rise(
                first.step, first.at, first.seconds, points[start].at, point.at, point.step, median
            )
    return None


def _sustained_rise(
    records: list[StepRecord], *, limit: float, minutes: float, pct: float, ref: float
) -> tuple[StepRecord | None, list[str]]:
    """The step that starts the first window whose median step time is at or over `limit`, and
    the reasons; slow steps outside such a window are reported as blips."""
    points = _per_step(records)
    window = timedelta(minutes=minutes)
    rise = first_rise(records, limit=limit, minutes=minutes)
    if rise is not None:
        return StepRecord(rise.first_step, rise.first_at, rise.first_seconds), [
            f"the median step time over the {duration(minutes)} to step {rise.end_step} was "
            f"{rise.median:.3f} s, at least +{pct:g}% of the {ref:.3f} s baseline "
            f"({limit:.3f} s): sustained degradation from step {rise.first_step}"
        ]
    slow = [p for p in points if p.seconds > limit]
    span = (points[-1].at - points[0].at) if points else timedelta(0)
    if span < window:
        return None, [
            f"the step log covers {span.total_seconds() / 60:.1f} min, less than the "
            f"{duration(minutes)} window of the agreed definition: no sustained rise can be judged"
            + (f" ({len(slow)} step(s) over {limit:.3f} s)" if slow else "")
        ]
    if not slow:
        return None, []
    first = slow[0]
    blips = f"{len(slow)} slow steps" if len(slow) > 1 else "one slow step"
    return None, [
        f"{blips} over {limit:.3f} s (first: step {first.step}, {first.seconds:.3f} s), but "
        f"the median over no {duration(minutes)} window stayed +{pct:g}% above the baseline: a "
        "blip, not degraded throughput"
    ]
