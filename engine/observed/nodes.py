"""Node snapshots: what the scheduler could allocate and what passed its checks at one moment.

`kubectl get nodes -o json`: a node's GPUs are `status.allocatable["nvidia.com/gpu"]` (the device
plugin leaves out a GPU it finds unhealthy); it is allocatable unless cordoned
(`spec.unschedulable`), and healthy when also `Ready` is True, no other condition is True (the
pressure conditions, or a node-problem-detector's `GpuUnhealthy`) and no taint keeps work off it
(`NoSchedule`, `NoExecute`). kubectl prints no time, so the snapshot is as of the latest `Ready`
heartbeat (`lastHeartbeatTime`).

`sinfo -N -l` (its first line is the time) or `sinfo -N -o "%N %T %G"`: a node is allocatable in
`idle`, `mixed`, `allocated`, `completing`, `planned` or `reserved`, not draining; healthy when
also not flagged `*` (not responding) or failing. Its GPUs are the `GRES` column's
(`gpu:h100:8(S:0-1)`), else the contract's GPUs per node.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from engine.failures.hostlist import expand_nodelist

from .errors import ObservedInputError
from .jsonfile import dig, items, line_of, quantity, when
from .model import NodeSnapshot, NodeState

GPU = "nvidia.com/gpu"
_KEEP_OFF = ("NoSchedule", "NoExecute")
_SINFO_DATE = re.compile(r"^\w{3} (\w{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\s*$")
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_SERVING = {"idle", "mixed", "allocated", "alloc", "completing", "planned", "reserved", "resv"}
_GRES = re.compile(r"gpu(?::[\w.\-]+)?:(\d+)")


def read_kube_nodes(source: str, text: str) -> NodeSnapshot:
    states: list[NodeState] = []
    heartbeats: list[datetime] = []
    cursor, first = 0, None
    for obj in items(source, text):
        if obj.get("kind") != "Node":
            continue
        name = str(dig(obj, "metadata.name") or "")
        line, cursor = line_of(text, f'"{name}"', after=cursor)
        first = first or line
        if not name:
            raise ObservedInputError(source, "a node without a name", line=line,
                                     field="metadata.name")  # fmt: skip
        state, beat = _kube_node(source, obj, name, line)
        states.append(state)
        heartbeats += [beat] if beat else []
    if not states:
        raise ObservedInputError(source, "no Node in the file: run kubectl get nodes -o json")
    if not heartbeats:
        raise ObservedInputError(source, "no Ready heartbeat to date the snapshot by", line=first,
                                 field="status.conditions[Ready].lastHeartbeatTime")  # fmt: skip
    return NodeSnapshot(max(heartbeats), tuple(states), source, first or 1)


def _kube_node(
    source: str, obj: dict[str, Any], name: str, line: int
) -> tuple[NodeState, datetime | None]:
    gpus = quantity(dig(obj, "status.allocatable") and obj["status"]["allocatable"].get(GPU))
    cordoned = bool(dig(obj, "spec.unschedulable"))
    why: list[str] = ["cordoned"] if cordoned else []
    beat = None
    for cond in dig(obj, "status.conditions") or []:
        if not isinstance(cond, dict):
            continue
        kind, status = cond.get("type"), cond.get("status")
        if kind == "Ready":
            beat = when(source, cond, ("lastHeartbeatTime", "lastTransitionTime"), line=line)
            if status != "True":
                why.append(f"Ready={status} ({cond.get('reason', '')})".replace(" ()", ""))
        elif status == "True":
            why.append(f"{kind} ({cond.get('reason', '')})".replace(" ()", ""))
    for taint in dig(obj, "spec.taints") or []:
        if isinstance(taint, dict) and taint.get("effect") in _KEEP_OFF:
            why.append(f"taint {taint.get('key')}:{taint.get('effect')}")
    state = NodeState(name, gpus, not cordoned, not why, "; ".join(why))
    return state, beat


def read_sinfo(
    source: str, text: str, *, gpus_per_node: int | None = None, at: datetime | None = None
) -> NodeSnapshot:
    lines = text.splitlines()
    for line in lines[:3]:
        if m := _SINFO_DATE.match(line.strip()):
            mon, day, h, mi, s, year = m.groups()
            at = datetime(int(year), _MONTHS.index(mon) + 1, int(day), int(h), int(mi), int(s),
                          tzinfo=UTC)  # fmt: skip
    head = next((i for i, line in enumerate(lines) if line.split()[:1] == ["NODELIST"]), None)
    if head is None:
        raise ObservedInputError(source, "no NODELIST header: run sinfo -N -l")
    if at is None:
        raise ObservedInputError(source, "no time: sinfo -l prints it on its first line", line=1)
    keys = lines[head].split()
    if "STATE" not in keys:
        raise ObservedInputError(source, "sinfo column missing", line=head + 1, field="STATE")
    seen: dict[str, NodeState] = {}
    for number, line in enumerate(lines[head + 1 :], head + 2):
        # REASON, the last column, may hold spaces ("Not responding").
        cells = dict(zip(keys, line.split(None, len(keys) - 1), strict=False))
        if not cells:
            continue
        for node in expand_nodelist(cells.get("NODELIST", "")) or [cells.get("NODELIST", "")]:
            seen.setdefault(node, _sinfo_node(source, number, node, cells, gpus_per_node))
    return NodeSnapshot(at, tuple(seen.values()), source, head + 1)


def _sinfo_node(
    source: str, line: int, node: str, cells: dict[str, str], gpus_per_node: int | None
) -> NodeState:
    raw = cells["STATE"].lower()
    flags = set(raw) & set("*~#!%$@^-")
    parts = set(raw.rstrip("*~#!%$@^-").split("+"))
    gres = [int(g) for g in _GRES.findall(cells.get("GRES", ""))]
    if gres:
        gpus = sum(gres)
    elif gpus_per_node is not None:
        gpus = gpus_per_node
    else:
        raise ObservedInputError(source, "no GPUs per node: add %G or give the contract's",
                                 line=line, field="GRES")  # fmt: skip
    allocatable = bool(parts & _SERVING) and not any(p.startswith("drain") for p in parts)
    healthy = allocatable and "*" not in flags and "failing" not in parts
    why = "" if healthy else f"{cells['STATE']} ({cells.get('REASON', 'no reason given')})"
    return NodeState(node, gpus, allocatable, healthy, why)
