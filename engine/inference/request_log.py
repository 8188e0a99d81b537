"""A per-request log of served responses, as a gateway or a load generator writes it: CSV with a
header row, or JSON lines. Each request gives its id, when it was sent, when its first token
came, when it ended, how many output tokens it produced and its status:

    request_id,start,first_token,end,output_tokens,status
    req-1,2026-11-30T10:00:00.000Z,2026-11-30T10:00:00.080Z,2026-11-30T10:00:00.380Z,11,ok

Times are ISO 8601 (UTC when no offset) or seconds since the epoch. A status of ok, success,
completed or 200 is a served response; anything else failed. The log has no per-token times, so
each response's inter-token latency is its mean gap, (end − first token) / (tokens − 1).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.inference.model import ServedRequest, ServedResponses, ServedResponsesError

KIND = "request_log"
MAX_ROWS = 1_000_000
_COLUMNS: dict[str, tuple[str, ...]] = {
    "request_id": ("request_id", "id", "request"),
    "start": ("start", "start_time", "sent_at", "started_at"),
    "first_token": ("first_token", "first_token_time", "first_token_at"),
    "end": ("end", "end_time", "finished_at", "completed_at"),
    "output_tokens": ("output_tokens", "completion_tokens", "tokens"),
    "status": ("status", "outcome"),
}
_OK = {"ok", "success", "succeeded", "completed", "200", ""}


def _fail(message: str, line: int | None = None) -> ServedResponsesError:
    return ServedResponsesError(message, line=line, kind=KIND)


def detect(text: str) -> float:
    first = next((ln.strip().lower() for ln in text[:4096].split("\n") if ln.strip()), "")
    if "first_token" not in first or "start" not in first:
        return 0.0
    return 0.9 if first.startswith("{") or "," in first else 0.0


@dataclass(frozen=True)
class _Row:
    line: int
    values: dict[str, Any]


def _csv_rows(text: str) -> Iterator[_Row]:
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    for record in reader:
        if not record or not "".join(record).strip():
            continue
        if header is None:
            header = [cell.strip().lower() for cell in record]
            continue
        if len(record) != len(header):
            raise _fail(f"{len(record)} cells; the header names {len(header)}", reader.line_num)
        yield _Row(reader.line_num, dict(zip(header, record, strict=True)))


def _jsonl_rows(text: str) -> Iterator[_Row]:
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _fail(f"not a JSON object: {exc.msg}", number) from None
        if not isinstance(value, dict):
            raise _fail("expected one JSON object per request", number)
        yield _Row(number, {str(k).lower(): v for k, v in value.items()})


def _pick(row: _Row, field: str, *, required: bool = True) -> Any:
    for name in _COLUMNS[field]:
        if name in row.values:
            return row.values[name]
    if required:
        raise _fail(f"no {field} column (also read as {', '.join(_COLUMNS[field][1:])})", row.line)
    return None


def _time(value: Any, field: str, line: int) -> float | None:
    """Seconds since the epoch, or None for an empty cell."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip()
        try:
            seconds = float(text)
        except ValueError:
            try:
                when = datetime.fromisoformat(text)
            except ValueError:
                raise _fail(
                    f"{field} is {text[:40]!r}; expected an ISO 8601 time or epoch seconds", line
                ) from None
            when = when if when.tzinfo else when.replace(tzinfo=UTC)
            seconds = when.timestamp()
    if not math.isfinite(seconds):
        raise _fail(f"{field} is not a finite time", line)
    return seconds


def _tokens(value: Any, line: int) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        return 0
    try:
        tokens = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        raise _fail(
            f"output_tokens is {str(value)[:40]!r}; expected a whole number", line
        ) from None
    if tokens < 0:
        raise _fail(f"output_tokens is {tokens}; it cannot be negative", line)
    return tokens


def _request(row: _Row) -> tuple[ServedRequest, float, float]:
    line = row.line
    start = _time(_pick(row, "start"), "start", line)
    first = _time(_pick(row, "first_token"), "first_token", line)
    end = _time(_pick(row, "end"), "end", line)
    if start is None or end is None:
        raise _fail("every request needs its start and end time", line)
    if end < start:
        raise _fail("end is before start", line)
    status = str(_pick(row, "status", required=False) or "").strip()
    tokens = _tokens(_pick(row, "output_tokens"), line)
    ref = str(_pick(row, "request_id", required=False) or f"line {line}")[:120]
    ok = status.lower() in _OK and first is not None
    if not ok:
        failed = ServedRequest(
            ref, False, None, (), 0, error=status[:300] or "no first token", line=line
        )
        return failed, start, end
    assert first is not None
    if not start <= first <= end:
        raise _fail("first_token must fall between start and end", line)
    # Epoch seconds in a float carry about a microsecond of noise: keep milliseconds to 3 places.
    gaps = (round((end - first) * 1000.0 / (tokens - 1), 3),) if tokens > 1 else ()
    served = ServedRequest(ref, True, round((first - start) * 1000.0, 3), gaps, tokens, line=line)
    return served, start, end


def _most_in_flight(spans: list[tuple[float, float]]) -> int:
    # An end and a start at the same instant do not overlap: ends sort first.
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


def parse(text: str) -> ServedResponses:
    first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    rows = _jsonl_rows(text) if first.startswith("{") else _csv_rows(text)
    requests: list[ServedRequest] = []
    spans: list[tuple[float, float]] = []
    try:
        for row in rows:
            if len(requests) >= MAX_ROWS:
                raise _fail(f"more than {MAX_ROWS:,} requests; split the log", row.line)
            served, start, end = _request(row)
            requests.append(served)
            spans.append((start, end))
    except csv.Error as exc:
        raise _fail(f"not a CSV log: {exc}") from None
    if not requests:
        raise _fail("the log lists no requests: a header row, then one row per request")
    duration = round(max(e for _, e in spans) - min(s for s, _ in spans), 6)
    if duration <= 0:
        raise _fail("the requests span no time: check the start and end columns")
    return ServedResponses(
        kind=KIND,
        requests=tuple(requests),
        duration_s=duration,
        concurrency=_most_in_flight(spans),
        per_token=False,
    )
