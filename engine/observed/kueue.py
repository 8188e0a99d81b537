"""Kueue's own records of a workload: `kubectl get workloads,events -o json`.

One List may hold Workload objects (`kueue.x-k8s.io`: `metadata.creationTimestamp` is when the
job was submitted, `spec.podSets[].count` × the containers' `nvidia.com/gpu` its size,
`status.conditions` the last `Admitted`, `PodsReady` and `Finished`) and Events (core/v1 with
`involvedObject`, or events.k8s.io/v1 with `regarding`). The Workload's events carry the history
the conditions overwrite: `QuotaReserved`, `Admitted`, `Pending`, `Preempted`, `Evicted`,
`Requeued`, `Finished`. The job's own `CreatedWorkload` event ("Created Workload: ns/name") ties
a job to its workload, and its pods' `Scheduled` ("Successfully assigned ns/pod to node") and
`Started` events say where and when it ran: a job runs once all its pods have started after an
admission (or at `PodsReady`, or at the admission when no pod events were exported).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .errors import ObservedInputError
from .jsonfile import dig, items, line_of, quantity, when
from .model import Job, Reclaim, Record, SchedulerRecords

GPU = "nvidia.com/gpu"
_EVENT_TIMES = (
    "firstTimestamp", "eventTime", "deprecatedFirstTimestamp", "lastTimestamp",
    "metadata.creationTimestamp",
)  # fmt: skip
_CREATED = re.compile(r"Created Workload: (?:[\w.\-]+/)?([\w.\-]+)")
_ASSIGNED = re.compile(r"Successfully assigned [\w.\-]+/[\w.\-]+ to ([\w.\-]+)")
_STOPS = ("Preempted", "Evicted")
# Kueue records one preemption as a `Preempted` event and an `Evicted` one moments apart.
_SAME_RECLAIM = timedelta(minutes=1)


@dataclass(slots=True)
class _Event:
    at: datetime
    kind: str
    name: str
    reason: str
    message: str
    line: int


@dataclass(slots=True)
class _Workload:
    name: str
    line: int
    gpus: int | None = None
    submitted: datetime | None = None
    owner: str | None = None
    conditions: dict[str, tuple[bool, datetime, str]] = field(default_factory=dict)
    events: list[_Event] = field(default_factory=list)
    pods: dict[str, list[_Event]] = field(default_factory=dict)


def read_kueue(source: str, text: str) -> SchedulerRecords:
    workloads: dict[str, _Workload] = {}
    events: list[_Event] = []
    cursor = 0
    for index, obj in enumerate(items(source, text)):
        name = str(dig(obj, "metadata.name") or "")
        line, cursor = line_of(text, f'"{name}"', after=cursor) if name else (1, cursor)
        kind = obj.get("kind")
        if kind == "Workload":
            if not name:
                raise ObservedInputError(source, f"item {index + 1} has no name", line=line,
                                         field="metadata.name")  # fmt: skip
            workloads[name] = _workload(source, obj, name, line)
        elif kind == "Event":
            events.append(_event(source, obj, line))
    _attach(workloads, events)
    if not workloads:
        raise ObservedInputError(source, "no Kueue Workload and no Workload event in the file")
    jobs, reclaims, notes = [], [], []
    for w in workloads.values():
        job, taken = _job(source, w)
        jobs.append(job)
        reclaims.extend(taken)
        if w.gpus is None:
            notes.append(f"{w.name}: its size is unknown (no Workload object), counted as 0 GPUs")
    records = sorted(
        (Record(e.at, e.name, e.reason, e.message, source, e.line) for e in events),
        key=lambda r: (r.at, r.line),
    )
    return SchedulerRecords(
        tuple(sorted(jobs, key=lambda j: (j.submitted, j.key))),
        tuple(sorted(reclaims, key=lambda r: r.at)),
        tuple(records),
        tuple(notes),
    )


def _workload(source: str, obj: dict[str, Any], name: str, line: int) -> _Workload:
    w = _Workload(name, line)
    w.submitted = when(source, obj, ("metadata.creationTimestamp",), line=line)
    pod_sets = dig(obj, "spec.podSets") or []
    if not isinstance(pod_sets, list):
        raise ObservedInputError(source, "must be a list", line=line, field="spec.podSets")
    w.gpus = sum(_pod_set_gpus(p) for p in pod_sets if isinstance(p, dict))
    owners = dig(obj, "metadata.ownerReferences") or []
    if owners and isinstance(owners[0], dict):
        w.owner = owners[0].get("name")
    for cond in dig(obj, "status.conditions") or []:
        if isinstance(cond, dict) and cond.get("type"):
            at = when(source, cond, ("lastTransitionTime",), line=line)
            w.conditions[cond["type"]] = (cond.get("status") == "True", at, cond.get("reason", ""))
    return w


def _pod_set_gpus(pod_set: dict[str, Any]) -> int:
    per_pod = 0
    for container in dig(pod_set, "template.spec.containers") or []:
        resources = container.get("resources") if isinstance(container, dict) else None
        if isinstance(resources, dict):
            asked = resources.get("requests") or resources.get("limits") or {}
            per_pod += quantity(asked.get(GPU) if isinstance(asked, dict) else None)
    return int(pod_set.get("count") or 1) * per_pod


def _event(source: str, obj: dict[str, Any], line: int) -> _Event:
    about = obj.get("involvedObject") or obj.get("regarding") or {}
    if not isinstance(about, dict) or not about.get("name"):
        raise ObservedInputError(source, "the event names no object", line=line,
                                 field="involvedObject.name")  # fmt: skip
    reason = str(obj.get("reason") or "")
    if not reason:
        raise ObservedInputError(source, "the event has no reason", line=line, field="reason")
    message = str(obj.get("message") or obj.get("note") or "")[:500]
    at = when(source, obj, _EVENT_TIMES, line=line)
    return _Event(at, str(about.get("kind") or ""), str(about["name"]), reason, message, line)


def _attach(workloads: dict[str, _Workload], events: list[_Event]) -> None:
    """Each event to its workload: directly, through the job that created it, or through a pod
    named after that job."""
    owners: dict[str, str] = {w.owner: w.name for w in workloads.values() if w.owner}
    for e in sorted(events, key=lambda e: e.at):
        if e.kind == "Workload":
            w = workloads.setdefault(e.name, _Workload(e.name, e.line))
            w.events.append(e)
        elif (m := _CREATED.search(e.message)) and e.reason == "CreatedWorkload":
            owners[e.name] = m.group(1)
            w = workloads.setdefault(m.group(1), _Workload(m.group(1), e.line, owner=e.name))
            w.submitted = w.submitted or e.at
    for e in events:
        if e.kind != "Pod":
            continue
        owner = max((o for o in owners if e.name.startswith(o + "-")), key=len, default=None)
        if owner is not None and owners[owner] in workloads:
            workloads[owners[owner]].pods.setdefault(e.name, []).append(e)


def _job(source: str, w: _Workload) -> tuple[Job, list[Reclaim]]:
    timeline = sorted(w.events, key=lambda e: e.at)
    admits = [e.at for e in timeline if e.reason == "Admitted"]
    if not admits and w.conditions.get("Admitted", (False,))[0]:
        admits = [w.conditions["Admitted"][1]]
    stops = _stops(timeline)
    finished = next((e for e in timeline if e.reason == "Finished"), None)
    done = w.conditions.get("Finished")
    end = finished.at if finished else (done[1] if done and done[0] else None)
    completed = (finished is not None and "fail" not in finished.message.lower()) or bool(
        done and done[0] and done[2] != "Failed"
    )
    running: list[tuple[datetime, datetime | None]] = []
    for i, admitted in enumerate(admits):
        until = next((s.at for s in stops if s.at > admitted), end)
        if i + 1 < len(admits) and until is not None and until > admits[i + 1]:
            until = admits[i + 1]
        running.append((_running_from(w, admitted, until), until))
    reclaims = [
        _reclaim(source, w, s, admits, running, timeline)
        for s in stops
        if any(a < s.at for a in admits)
    ]
    nodes = sorted(
        {m.group(1) for evs in w.pods.values() for e in evs if (m := _ASSIGNED.search(e.message))}
    )
    submitted = w.submitted or (timeline[0].at if timeline else admits[0])
    job = Job(
        w.name, w.gpus or 0, submitted, admits[0] if admits else None,
        running[0][0] if running else None, tuple(running), completed, tuple(nodes),
        source, w.line,
    )  # fmt: skip
    return job, reclaims


def _stops(timeline: list[_Event]) -> list[_Event]:
    out: list[_Event] = []
    for e in timeline:
        if not e.reason.startswith(_STOPS):
            continue
        if out and e.at - out[-1].at <= _SAME_RECLAIM:
            continue
        out.append(e)
    return out


def _running_from(w: _Workload, admitted: datetime, until: datetime | None) -> datetime:
    """When every pod had started after this admission; else `PodsReady`; else the admission."""
    firsts = [
        min(starts)
        for evs in w.pods.values()
        if (starts := [e.at for e in evs if e.reason == "Started" and e.at >= admitted
                       and (until is None or e.at < until)])
    ]  # fmt: skip
    if firsts:
        return max(firsts)
    ready = w.conditions.get("PodsReady")
    if ready and ready[0] and ready[1] >= admitted and (until is None or ready[1] < until):
        return ready[1]
    return admitted


def _reclaim(
    source: str,
    w: _Workload,
    stop: _Event,
    admits: list[datetime],
    running: list[tuple[datetime, datetime | None]],
    timeline: list[_Event],
) -> Reclaim:
    requeued = any(e.reason == "Requeued" and e.at >= stop.at for e in timeline)
    again = next((r[0] for a, r in zip(admits, running, strict=True) if a > stop.at), None)
    return Reclaim(
        w.name, stop.at, w.gpus or 0, f"{stop.reason}: {stop.message}"[:300],
        requeued or again is not None, again, source, stop.line,
    )  # fmt: skip
