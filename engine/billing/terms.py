"""The contract a bill is checked against, and the form every line's rules read it in: the term,
the agreed rate, the bid's caps on egress and fees, the outages, and the allocation's nodes.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import pairwise

from engine.billing.lines import EGRESS, FEE

# Distinct node texts remembered with what they resolve to: a bill names a few nodes a million
# times, and a file naming a million different ones must not grow the memo without end.
_NODE_MEMO = 65_536


@dataclass(frozen=True)
class Outage:
    """A node out of service over [start, end) (UTC seconds); node "" is the whole allocation."""

    node: str
    start: int
    end: int
    label: str  # e.g. "incident #12 (S1)"
    # The share of the time not billed, in thousandths: all of it for a node out of service;
    # the agreed fraction for a degraded S2 the terms count as downtime at a share.
    permille: int = 1000


_Merged = tuple[list[int], list[int], list[str], list[int]]


@dataclass
class Contract:
    clock_start: int
    term_end: int
    rate: int  # micro-dollars per GPU-hour
    fees: int | None  # micro-dollars over the term; None: no fees were bid
    egress: int | None
    outages: list[Outage] = field(default_factory=list)
    credits: int = 0  # micro-dollars; SLA credits computed elsewhere and passed in
    # The allocation's node names as far as they are known (the burn-in's hosts). When
    # `node_count` says the allocation has more, the first distinct other names a bill uses
    # are admitted up to that count; None: as many as `nodes` names (no limit when empty).
    nodes: tuple[str, ...] = ()
    node_count: int | None = None
    node_gpus: int | None = None  # GPUs in one node; None: not known
    currency: str = "USD"  # a line stating no currency is in this one

    @property
    def allocation_nodes(self) -> int | None:
        """How many nodes the allocation has; None: not known."""
        named = len({_node_key(n) for n in self.nodes})
        if self.node_count is None:
            return named or None
        return max(named, self.node_count)


def _node_key(name: str) -> str:
    """How a node name is compared: case aside, and a host's short name standing for it
    ('GPU-A01.hel2.example' is node 'gpu-a01'), as the burn-in matches host names."""
    text = name.strip().lower()
    short = text.split(".", 1)[0]
    return text if not short or short.isdigit() else short


class Nodes:
    """Resolves the node a line names to the allocation's node (a stable key), or None when the
    allocation has no such node."""

    def __init__(self, contract: Contract) -> None:
        self.named = {_node_key(n) for n in contract.nodes}
        total = contract.allocation_nodes
        # How many names the contract leaves unnamed; None: no limit (nothing is known).
        self.unnamed = None if total is None else total - len(self.named)
        self.admitted: set[str] = set()
        self.memo: dict[str, str | None] = {}

    def resolve(self, name: str) -> str | None:
        if name in self.memo:
            return self.memo[name]
        key = _node_key(name)
        found: str | None = key
        if self.unnamed is not None and key not in self.named and key not in self.admitted:
            if len(self.admitted) < self.unnamed:
                self.admitted.add(key)
            else:
                found = None
        if len(self.memo) < _NODE_MEMO:
            self.memo[name] = found
        return found

    def described(self) -> str:
        """The allocation's nodes as a message names them."""
        taken = sorted(self.admitted)
        billed_as = f", billed as {_listed(taken)}" if taken else ""
        if not self.named:
            total = self.unnamed or 0
            return f"the allocation has {total} node{'' if total == 1 else 's'}{billed_as}"
        listed = _listed(sorted(self.named))
        if not self.unnamed:
            return f"the contract's nodes are {listed}"
        others = f"{self.unnamed} other{'' if self.unnamed == 1 else 's'}"
        return f"the contract's nodes are {listed} and {others}{billed_as}"


def _listed(names: list[str]) -> str:
    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
    return ", ".join(names[:6]) + more


class Outages:
    """Merged outage intervals per node (the whole allocation's added to every node's)."""

    def __init__(self, outages: list[Outage]) -> None:
        whole = [o for o in outages if not o.node]
        nodes = {o.node for o in outages if o.node}
        self.by_node = {n: self._merge([o for o in outages if o.node == n] + whole) for n in nodes}
        self.whole = self._merge(whole)
        # Per node, the first start and the last end of its outages: most lines miss them all.
        self.span = {n: (v[0][0], v[1][-1]) for n, v in self.by_node.items() if v[0]}
        self.whole_span = (self.whole[0][0], self.whole[1][-1]) if self.whole[0] else (0, 0)

    @staticmethod
    def _merge(rows: list[Outage]) -> _Merged:
        if any(o.permille != 1000 for o in rows):
            return Outages._shares(rows)
        starts: list[int] = []
        ends: list[int] = []
        labels: list[str] = []
        for o in sorted(rows, key=lambda o: o.start):
            if starts and o.start <= ends[-1]:
                ends[-1] = max(ends[-1], o.end)
                if o.label not in labels[-1]:
                    labels[-1] += f", {o.label}"
            else:
                starts.append(o.start)
                ends.append(o.end)
                labels.append(o.label)
        return starts, ends, labels, [1000] * len(starts)

    @staticmethod
    def _shares(rows: list[Outage]) -> _Merged:
        """Disjoint pieces, each at the largest share of the outages covering it: a node out of
        service during a degraded S2 is out in full once, not in full plus the S2's share."""
        cuts = sorted({t for o in rows for t in (o.start, o.end)})
        out: _Merged = ([], [], [], [])
        for a, b in pairwise(cuts):
            covering = [o for o in rows if o.start <= a and b <= o.end]
            if not covering:
                continue
            share = max(o.permille for o in covering)
            label = ", ".join(dict.fromkeys(o.label for o in covering))
            starts, ends, labels, shares = out
            if starts and ends[-1] == a and shares[-1] == share and labels[-1] == label:
                ends[-1] = b
            else:
                starts.append(a)
                ends.append(b)
                labels.append(label)
                shares.append(share)
        return out

    def overlap(self, node: str, start: int, end: int) -> tuple[int, list[str]]:
        """Seconds of [start, end) during which `node` was out (a share of an outage's seconds
        where the terms count it at a share), and which outages."""
        starts, ends, labels, shares = self.by_node.get(node, self.whole)
        if not starts:
            return 0, []
        i = max(bisect_right(starts, start) - 1, 0)
        total, hit = 0, []
        while i < len(starts) and starts[i] < end:
            seconds = min(end, ends[i]) - max(start, starts[i])
            if seconds > 0:
                total += seconds * shares[i]
                if labels[i] not in hit:
                    hit.append(labels[i])
            i += 1
        return (total + 500) // 1000, hit


@dataclass(frozen=True, slots=True)
class Terms:
    """The contract as every line's rules read it: the clock, the term, the rate, the caps,
    the outages and the allocation's nodes."""

    clock: int
    term_end: int
    agreed: int  # micro-dollars per GPU-hour
    caps: dict[str, int | None]  # EGRESS and FEE over the term; None: none was bid
    outages: Outages
    nodes: Nodes
    node_gpus: int | None
    allocation_gpus: int | None
    currency: str  # upper case

    @classmethod
    def of(cls, contract: Contract) -> Terms:
        count, per_node = contract.allocation_nodes, contract.node_gpus
        return cls(
            clock=contract.clock_start,
            term_end=contract.term_end,
            agreed=contract.rate,
            caps={EGRESS: contract.egress, FEE: contract.fees},
            outages=Outages(contract.outages),
            nodes=Nodes(contract),
            node_gpus=per_node,
            allocation_gpus=count * per_node if count and per_node else None,
            currency=contract.currency.strip().upper(),
        )

    def foreign(self, currency: str) -> bool:
        """Whether a line's stated currency is not the contract's ("" states none)."""
        return bool(currency) and currency.strip().upper() not in ("", self.currency)
