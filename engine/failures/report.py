"""The report's parts after the verdict: grouped consequences, the evidence chain, the timeline."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .model import Event
from .verdict import is_corroboration, tier

_TIMELINE_CAP = 500
_CHAIN_CAP = 30


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


@dataclass(frozen=True, slots=True)
class SecondaryGroup:
    kind: str
    cause: str
    ranks: list[int]
    count: int  # events (a rank can log the same timeout several times)
    first: datetime | None
    last: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "cause": self.cause, "ranks": self.ranks, "count": self.count,
            "first": _iso(self.first), "last": _iso(self.last),
        }  # fmt: skip


def _cause(e: Event) -> str:
    d = e.detail
    if e.kind == "nccl_timeout":
        return f"collective {d['seq']}" if "seq" in d else "watchdog"
    if e.kind in ("signal", "launcher_summary") and "signal" in d:
        return f"signal {d['signal']}"
    return str(d.get("cause") or d.get("exc_type") or d.get("error") or "")


def group(
    events: list[Event], initiating: int | None, when: Any
) -> tuple[list[SecondaryGroup], list[int]]:
    """Everything after the initiating event, by kind: ranks, event count, most common cause."""
    buckets: dict[str, list[Event]] = defaultdict(list)
    for e in events:
        if tier(e) >= 9 or e.kind == "missing_record" or is_corroboration(e):
            continue
        if e.rank is None and e.kind != "scheduler":
            continue
        if e.rank is not None and e.rank == initiating:
            continue
        buckets[e.kind].append(e)
    groups: list[SecondaryGroup] = []
    ranks: set[int] = set()
    for kind, evs in buckets.items():
        times = [t for e in evs if (t := when(e)) is not None]
        group_ranks = sorted({e.rank for e in evs if e.rank is not None})
        ranks.update(group_ranks)
        causes = Counter(_cause(e) for e in evs)
        cause = causes.most_common(1)[0][0]
        first, last = min(times, default=None), max(times, default=None)
        groups.append(SecondaryGroup(kind, cause, group_ranks, len(evs), first, last))
    groups.sort(key=lambda g: (-len(g.ranks), g.kind))
    return groups, sorted(ranks)


def _order_key(when: Any) -> Any:
    far = datetime.max.replace(tzinfo=UTC)
    return lambda e: (when(e) is None, when(e) or far, e.source, e.line_no)


def chain(
    events: list[Event],
    first: Event | None,
    root: Event | None,
    groups: list[SecondaryGroup],
    when: Any,
) -> list[Event]:
    if first is None:
        return [root] if root else []
    chain = [first]
    for e in events:
        if e is first or tier(e) > 1 or len(chain) >= _CHAIN_CAP // 2:
            continue
        same = (first.rank is not None and e.rank == first.rank) or (
            first.node is not None and e.node == first.node and e.kind in ("xid", "ecc")
        )
        if same:
            chain.append(e)
    wanted = {g.kind for g in groups}
    for e in sorted(events, key=_order_key(when)):
        if e.kind in wanted and e.rank != first.rank and tier(e) < 9:
            wanted.discard(e.kind)  # the first consequence of each kind
            chain.append(e)
    if root is not None:
        chain.append(root)
    unique = list({id(e): e for e in chain}.values())
    return sorted(unique[:_CHAIN_CAP], key=_order_key(when))


def timeline(events: list[Event], when: Any) -> list[Event]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Event] = []
    for e in sorted(events, key=_order_key(when)):
        if tier(e) >= 9:
            continue
        d = e.detail  # a Slurm step (its cancel, its sacct row) is one line of its own
        key = (e.rank, e.node, e.kind, d.get("seq"), d.get("xid"), d.get("step"), d.get("from"))
        if key in seen:
            continue
        seen.add(key)
        out.append(e)
        if len(out) >= _TIMELINE_CAP:
            break
    return out
