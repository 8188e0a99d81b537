"""`analyse(sources)`: from a failed run's files to the initiating rank, its evidence and the
ranks that merely waited. Pure Python; the Django side stores the result of `to_json()`."""

from __future__ import annotations

import gc
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from .errors import DumpError
from .flightrec import DumpSummary, Mismatch, analyse_dumps, summarise
from .model import Event, SourceFile
from .normalise import normalise_text, short_node
from .rankmap import (
    RankMap,
    derive_rank_map,
    looks_like_gpu_list,
    looks_like_rank_map,
    parse_gpu_list,
    parse_rank_map,
)
from .skew import ClockSkew, estimate_skew
from .timestamps import guess_year
from .unpickle import load_dump, looks_like_dump, rank_from_name
from .verdict import choose, is_corroboration, tier

_TIMELINE_CAP = 500
_CHAIN_CAP = 30
_SEEN_RANK = re.compile(r"^(?:\s*(\d{1,6}): |\[rank(\d+)\]:)", re.MULTILINE)
_KERNEL_NAME = re.compile(r"dmesg|kern|syslog|journal|messages", re.I)


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


@dataclass(slots=True)
class Analysis:
    first_failure: Event | None
    initiating_rank: int | None
    initiating_node: str | None
    confidence: str  # high | medium | low
    reasons: list[str]
    chain: list[Event]
    secondaries: list[SecondaryGroup]
    secondary_ranks: list[int]
    missing: list[str]
    missing_ranks: list[int]
    missing_dumps: list[int]
    mismatches: list[Mismatch]
    suggested_owner: str  # application | infrastructure | undetermined
    owner_reasons: list[str]
    skew: list[ClockSkew]
    launcher_root_cause: Event | None
    timeline: list[Event]
    world_size: int | None
    refused: list[dict[str, str]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        if self.first_failure is None:
            return "no initiating event found"
        where = f"rank {self.initiating_rank}" if self.initiating_rank is not None else "rank ?"
        return (
            f"{where} on {self.initiating_node or 'unknown node'}: {self.first_failure.kind} "
            f"(1 initiating, {len(self.secondary_ranks)} secondary; confidence {self.confidence})"
        )

    def to_json(self) -> dict[str, Any]:
        first = self.first_failure.to_json() if self.first_failure else None
        return {
            "summary": self.summary(),
            "first_failure": first,
            "initiating_rank": self.initiating_rank,
            "initiating_node": self.initiating_node,
            "confidence": self.confidence,
            "reasons": self.reasons,
            "suggested_owner": self.suggested_owner,
            "owner_reasons": self.owner_reasons,
            "chain": [e.to_json() for e in self.chain],
            "secondary_ranks": self.secondary_ranks,
            "secondaries": [g.to_json() for g in self.secondaries],
            "missing_ranks": self.missing_ranks,
            "missing_dumps": self.missing_dumps,
            "missing": self.missing,
            "mismatches": [
                {"seq": m.seq, "pg": m.pg, "field": m.field, "ranks": m.ranks, "values": m.values}
                for m in self.mismatches
            ],
            "clock_skew": [s.to_json() for s in self.skew],
            "launcher_root_cause": (
                self.launcher_root_cause.to_json() if self.launcher_root_cause else None
            ),
            "timeline": [e.to_json() for e in self.timeline],
            "world_size": self.world_size,
            "refused": self.refused,
            "stats": self.stats,
        }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def analyse(
    sources: Iterable[SourceFile],
    *,
    rank_map: RankMap | None = None,
    world_size: int | None = None,
    year: int | None = None,
    tz: tzinfo = UTC,
) -> Analysis:
    """Analyse a failed run. `year`/`tz` apply to log timestamps that carry neither."""
    files = list(sources)
    missing: list[str] = []
    refused = [{"name": f.name, "reason": f.refused or ""} for f in files if f.refused]
    missing += [f"{r['name']}: refused ({r['reason']})" for r in refused]
    explicit = RankMap()
    texts: list[tuple[SourceFile, str]] = []
    dumps: dict[int, DumpSummary] = {}
    sig_cache: dict[Any, Any] = {}
    dump_sources: dict[int, str] = {}
    gpu_lists: list[SourceFile] = []
    # Thousands of dumps make millions of small containers that all stay alive; the cyclic GC
    # would rescan them again and again (quadratic). None of them can form cycles worth collecting.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        used = _sort_sources(
            files, texts, dumps, dump_sources, gpu_lists, explicit, missing, refused, sig_cache
        )
    finally:
        if gc_was_enabled:
            gc.enable()
    if rank_map is not None:
        rank_map.update(explicit)
        explicit = rank_map
    if year is None:
        year = next((y for _, t in texts if (y := guess_year(t[:1_000_000]))), None)
        year = year or datetime.now(UTC).year

    known = explicit.nodes()
    events: list[Event] = []
    kernel_nodes: set[str] = set()
    for f, text in texts:
        node = _node_from_path(f.name, known)
        evs = normalise_text(
            text,
            source=f.name,
            year=year,
            tz=tz,
            rank=rank_from_name(f.name, require_rank_word=True),
            node=node,
        )
        if node and (_KERNEL_NAME.search(f.name) or any(e.kind in ("xid", "ecc") for e in evs)):
            kernel_nodes.add(node)
        events.extend(evs)

    rmap = explicit
    rmap.update(derive_rank_map(events))
    for f in gpu_lists:
        node = _node_from_path(f.name, rmap.nodes())
        if node:
            rmap.gpus.update(parse_gpu_list(f.data, node=node))
    _resolve(events, rmap)

    if world_size is None:
        inits = [e.detail.get("nranks", 0) for e in events if e.kind == "nccl_init"]
        world_size = rmap.world_size() or (max(inits) if inits and max(inits) else None)
    fr = analyse_dumps(dumps, dump_sources, world_size=world_size)
    if world_size is None and dumps:
        world_size = max([*dumps, *fr.missing_dumps]) + 1
    for e in fr.events:
        e.node = e.node or rmap.node_of(e.rank) if e.rank is not None else e.node
    events.extend(fr.events)
    missing += [f"no Flight Recorder dump for rank {r}" for r in fr.missing_dumps[:64]]
    if len(fr.missing_dumps) > 64:
        missing.append(f"... and {len(fr.missing_dumps) - 64} more ranks without a dump")

    missing_ranks = _missing_ranks(world_size, events, texts, files, set(dumps))
    for rank in missing_ranks:
        events.append(
            Event(None, rank, rmap.node_of(rank), "(bundle)", 0, "missing_record",
                  f"no log or dump for rank {rank}", {"what": "log", "tier": 2})
        )  # fmt: skip
    missing += [f"no log or dump for rank {r}" for r in missing_ranks[:64]]

    skew = estimate_skew(events)
    offsets = {s.node: timedelta(seconds=s.offset_s) for s in skew if s.applied}

    def when(e: Event) -> datetime | None:
        if e.time_utc is None:
            return None
        return e.time_utc - offsets[e.node] if e.node in offsets else e.time_utc

    silent = _silent_ranks(events, world_size)
    verdict = choose(events, when=when, world_size=world_size, ip_nodes=rmap.ips,
                     silent_ranks=silent, node_of=rmap.node_of,
                     waiting=fr.waiting)  # fmt: skip
    reasons = list(verdict.reasons)
    for s in skew:
        verb = "corrected" if s.applied else "not corrected (anchors disagree)"
        reasons.append(f"clock skew: {s.node} is {s.offset_s:+.1f} s off; {verb}")
    roots = [e for e in events if e.kind == "launcher_summary" and e.detail.get("root_cause")]
    root = min(roots, key=lambda e: (when(e) is None, when(e) or datetime.max.replace(tzinfo=UTC)),
               default=None)  # fmt: skip
    if root is not None and root.rank != verdict.rank:
        reasons.append(
            f"torchrun's 'first observed failure' is rank {root.rank} on {root.node}: only the "
            "first process that exited on that node, not the rank that failed first"
        )
    kind = verdict.event.kind if verdict.event else None
    if verdict.node and kind in ("cuda_error", "oom") and verdict.node not in kernel_nodes:
        missing.append(f"no kernel log (Xid/ECC) for {verdict.node}")

    groups, secondary_ranks = _group(events, verdict.rank, when)
    return Analysis(
        first_failure=verdict.event,
        initiating_rank=verdict.rank,
        initiating_node=verdict.node,
        confidence=verdict.confidence,
        reasons=reasons,
        chain=_chain(events, verdict.event, root, groups, when),
        secondaries=groups,
        secondary_ranks=secondary_ranks,
        missing=missing,
        missing_ranks=missing_ranks,
        missing_dumps=fr.missing_dumps,
        mismatches=fr.mismatches,
        suggested_owner=verdict.owner,
        owner_reasons=verdict.owner_reasons + list(fr.notes),
        skew=skew,
        launcher_root_cause=root,
        timeline=_timeline(events, when),
        world_size=world_size,
        refused=refused,
        stats={
            "files": len(files),
            "used": used,
            "bytes": sum(f.size for f in files),
            "events": len(events),
            "dumps": len(dumps),
        },
    )


def _sort_sources(
    files: list[SourceFile],
    texts: list[tuple[SourceFile, str]],
    dumps: dict[int, DumpSummary],
    dump_sources: dict[int, str],
    gpu_lists: list[SourceFile],
    explicit: RankMap,
    missing: list[str],
    refused: list[dict[str, str]],
    sig_cache: dict[Any, Any],
) -> int:
    """Route each file: Flight Recorder dump, rank map, GPU list, skipped binary, or log text.
    Files that cannot be used join `refused` with the reason; returns how many were used."""
    used = 0
    for f in files:
        why = None
        if f.refused:
            continue
        if not f.data:
            why = "empty file"
        elif looks_like_dump(f.name, f.data):
            why = _load_dump(f, dumps, dump_sources, missing, sig_cache)
        elif looks_like_rank_map(f.name, f.data):
            explicit.update(parse_rank_map(f.data, name=f.name))
        elif looks_like_gpu_list(f.data):
            gpu_lists.append(f)
        elif b"\x00" in f.data[:8192]:
            why = "binary file, not a log or a dump"
        else:
            texts.append((f, f.data.decode("utf-8", errors="replace")))
        if why is None:
            used += 1
        else:
            refused.append({"name": f.name, "reason": why})
            if not why.startswith("Flight Recorder"):
                missing.append(f"{f.name}: skipped ({why})")
    return used


def _load_dump(
    f: SourceFile,
    dumps: dict[int, DumpSummary],
    names: dict[int, str],
    missing: list[str],
    cache: dict[Any, Any],
) -> str | None:
    """None when loaded, else why the dump cannot be used."""
    rank = rank_from_name(f.name)
    if rank is None:
        missing.append(f"{f.name}: Flight Recorder dump without a rank in its name; skipped")
        return "Flight Recorder dump without a rank in its name"
    try:
        # Keep only the summary: 4,096 full dumps would not fit the memory budget.
        dumps[rank] = summarise(load_dump(f.data, name=f.name), cache)
        names[rank] = f.name
    except DumpError as exc:
        missing.append(f"Flight Recorder dump for rank {rank} refused: {exc}")
        return f"Flight Recorder dump refused: {str(exc).removeprefix(f'{f.name}: ')}"
    return None


def _node_from_path(name: str, known: set[str]) -> str | None:
    parts = name.replace("\\", "/").split("/")
    stem = parts[-1].split(".", 1)[0]
    candidates = [*parts[:-1], stem, *re.split(r"[_]", stem)]
    candidates += [re.sub(r"^(?:dmesg|kern|kernel|syslog|journal|nvidia-smi|gpus)[-_]", "", c)
                   for c in candidates]  # fmt: skip
    for c in candidates:
        if short_node(c) in known:
            return short_node(c)
    if len(parts) > 1 and _KERNEL_NAME.search(parts[-1]) and re.search(r"\d", parts[-2]):
        return short_node(parts[-2])
    return None


def _resolve(events: list[Event], rmap: RankMap) -> None:
    """Fill rank from (node, pid) / (node, local GPU) / (node, PCI), and node from rank."""
    by_local: dict[tuple[str, int], int] = {}
    by_pci: dict[tuple[str, str], int] = {}
    counts: dict[str, list[int]] = defaultdict(list)
    for r, info in sorted(rmap.ranks.items()):
        if info.node is None:
            continue
        counts[info.node].append(r)
        if info.local_rank is not None:
            by_local[(info.node, info.local_rank)] = r
        if info.pci:
            by_pci[(info.node, info.pci)] = r
    for node, ranks in counts.items():  # no local ranks: consecutive numbering per node
        for i, r in enumerate(ranks):
            by_local.setdefault((node, i), r)
    for (node, pci), local in rmap.gpus.items():
        if (node, local) in by_local:
            by_pci.setdefault((node, pci), by_local[(node, local)])
    for e in events:
        d = e.detail
        if e.rank is None and e.node:
            if d.get("pid") is not None and (e.node, d["pid"]) in rmap.pids:
                e.rank = rmap.pids[(e.node, d["pid"])]
            elif d.get("pci") and e.kind in ("xid", "ecc"):
                e.rank = by_pci.get((e.node, d["pci"]))
            else:
                local_gpu: int | None = d.get("local_rank", d.get("local_dev"))
                if local_gpu is not None:
                    e.rank = by_local.get((e.node, local_gpu))
        if e.node is None and e.rank is not None and e.kind != "missing_record":
            e.node = rmap.node_of(e.rank)
        if d.get("peer_ip") in rmap.ips:
            d["peer_node"] = rmap.ips[d["peer_ip"]]


def _missing_ranks(
    world: int | None,
    events: list[Event],
    texts: list[tuple[SourceFile, str]],
    files: list[SourceFile],
    dumped: set[int],
) -> list[int]:
    if not world or world > 1_000_000:
        return []
    # A "missing record" event (a rank absent from the dumps) is no record of the rank.
    seen = {e.rank for e in events if e.rank is not None and e.kind != "missing_record"} | dumped
    seen |= {r for f in files if (r := rank_from_name(f.name, require_rank_word=True)) is not None}
    if len(seen) >= world:
        return []
    # Ranks that logged only chatter still have a record: look for their prefixes.
    for _, text in texts:
        for m in _SEEN_RANK.finditer(text):
            seen.add(int(m.group(1) or m.group(2)))
            if len(seen) >= world:
                return []
    return sorted(set(range(world)) - seen)


def _silent_ranks(events: list[Event], world: int | None) -> list[int]:
    """Ranks with a record but no complaint (timeout, lost peer), when most of the world
    complained: the rank that stopped participating is the one that did not wait."""
    complained = {
        e.rank for e in events
        if e.rank is not None and e.kind in ("nccl_timeout", "gloo", "python_exception")
        and e.secondary
    }  # fmt: skip
    if not world or len(complained) < world / 2:
        return []
    present = {e.rank for e in events if e.rank is not None and e.kind != "missing_record"}
    return sorted(present - complained)[:16]


def _cause(e: Event) -> str:
    d = e.detail
    if e.kind == "nccl_timeout":
        return f"collective {d['seq']}" if "seq" in d else "watchdog"
    if e.kind in ("signal", "launcher_summary") and "signal" in d:
        return f"signal {d['signal']}"
    return str(d.get("cause") or d.get("exc_type") or d.get("error") or "")


def _group(
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


def _chain(
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


def _timeline(events: list[Event], when: Any) -> list[Event]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Event] = []
    for e in sorted(events, key=_order_key(when)):
        if tier(e) >= 9:
            continue
        key = (e.rank, e.node, e.kind, e.detail.get("seq"), e.detail.get("xid"))
        if key in seen:
            continue
        seen.add(key)
        out.append(e)
        if len(out) >= _TIMELINE_CAP:
            break
    return out
