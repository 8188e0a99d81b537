"""Which contract node a bill's id means: clouds bill instance ids, resource paths and host
names, while the contract and the incidents name nodes as the buyer knows them.

A proposal for the user to confirm, never applied silently: matches by exact name, then by the
same name written differently (case, path, domain, punctuation), then the rest paired in order
(first billed id seen with the first unmatched node) and marked as such.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

EXACT, NORMALISED, ORDER = "exact", "normalised", "order"


@dataclass
class NodeMatch:
    matched: dict[str, str] = field(default_factory=dict)  # billed id -> contract node
    how: dict[str, str] = field(default_factory=dict)  # billed id -> EXACT, NORMALISED, ORDER
    unmatched_billed: list[str] = field(default_factory=list)  # match no node
    unmatched_nodes: list[str] = field(default_factory=list)  # match no billed id


def normalise(*, name: str) -> str:
    """The name inside an id: the last segment of a resource path ("/subscriptions/…/
    virtualMachines/nd-01" -> "nd01"), the host of a domain name, lower case, letters and
    digits only."""
    text = name.strip().rstrip("/").lower()
    text = text.rsplit("/", 1)[-1]
    if "." in text and not re.fullmatch(r"[\d.]+", text):
        text = text.split(".", 1)[0]  # gpu-b01.cluster.local -> gpu-b01
    return re.sub(r"[^a-z0-9]", "", text)


def match_nodes(*, billed: Sequence[str], nodes: Sequence[str], by_order: bool = True) -> NodeMatch:
    """Propose billed id -> node. Blank billed ids are ignored; each node is matched once."""
    out = NodeMatch()
    ids = list(dict.fromkeys(b for b in billed if b and b.strip()))
    free = list(dict.fromkeys(nodes))
    for kind, key in ((EXACT, str.strip), (NORMALISED, lambda n: normalise(name=n))):
        by_key: dict[str, str] = {}
        for node in free:
            by_key.setdefault(key(node), node)
        for billed_id in ids:
            found = by_key.get(key(billed_id)) if billed_id not in out.matched else None
            if found is not None and found in free and key(billed_id):
                out.matched[billed_id], out.how[billed_id] = found, kind
                free.remove(found)
    rest = [b for b in ids if b not in out.matched]
    if by_order:
        for billed_id, node in zip(rest, list(free), strict=False):
            out.matched[billed_id], out.how[billed_id] = node, ORDER
            free.remove(node)
    out.unmatched_billed = [b for b in ids if b not in out.matched]
    out.unmatched_nodes = free
    return out
