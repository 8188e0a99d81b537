"""Clock skew between nodes, estimated from events that happened once but were logged on many.

Anchors: the same collective (process group, sequence number) timing out — every waiting rank's
watchdog fires within milliseconds of the others, so a node whose timeouts sit seconds apart from
everyone else's has a clock that is off — and a scheduler cancel whose `CANCELLED AT` (the
controller's clock) differs from the node's own line timestamp.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from statistics import median

from .model import Event
from .timestamps import parse_iso

# Below this the difference is watchdog jitter, not a clock problem.
MIN_SKEW_S = 1.0


@dataclass(frozen=True, slots=True)
class ClockSkew:
    node: str
    offset_s: float  # node clock minus the reference (the median node); subtract to correct
    anchors: int
    spread_s: float  # disagreement between anchors for this node
    applied: bool

    def to_json(self) -> dict[str, object]:
        return {
            "node": self.node,
            "offset_s": round(self.offset_s, 3),
            "anchors": self.anchors,
            "spread_s": round(self.spread_s, 3),
            "applied": self.applied,
        }


def estimate_skew(events: list[Event]) -> list[ClockSkew]:
    """Per-node offsets (only nodes whose offset is at least MIN_SKEW_S are returned)."""
    groups: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    deviations: dict[str, list[float]] = defaultdict(list)
    for e in events:
        if e.time_utc is None or e.node is None or "time_from" in e.detail:
            continue
        if e.kind == "nccl_timeout" and "seq" in e.detail and "ran_ms" in e.detail:
            # Watchdog: collective start = logged time - ran_ms, identical on every rank.
            key = ("nccl", f"{e.detail.get('pg', '0')}:{e.detail['seq']}")
            start = e.time_utc.timestamp() - e.detail["ran_ms"] / 1000.0
            groups[key][e.node].append(start)
        elif e.kind == "scheduler" and e.detail.get("cancelled_at"):
            controller = parse_iso(e.detail["cancelled_at"])
            if controller is not None:
                delta = e.time_utc.timestamp() - controller.timestamp()
                if abs(delta) < 86_400:
                    deviations[e.node].append(delta)
    for per_node in groups.values():
        if len(per_node) < 2:
            continue
        node_times = {node: median(times) for node, times in per_node.items()}
        reference = median(node_times.values())
        for node, when in node_times.items():
            deviations[node].append(when - reference)
    out: list[ClockSkew] = []
    for node, values in sorted(deviations.items()):
        offset = median(values)
        spread = max(values) - min(values)
        if abs(offset) < MIN_SKEW_S:
            continue
        # Apply only when the anchors agree with each other better than the offset is large.
        applied = spread <= abs(offset) / 2
        out.append(ClockSkew(node, offset, len(values), spread, applied))
    return out
