"""Which rank and node each event belongs to, and which ranks of the world left no record.

Logs name a node by their path, a rank by a prefix, a process id, a local GPU or a PCI address;
these helpers turn whichever the evidence gives into (rank, node) for every event.
"""

from __future__ import annotations

import re
from collections import defaultdict

from .model import Event
from .normalise import short_node
from .rankmap import RankMap
from .unpickle import rank_from_name

_SEEN_RANK = re.compile(r"^(?:\s*(\d{1,6}): |(?:\[[a-z_]+\d+\]:)?\[rank(\d+)\]:)", re.MULTILINE)
KERNEL_LOG_NAME = re.compile(r"dmesg|kern|syslog|journal|messages", re.I)


def node_from_path(name: str, known: set[str]) -> str | None:
    """The known node a file's path names (a folder, its stem or part of it), else the numbered
    folder a kernel log sits in."""
    parts = name.replace("\\", "/").split("/")
    stem = parts[-1].split(".", 1)[0]
    candidates = [*parts[:-1], stem, *re.split(r"[_]", stem)]
    candidates += [re.sub(r"^(?:dmesg|kern|kernel|syslog|journal|nvidia-smi|gpus)[-_]", "", c)
                   for c in candidates]  # fmt: skip
    for c in candidates:
        if short_node(c) in known:
            return short_node(c)
    if len(parts) > 1 and KERNEL_LOG_NAME.search(parts[-1]) and re.search(r"\d", parts[-2]):
        return short_node(parts[-2])
    # A kernel log named for its node: `dmesg-gpu-node-031.txt`, `gpu-node-031-dmesg.log`,
    # `gpu-node-031.dmesg` (a numbered host, as a folder's must be).
    host = _KERNEL_AFFIX.sub("", stem)
    named = host != stem or _KERNEL_SUFFIX.search(parts[-1]) is not None
    # A host has a letter and a digit: not a date (`journal-2026-03-02`), nor a rank's log.
    plausible = re.search(r"\d", host) and re.search(r"[A-Za-z]", host)
    if named and plausible and not re.fullmatch(r"rank\d+", host, re.I):
        return short_node(host)
    return None


_KERNEL_WORD = r"(?:dmesg|kern|kernel|syslog|journal)"
_KERNEL_AFFIX = re.compile(rf"^{_KERNEL_WORD}[-_.]|[-_.]{_KERNEL_WORD}$", re.I)
_KERNEL_SUFFIX = re.compile(rf"\.{_KERNEL_WORD}(?:\.\w+)?$", re.I)


def place_events(events: list[Event], rmap: RankMap, authoritative: dict[int, str]) -> None:
    """Fill rank from (node, pid) / (node, local GPU) / (node, PCI), and node from rank.

    `authoritative`: an uploaded rank map's rank → node. It wins over a launcher's `host`, which
    may be an FQDN, an alias, or (emulated nodes) the same machine twice."""
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
        if e.rank is not None and e.kind != "missing_record":
            if e.rank in authoritative and e.kind in ("launcher_summary", "scheduler"):
                e.node = authoritative[e.rank]
            elif e.node is None:
                e.node = rmap.node_of(e.rank)
        if d.get("peer_ip") in rmap.ips:
            d["peer_node"] = rmap.ips[d["peer_ip"]]


def unrecorded_ranks(
    world: int | None,
    events: list[Event],
    texts: list[tuple[str, str]],
    names: list[str],
    dumped: set[int],
) -> list[int]:
    if not world or world > 1_000_000:
        return []
    # A "missing record" event (a rank absent from the dumps) is no record of the rank.
    seen = {e.rank for e in events if e.rank is not None and e.kind != "missing_record"} | dumped
    seen |= {r for n in names if (r := rank_from_name(n, require_rank_word=True)) is not None}
    if len(seen) >= world:
        return []
    # Ranks that logged only chatter still have a record: look for their prefixes.
    for _, text in texts:
        for m in _SEEN_RANK.finditer(text):
            seen.add(int(m.group(1) or m.group(2)))
            if len(seen) >= world:
                return []
    return sorted(set(range(world)) - seen)


# A rank that timed out, lost its peer or raised the cascade's exception complained.
_COMPLAINTS = frozenset({"nccl_timeout", "gloo", "python_exception", "peer_lost"})


def uncomplaining_ranks(events: list[Event], world: int | None) -> list[int]:
    """Ranks with a record but no complaint (timeout, lost peer), when most of the world
    complained: the rank that stopped participating is the one that did not wait."""
    # A restarted container's complaints are the aftermath: its rank may be the one that died.
    complained = {
        e.rank for e in events
        if e.rank is not None and e.kind in _COMPLAINTS and e.secondary
        and not e.detail.get("after_restart")
    }  # fmt: skip
    if not world or len(complained) < world / 2:
        return []
    present = {e.rank for e in events if e.rank is not None and e.kind != "missing_record"}
    return sorted(present - complained)[:16]
