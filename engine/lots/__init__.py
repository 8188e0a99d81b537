"""Lots and bundle conditions as plain data: a request's lots, what a provider offers on each,
the conditions it attaches, and the checks that word what is wrong with them.

The stored form is JSON on the bid (`lot_offers`, `bundles`); `read_offers` and `read_bundles`
turn it into these records, which scoring per lot and the award optimiser read.
"""

from .model import (
    ALL_OR_NOTHING,
    BUNDLE_KINDS,
    DISCOUNT,
    MAX_DISCOUNT_PCT,
    MAX_TOTAL,
    Bundle,
    LotOffer,
    LotSpec,
    describe_bundle,
)
from .pricing import awarded_lot_prices
from .scoring import LotFigures, lot_figures
from .validate import LotInputError, bundle_errors, offer_errors, read_bundles, read_offers

__all__ = [
    "ALL_OR_NOTHING",
    "BUNDLE_KINDS",
    "DISCOUNT",
    "MAX_DISCOUNT_PCT",
    "MAX_TOTAL",
    "Bundle",
    "LotFigures",
    "LotInputError",
    "LotOffer",
    "LotSpec",
    "awarded_lot_prices",
    "bundle_errors",
    "describe_bundle",
    "lot_figures",
    "offer_errors",
    "read_bundles",
    "read_offers",
]
