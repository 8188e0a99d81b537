"""Offer kinds by isolation on requests and bids: which kinds a request accepts, and whether a
bid's kind carries its specifics (a MIG profile its GPU model offers, time-slice replicas).

The arithmetic (a slice's share of a GPU, whether a request accepts a kind) lives in
`engine.scoring.offer_kinds`; these functions word its answers per form field.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.scoring.offer_kinds import (
    ISOLATION_NOTES,
    MIG,
    OFFER_KINDS,
    TIME_SLICED,
    OfferKindError,
    describe,
    device_fraction,
    mig_profile,
    refusal,
)

if TYPE_CHECKING:
    from bids.models.bids import BidTerms
    from bids.models.requests import CapacityRequest

Errors = dict[str, list[str]]
CENT_TENTHS = Decimal("0.001")


@dataclass(frozen=True)
class OfferKind:
    """A bid's offer kind as pages, the API and the annex print it."""

    kind: str
    description: str  # "MIG 3g.71gb (3/7 of a GPU)"
    isolation: str
    fraction: Fraction
    price_per_slice_hour: Decimal | None
    price_per_device_hour: Decimal | None  # the same price for one whole-device-equivalent hour

    @property
    def fraction_text(self) -> str:
        return str(self.fraction)


def offer_kind_of(terms: BidTerms) -> OfferKind | None:
    return offer_kind_from(
        kind=terms.isolation_class,
        profile=terms.mig_profile,
        replicas=terms.time_slice_replicas,
        price=terms.price_per_gpu_hour,
    )


def offer_kind_from(
    *, kind: str, profile: str, replicas: int | None, price: Decimal | None
) -> OfferKind | None:
    """None while the kind lacks its specifics (a MIG draft without its profile)."""
    try:
        fraction = device_fraction(kind=kind, profile=profile, replicas=replicas)
    except OfferKindError:
        return None
    per_device = None
    if price is not None:
        exact = Fraction(price) / fraction
        per_device = (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(
            CENT_TENTHS, rounding=ROUND_HALF_UP
        )
    return OfferKind(
        kind=kind,
        description=describe(kind=kind, profile=profile, replicas=replicas),
        isolation=ISOLATION_NOTES.get(kind, ""),
        fraction=fraction,
        price_per_slice_hour=price,
        price_per_device_hour=per_device,
    )


def offer_kind_request_errors(req: CapacityRequest) -> Errors:
    """A request names at least one known kind, and a smallest MIG profile only with MIG."""
    kinds = list(req.accepted_offer_kinds or [])
    if not kinds:
        return {"accepted_offer_kinds": ["Choose at least one offer kind you accept."]}
    unknown = sorted(set(kinds) - set(OFFER_KINDS))
    if unknown:
        return {"accepted_offer_kinds": [f"Unknown offer kind(s): {', '.join(unknown)}."]}
    if not req.min_mig_profile:
        return {}
    if MIG not in kinds:
        return {"min_mig_profile": ["Accept MIG offers, or leave the smallest profile empty."]}
    try:
        mig_profile(req.min_mig_profile, gpu_model=req.gpu_model or None)
    except OfferKindError as exc:
        return {"min_mig_profile": [str(exc)]}
    return {}


def offer_kind_bid_errors(
    terms: BidTerms, *, capacity_request: CapacityRequest | None, for_submit: bool
) -> Errors:
    """The bid's kind against its specifics and, given the request, against what it accepts."""
    kind = terms.isolation_class
    errors: Errors = {}
    if kind != MIG and terms.mig_profile:
        errors["mig_profile"] = ["Only a MIG offer names a MIG profile: clear it, or offer MIG."]
    if kind != TIME_SLICED and terms.time_slice_replicas is not None:
        errors["time_slice_replicas"] = [
            "Only a time-sliced offer gives replicas per GPU: clear it, or offer time-sliced."
        ]
    if errors:
        return errors
    specific = terms.mig_profile if kind == MIG else terms.time_slice_replicas
    if specific not in (None, "") or for_submit:
        try:
            device_fraction(
                kind=kind, profile=terms.mig_profile, replicas=terms.time_slice_replicas
            )
            if kind == MIG:
                mig_profile(terms.mig_profile, gpu_model=terms.gpu_model or None)
        except OfferKindError as exc:
            return {exc.field: [str(exc)]}
    if capacity_request is not None:
        reason = refusal(
            accepted=tuple(capacity_request.accepted_offer_kinds or ()),
            min_profile=capacity_request.min_mig_profile,
            kind=kind,
            profile=terms.mig_profile,
        )
        if reason is not None:
            errors["isolation_class"] = [f"This bid {reason}."]
    return errors
