"""What a parse found, as JSON a row can keep, and back: the pages and the outcome report read
the stored parse, never the file again."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from .cost import Count, count_results
from .model import Job, NodeSnapshot, NodeState, Reclaim, Record, Results, SchedulerRecords

# The scheduler's records kept per file for the diagnostic packets.
MAX_RECORDS = 20_000


def _t(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _d(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def scheduler_to_json(found: SchedulerRecords) -> dict[str, Any]:
    return {
        "jobs": [
            {**asdict(j), "submitted": _t(j.submitted), "admitted": _t(j.admitted),
             "started": _t(j.started), "running": [[_t(a), _t(b)] for a, b in j.running]}
            for j in found.jobs
        ],
        "reclaims": [
            {**asdict(r), "at": _t(r.at), "running_again_at": _t(r.running_again_at)}
            for r in found.reclaims
        ],
        "records": [{**asdict(r), "at": _t(r.at)} for r in found.records[:MAX_RECORDS]],
        "notes": list(found.notes),
    }  # fmt: skip


def scheduler_from_json(data: dict[str, Any]) -> SchedulerRecords:
    jobs = tuple(
        Job(**{**j, "submitted": _d(j["submitted"]), "admitted": _d(j["admitted"]),
               "started": _d(j["started"]), "nodes": tuple(j["nodes"]),
               "running": tuple((_d(a), _d(b)) for a, b in j["running"])})
        for j in data.get("jobs", [])
    )  # fmt: skip
    reclaims = tuple(
        Reclaim(**{**r, "at": _d(r["at"]), "running_again_at": _d(r["running_again_at"])})
        for r in data.get("reclaims", [])
    )
    records = tuple(Record(**{**r, "at": _d(r["at"])}) for r in data.get("records", []))
    return SchedulerRecords(jobs, reclaims, records, tuple(data.get("notes", [])))


def snapshot_to_json(snap: NodeSnapshot) -> dict[str, Any]:
    return {"at": _t(snap.at), "source": snap.source, "line": snap.line,
            "nodes": [asdict(n) for n in snap.nodes]}  # fmt: skip


def snapshot_from_json(data: dict[str, Any]) -> NodeSnapshot:
    at = _d(data["at"])
    assert at is not None
    nodes = tuple(NodeState(**n) for n in data["nodes"])
    return NodeSnapshot(at, nodes, data["source"], data["line"])


def results_to_json(results: Results) -> dict[str, Any]:
    """The counts for every unit a result file can give (runs come from the scheduler)."""
    counts = {unit: asdict(count_results(unit, results=results, jobs=()))
              for unit in ("step", "token")}  # fmt: skip
    rows = results.rows
    return {"rows": len(rows), "first": _t(min(r.at for r in rows)),
            "last": _t(max(r.at for r in rows)), "counts": counts}  # fmt: skip


def count_from_json(data: dict[str, Any], unit: str) -> Count:
    return Count(**data["counts"][unit])
