"""The price a lot is billed at once awarded: the offer's, less the discounts its bid earned."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import ROUND_HALF_UP, Decimal

from .model import DISCOUNT, Bundle

#: Reservations keep a price per GPU-hour to a tenth of a cent, as offers are written.
PRICE_PLACES = Decimal("0.001")


def awarded_lot_prices(
    *, offers: Mapping[int, Decimal], bundles: Iterable[Bundle], awarded: Iterable[int]
) -> dict[int, Decimal]:
    """Each awarded lot's price per GPU-hour after the bid's discount bundles.

    A discount bundle counts when the bid is awarded every lot it names (the award optimiser's
    rule); it takes its per cent off each of those lots' price. Two earned bundles on one lot add
    up, as their value does in the award's cost, so lot rates sum to the award's cost."""
    won = set(awarded)
    off: dict[int, Decimal] = dict.fromkeys(won, Decimal(0))
    for bundle in bundles:
        if bundle.kind != DISCOUNT or not bundle.lots or not set(bundle.lots) <= won:
            continue
        for lot in bundle.lots:
            off[lot] += bundle.discount_pct or Decimal(0)
    return {
        lot: (offers[lot] * (100 - off[lot]) / 100).quantize(PRICE_PLACES, ROUND_HALF_UP)
        for lot in won
        if lot in offers
    }
