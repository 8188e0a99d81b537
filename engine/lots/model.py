"""The records: a lot as bid on, one offer on one lot, and one bundle condition."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

ALL_OR_NOTHING = "all_or_nothing"  # only together with all the named lots
DISCOUNT = "discount"  # −N % on the named lots' price if all of them are awarded
MAX_TOTAL = "max_total"  # at most N GPUs across every lot awarded to this bid
BUNDLE_KINDS = (ALL_OR_NOTHING, DISCOUNT, MAX_TOTAL)
MAX_DISCOUNT_PCT = Decimal("50")


@dataclass(frozen=True)
class LotSpec:
    """One lot of a request: `gpus` to be covered exactly, in whole nodes of `gpus_per_node`.
    The one record of a lot, for the bid checks and lot scoring here and for the award
    optimiser (`engine.award`).

    An indivisible lot goes whole to one provider; a divisible one is split in whole nodes, each
    awarded piece at least `min_block_nodes`. `fabric_domain_required` keeps every node of the
    lot in one fabric domain. `region`, when set, is where the lot must be delivered: the
    optimiser leaves offers from elsewhere out (and lists them as ineligible). `key` names the
    lot to the optimiser and in its results; `number` is its number on the request, which a
    provider's lot offers name (0 where nothing numbers it).
    """

    key: str
    gpus: int
    gpus_per_node: int
    divisible: bool = False
    min_block_nodes: int = 1
    fabric_domain_required: bool = False
    region: str | None = None
    number: int = 0

    @property
    def nodes(self) -> int:
        return self.gpus // self.gpus_per_node

    @property
    def smallest_block_nodes(self) -> int:
        """The fewest nodes one provider may be offered or awarded: all of an indivisible lot."""
        if not self.divisible:
            return self.nodes
        return max(self.min_block_nodes, 1)


@dataclass(frozen=True)
class LotOffer:
    lot: int
    price_per_gpu_hour: Decimal
    nodes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "lot": self.lot,
            "price_per_gpu_hour": str(self.price_per_gpu_hour),
            "nodes": self.nodes,
        }


@dataclass(frozen=True)
class Bundle:
    kind: str
    lots: tuple[int, ...] = ()
    discount_pct: Decimal | None = None
    max_gpus: int | None = None

    def to_json(self) -> dict[str, Any]:
        if self.kind == MAX_TOTAL:
            return {"kind": self.kind, "max_gpus": self.max_gpus}
        out: dict[str, Any] = {"kind": self.kind, "lots": list(self.lots)}
        if self.kind == DISCOUNT:
            out["discount_pct"] = str(self.discount_pct)
        return out


def _lot_list(lots: tuple[int, ...]) -> str:
    names = [f"lot {n}" for n in lots]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def describe_bundle(bundle: Bundle) -> str:
    """The condition in a sentence, as the comparison page and the bid page print it."""
    if bundle.kind == ALL_OR_NOTHING:
        return f"Only together: {_lot_list(bundle.lots)}, all or none."
    if bundle.kind == DISCOUNT:
        return f"−{bundle.discount_pct:g} % if awarded all of {_lot_list(bundle.lots)}."
    return f"At most {bundle.max_gpus:,} GPUs across all lots."
