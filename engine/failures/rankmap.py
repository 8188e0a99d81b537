"""Which rank ran where: rank → node, local rank and GPU PCI address.

From an explicit CSV (`rank,node[,local_rank,pci_bus_id]`, header optional) or JSON (a mapping
`{"0": "node-1"}` / `{"0": {"node": ...}}` or a list of objects), from an nvidia-smi-like GPU list
(`index, pci.bus_id`) per node, or derived from the logs (NCCL `Init COMPLETE` lines of the world
communicator, torchrun's `global_ranks=[...]` dump).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import RankMapError
from .model import Event
from .normalise import short_node
from .pci import pci_key


@dataclass(slots=True)
class RankInfo:
    rank: int
    node: str | None = None
    local_rank: int | None = None
    pci: str | None = None


@dataclass(slots=True)
class RankMap:
    ranks: dict[int, RankInfo] = field(default_factory=dict)
    # (node, pci) → local GPU index, from nvidia-smi-like lists.
    gpus: dict[tuple[str, str], int] = field(default_factory=dict)
    ips: dict[str, str] = field(default_factory=dict)
    # (node, pid) → rank, so NCCL lines (`host:pid:tid [dev]`) of any communicator find their rank.
    pids: dict[tuple[str, int], int] = field(default_factory=dict)
    derived: bool = False

    def node_of(self, rank: int) -> str | None:
        info = self.ranks.get(rank)
        return info.node if info else None

    def nodes(self) -> set[str]:
        return {i.node for i in self.ranks.values() if i.node}

    def world_size(self) -> int | None:
        return max(self.ranks) + 1 if self.ranks else None

    def ranks_on(self, node: str) -> list[int]:
        return sorted(r for r, i in self.ranks.items() if i.node == node)

    def rank_at(self, node: str, local_rank: int) -> int | None:
        on_node = sorted(r for r, i in self.ranks.items() if i.node == node)
        for r in on_node:
            if self.ranks[r].local_rank == local_rank:
                return r
        # No local ranks given: torchrun numbers a node's ranks consecutively.
        if on_node and all(self.ranks[r].local_rank is None for r in on_node):
            return on_node[local_rank] if 0 <= local_rank < len(on_node) else None
        return None

    def update(self, other: RankMap) -> None:
        """Fill gaps from `other`; what is already known (an explicit map) wins."""
        for r, info in other.ranks.items():
            mine = self.ranks.setdefault(r, RankInfo(r))
            mine.node = mine.node or info.node
            mine.local_rank = mine.local_rank if mine.local_rank is not None else info.local_rank
            mine.pci = mine.pci or info.pci
        for key, value in other.gpus.items():
            self.gpus.setdefault(key, value)
        for ip, node in other.ips.items():
            self.ips.setdefault(ip, node)
        for pid_key, rank in other.pids.items():
            self.pids.setdefault(pid_key, rank)


def looks_like_rank_map(name: str, data: bytes) -> bool:
    base = name.rsplit("/", 1)[-1].lower()
    head = data[:200].lstrip().lower()
    if ("rank" in base and ("map" in base or "host" in base or "node" in base)) and base.endswith(
        (".csv", ".json", ".txt")
    ):
        return True
    return head.startswith((b"rank,node", b"rank, node"))


def looks_like_gpu_list(data: bytes) -> bool:
    first = data[:200].split(b"\n", 1)[0].lower()
    return b"pci.bus_id" in first and b"index" in first


def parse_rank_map(data: bytes, *, name: str = "rank map") -> RankMap:
    """Read a CSV or JSON rank map; RankMapError with the line on anything malformed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RankMapError(f"{name}: not UTF-8 text") from exc
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        return _from_json(stripped, name)
    return _from_csv(text, name)


def _from_json(text: str, name: str) -> RankMap:
    try:
        raw: Any = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RankMapError(f"{name}: invalid JSON ({exc})") from exc
    if isinstance(raw, dict) and isinstance(raw.get("ranks"), list | dict):
        raw = raw["ranks"]
    items: Iterable[tuple[Any, Any]]
    if isinstance(raw, dict):
        items = raw.items()
    elif isinstance(raw, list):
        items = ((row.get("rank") if isinstance(row, dict) else None, row) for row in raw)
    else:
        raise RankMapError(f"{name}: expected a mapping or a list of ranks")
    out = RankMap()
    for key, value in items:
        row = value if isinstance(value, dict) else {"node": value}
        out.ranks[_int(key, name, "rank")] = _info(_int(key, name, "rank"), row, name)
    return out


def _from_csv(text: str, name: str) -> RankMap:
    out = RankMap()
    header: list[str] | None = None
    for line_no, row in enumerate(csv.reader(io.StringIO(text)), 1):
        cells = [c.strip() for c in row]
        if not cells or not any(cells) or cells[0].startswith("#"):
            continue
        if header is None and not cells[0].isdigit():
            header = [c.lower().replace(" ", "_") for c in cells]
            continue
        keys = header or ["rank", "node", "local_rank", "pci_bus_id"]
        record = dict(zip(keys, cells, strict=False))
        if "rank" not in record or not record.get("node", record.get("host")):
            raise RankMapError(f"{name}: line {line_no}: need rank and node")
        rank = _int(record["rank"], name, f"line {line_no}: rank")
        out.ranks[rank] = _info(rank, record, f"{name}: line {line_no}")
    if not out.ranks:
        raise RankMapError(f"{name}: no ranks")
    return out


def _info(rank: int, row: dict[str, Any], where: str) -> RankInfo:
    node = row.get("node") or row.get("host") or row.get("hostname")
    if not isinstance(node, str) or not node.strip():
        raise RankMapError(f"{where}: rank {rank} has no node")
    local = row.get("local_rank")
    pci = row.get("pci_bus_id") or row.get("pci")
    return RankInfo(
        rank,
        short_node(node),
        _int(local, where, "local_rank") if local not in (None, "") else None,
        pci_key(str(pci)) if pci else None,
    )


def _int(value: Any, where: str, what: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RankMapError(f"{where}: {what} {value!r} is not an integer") from None
    if number < 0 or number > 10_000_000:
        raise RankMapError(f"{where}: {what} {number} out of range")
    return number


def parse_gpu_list(data: bytes, *, node: str) -> dict[tuple[str, str], int]:
    """nvidia-smi --query-gpu=index,pci.bus_id --format=csv → {(node, pci): index}."""
    out: dict[tuple[str, str], int] = {}
    rows = list(csv.reader(io.StringIO(data.decode("utf-8", "replace"))))
    if not rows:
        return out
    header = [c.strip().lower() for c in rows[0]]
    try:
        i_idx, i_pci = header.index("index"), header.index("pci.bus_id")
    except ValueError:
        return out
    for row in rows[1:]:
        if len(row) > max(i_idx, i_pci) and row[i_idx].strip().isdigit():
            key = pci_key(row[i_pci])
            if key:
                out[(node, key)] = int(row[i_idx].strip())
    return out


def split_comms(events: Iterable[Event]) -> set[tuple[str, str]]:
    """(source, communicator address) of the communicators NCCL says were split from another:
    their other lines (`comm 0x… rank 0 nRanks 4 nNodes 4`, `Init COMPLETE`) carry no mark."""
    return {(e.source, e.detail["comm"]) for e in events
            if e.kind == "nccl_init" and e.detail.get("split") and "comm" in e.detail}  # fmt: skip


def is_split(e: Event, splits: set[tuple[str, str]]) -> bool:
    return bool(e.detail.get("split")) or (e.source, e.detail.get("comm", "")) in splits


def derive_rank_map(events: Iterable[Event]) -> RankMap:
    """Rank → node/local GPU from NCCL init lines of the largest communicator that was not
    split from another, plus IP → node."""
    out = RankMap(derived=True)
    events = list(events)
    splits = split_comms(events)
    inits = [e for e in events if e.kind == "nccl_init" and not is_split(e, splits)]
    world = max((e.detail.get("nranks", 0) for e in inits), default=0)
    for e in inits:
        d = e.detail
        if d.get("ip") and e.node:
            out.ips.setdefault(d["ip"], e.node)
        if world and d.get("nranks") == world and e.node:
            rank = d["comm_rank"]
            info = out.ranks.setdefault(rank, RankInfo(rank))
            info.node = info.node or e.node
            info.local_rank = d.get("local_dev") if info.local_rank is None else info.local_rank
            info.pci = info.pci or d.get("pci")
            if d.get("pid") is not None:
                out.pids[(e.node, d["pid"])] = rank
        if d.get("global_ranks") and e.node:
            for local, rank in enumerate(d["global_ranks"]):
                info = out.ranks.setdefault(rank, RankInfo(rank))
                info.node = info.node or e.node
                info.local_rank = local if info.local_rank is None else info.local_rank
    for e in events:
        if e.detail.get("ip") and e.node and e.kind != "nccl_init":
            out.ips.setdefault(e.detail["ip"], e.node)
    return out
