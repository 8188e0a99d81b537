"""Ray's memory monitor, in the words the raylet and Ray's exceptions print.

The raylet kills a worker when the node's memory passes `RAY_memory_usage_threshold` (0.95 by
default) and prints, through the driver's output, `(raylet) […] node_manager.cc:3069: 1 Workers
(tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at
node (ID: …, IP: 10.95.143.76) …`; the task's caller then raises
`ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.`

The threshold is the whole node's memory, not a limit of the job's own: the job's workers and
object store, or anything else running on the node, may have filled it. Left undetermined,
naming what decides it. The line is printed on the driver, so its node is the IP it names.
"""

from __future__ import annotations

import re
from typing import Any

from .owner import DECIDES

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("killed due to memory pressure", "node running low on memory")

_MONITOR = re.compile(
    r"(\d+) Workers \(tasks / actors\) killed due to memory pressure \(OOM\)"
    r"(?:.*?at node \(ID: \w+, IP: (\d{1,3}(?:\.\d{1,3}){3})\))?"
)
_RAISED = re.compile(r"Task was killed due to the node running low on memory")


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _MONITOR.search(body)
    if m is not None:
        detail: dict[str, Any] = {
            "tier": 1, "host_oom": True, "ray": True, "count": int(m.group(1)),
            "cause": f"Ray's memory monitor killed {m.group(1)} worker(s) for the node's memory",
        }  # fmt: skip
        if m.group(2):
            detail["node_ip"] = m.group(2)
        return "oom", detail
    if _RAISED.search(body):
        # The caller's report of the monitor's kill: the raylet's own line says where.
        return "oom", {
            "tier": 3, "host_oom": True, "ray": True, "secondary": True,
            "cause": "a Ray task's caller reports its worker killed for the node's memory",
        }  # fmt: skip
    return None


def owner_reason(node: str) -> str:
    """Why Ray's memory monitor killing a worker stays undetermined, and what decides it."""
    return (
        f"Ray's memory monitor killed the job's worker when {node}'s memory passed its "
        f"threshold (RAY_memory_usage_threshold), a limit of the whole node, not of the job; "
        f"{DECIDES}: what held the node's memory (`ray logs raylet.out -ip` for the node, its "
        "per-process memory): the job's own workers and object store (customer), or processes "
        "on the node outside the job (provider)"
    )
