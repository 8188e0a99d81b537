"""An allocation's figures, exactly, in `Decimal`: what each line and the award cost and yield.

The solver's floats choose the allocation; these functions say what it is worth, so a page, a
test or a steering committee reads the same cents whatever tolerances the solver used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal

from engine.lots.model import LotSpec

from .model import Bundle, Figures, Line, Offer


def lines(
    lots: Mapping[str, LotSpec], offers: Sequence[Offer], nodes: Mapping[str, int]
) -> tuple[Line, ...]:
    """One line per offer awarded at least one node, in the offers' order."""
    out = []
    for offer in offers:
        count = nodes.get(offer.key, 0)
        if count <= 0:
            continue
        gpus = count * lots[offer.lot].gpus_per_node
        paid_hours = Decimal(gpus * offer.hours)
        out.append(
            Line(
                offer=offer.key,
                provider=offer.provider,
                lot=offer.lot,
                nodes=count,
                gpus=gpus,
                value=offer.price_per_gpu_hour * paid_hours,
                useful_gpu_hours=offer.useful_fraction * paid_hours,
            )
        )
    return tuple(out)


def discount(awarded: Sequence[Line], bundles: Sequence[Bundle]) -> Decimal:
    """The discounts earned: each discount bundle whose provider wins some of every lot in it."""
    total = Decimal(0)
    for bundle in bundles:
        if bundle.kind != "discount":
            continue
        mine = [line for line in awarded if line.provider == bundle.provider]
        if set(bundle.lots) <= {line.lot for line in mine}:
            value = sum((line.value for line in mine if line.lot in bundle.lots), Decimal(0))
            total += value * bundle.discount_pct / 100
    return total


def figures(awarded: Sequence[Line], bundles: Sequence[Bundle]) -> Figures:
    list_value = sum((line.value for line in awarded), Decimal(0))
    off = discount(awarded, bundles)
    return Figures(
        list_value=list_value,
        discount=off,
        cost=list_value - off,
        useful_gpu_hours=sum((line.useful_gpu_hours for line in awarded), Decimal(0)),
    )


def provider_value(awarded: Sequence[Line], bundles: Sequence[Bundle], provider: str) -> Decimal:
    """What the award pays one provider, after the discounts it granted."""
    mine = [line for line in awarded if line.provider == provider]
    own = [bundle for bundle in bundles if bundle.provider == provider]
    return sum((line.value for line in mine), Decimal(0)) - discount(mine, own)
