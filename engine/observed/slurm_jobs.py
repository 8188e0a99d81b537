"""Slurm's record of each job: `sacct --parsable2` (or sacct's fixed-width table, read by
`engine.failures.sacct`) with the columns `JobID`, `Submit`, `Start` and `State`, and when present
`Eligible` (the scheduler's admission: the job may run from then), `End`, `AllocTRES`
(`gres/gpu=16`), `NodeList` and `JobName`. Step rows (`1234.batch`, `1234.0`) are skipped: the
allocation is the job. sacct prints local time without a zone; `tz` says which zone it was.

A job `PREEMPTED` lost its capacity at `End`; `REQUEUED` (or a later row of the same JobID, with
`--duplicates`) means it went back to the queue.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, tzinfo

from engine.failures.hostlist import expand_nodelist
from engine.failures.sacct import table_rows
from engine.failures.timestamps import ISO_RE, parse_iso

from .errors import ObservedInputError
from .model import Job, Reclaim, Record, SchedulerRecords

REQUIRED = ("JobID", "Submit", "Start", "State")
_GPUS = re.compile(r"gres/gpu(?::[\w.\-]+)?=(\d+)")
_NO_TIME = {"", "Unknown", "None", "N/A"}


def read_sacct(source: str, text: str, *, tz: tzinfo = UTC) -> SchedulerRecords:
    rows = table_rows(text)
    if not rows:
        raise ObservedInputError(
            source, "no sacct header: run sacct --parsable2 with JobID, Submit, Start and State"
        )
    missing = [c for c in REQUIRED if c not in rows[0][1]]
    if missing:
        raise ObservedInputError(source, "sacct column missing", line=rows[0][0] - 1,
                                 field=", ".join(missing))  # fmt: skip
    attempts: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for line, row in rows:
        job_id = row["JobID"].strip()
        if job_id and "." not in job_id:
            attempts.setdefault(job_id, []).append((line, row))
    jobs, reclaims, records = [], [], []
    for job_id, runs in attempts.items():
        job, taken, seen = _job(source, job_id, runs, tz)
        jobs.append(job)
        reclaims.extend(taken)
        records.extend(seen)
    return SchedulerRecords(
        tuple(sorted(jobs, key=lambda j: (j.submitted, j.key))),
        tuple(sorted(reclaims, key=lambda r: r.at)),
        tuple(sorted(records, key=lambda r: (r.at, r.line))),
    )


def _time(source: str, line: int, row: dict[str, str], column: str, tz: tzinfo) -> datetime | None:
    value = row.get(column, "").strip()
    if value in _NO_TIME:
        return None
    parsed = parse_iso(value, tz=tz) if ISO_RE.fullmatch(value) else None
    if parsed is None:
        raise ObservedInputError(source, f"{value!r} is not a time", line=line, field=column)
    return parsed


def _job(
    source: str, job_id: str, runs: list[tuple[int, dict[str, str]]], tz: tzinfo
) -> tuple[Job, list[Reclaim], list[Record]]:
    first_line, first = runs[0]
    submitted = _time(source, first_line, first, "Submit", tz)
    if submitted is None:
        raise ObservedInputError(source, "a job needs its submit time", line=first_line,
                                 field="Submit")  # fmt: skip
    running: list[tuple[datetime, datetime | None]] = []
    reclaims: list[Reclaim] = []
    records: list[Record] = []
    nodes: list[str] = []
    gpus, state = 0, ""
    for line, row in runs:
        state = row["State"].split(" ", 1)[0].rstrip("+")
        start = _time(source, line, row, "Start", tz)
        end = _time(source, line, row, "End", tz)
        found = _GPUS.search(row.get("AllocTRES", "") or row.get("ReqTRES", ""))
        gpus = max(gpus, int(found.group(1)) if found else 0)
        listed = row.get("NodeList", "").strip()
        if listed and " " not in listed:  # "None assigned" while pending
            nodes += [n for n in expand_nodelist(listed) if n not in nodes]
        if start is not None:
            running.append((start, end))
        records.append(Record(end or start or submitted, job_id, state,
                              f"{row.get('JobName', '')} on {row.get('NodeList', '') or '—'}",
                              source, line))  # fmt: skip
        if state == "PREEMPTED" and end is not None:
            reclaims.append(Reclaim(job_id, end, gpus, "PREEMPTED", len(runs) > 1, None,
                                    source, line))  # fmt: skip
    reclaims = [_restart(r, [s for s, _e in running]) for r in reclaims]
    admitted = _time(source, first_line, first, "Eligible", tz) if "Eligible" in first else None
    job = Job(
        job_id, gpus, submitted, admitted or (running[0][0] if running else None),
        running[0][0] if running else None, tuple(running), state == "COMPLETED",
        tuple(nodes), source, first_line,
    )  # fmt: skip
    return job, reclaims, records


def _restart(reclaim: Reclaim, starts: list[datetime]) -> Reclaim:
    again = next((s for s in starts if s > reclaim.at), None)
    return replace(reclaim, requeued=reclaim.requeued or again is not None, running_again_at=again)
