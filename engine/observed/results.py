"""The job's own result file: a CSV the training loop writes, one row per optimizer step.

Columns (header names are case-insensitive): `time` (ISO 8601; `timestamp` also read) and `step`
(`iteration`) are required; `job` (the workload or job it ran in), `tokens` (trained in the step)
and `accepted` (`true`/`false`, `1`/`0`, `yes`/`no`; a step whose loss the buyer's check rejected
is `false`) are optional, with one job, no tokens and every step accepted by default.
"""

from __future__ import annotations

import csv
import io

from engine.failures.timestamps import ISO_RE, parse_iso

from .errors import ObservedInputError
from .model import ResultRow, Results

_ALIASES = {"timestamp": "time", "iteration": "step", "accept": "accepted"}
_TRUE, _FALSE = {"true", "1", "yes", "y"}, {"false", "0", "no", "n"}
MAX_ROWS = 2_000_000


def read_results(source: str, text: str) -> Results:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ObservedInputError(source, "empty file: a header with time and step is needed",
                                 line=1)  # fmt: skip
    keys = [_ALIASES.get(h.strip().lower(), h.strip().lower()) for h in header]
    missing = [k for k in ("time", "step") if k not in keys]
    if missing:
        raise ObservedInputError(source, "column missing", line=1, field=", ".join(missing))
    rows: list[ResultRow] = []
    for number, cells in enumerate(reader, 2):
        if not any(c.strip() for c in cells):
            continue
        if len(rows) >= MAX_ROWS:
            raise ObservedInputError(source, f"more than {MAX_ROWS:,} rows", line=number)
        rows.append(_row(source, number, dict(zip(keys, (c.strip() for c in cells), strict=False))))
    if not rows:
        raise ObservedInputError(source, "no rows under the header", line=2)
    return Results(source, tuple(rows))


def _row(source: str, line: int, cells: dict[str, str]) -> ResultRow:
    stamp = cells.get("time", "")
    at = parse_iso(stamp) if ISO_RE.fullmatch(stamp) else None
    if at is None:
        raise ObservedInputError(source, f"{stamp!r} is not an ISO 8601 time", line=line,
                                 field="time")  # fmt: skip
    step = _count(source, line, cells, "step")
    tokens = _count(source, line, cells, "tokens") if cells.get("tokens") else 0
    flag = cells.get("accepted", "true").lower() or "true"
    if flag not in _TRUE | _FALSE:
        raise ObservedInputError(source, f"{flag!r} is neither true nor false", line=line,
                                 field="accepted")  # fmt: skip
    return ResultRow(at, cells.get("job", "") or "", step, tokens, flag in _TRUE, line)


def _count(source: str, line: int, cells: dict[str, str], key: str) -> int:
    value = cells.get(key, "")
    if not value.isdigit():
        raise ObservedInputError(source, f"{value!r} is not a whole number", line=line, field=key)
    return int(value)
