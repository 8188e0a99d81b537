"""Reads about lots, and the bid-side checks of lot offers and bundle conditions.

Tenancy: a lot is part of its request, so whoever may read the request (its buyer, an invited
provider once published) may read its lots; pass a request from `request_get_for_org`.
A bid's offers and bundles are bid terms: they are read through the bid (`bid_get_for_org`)
and, for the buyer, only from a submitted revision once the seal lifts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import Http404

from bids.models import BidTerms, CapacityRequest, Lot
from bids.models.lots import validate_lot
from engine.lots import (
    MAX_TOTAL,
    Bundle,
    LotInputError,
    LotOffer,
    LotSpec,
    bundle_errors,
    describe_bundle,
    offer_errors,
    read_bundles,
    read_offers,
)


def lot_list(*, capacity_request: CapacityRequest) -> QuerySet[Lot]:
    return Lot.objects.filter(request=capacity_request).select_related("request").order_by("number")


def lot_get(*, capacity_request: CapacityRequest, number: int) -> Lot:
    try:
        return lot_list(capacity_request=capacity_request).get(number=number)
    except Lot.DoesNotExist:
        raise Http404 from None


def lot_specs(*, capacity_request: CapacityRequest) -> list[LotSpec]:
    return [lot.spec() for lot in lot_list(capacity_request=capacity_request)]


@dataclass(frozen=True)
class LotTotal:
    """The lots' GPUs against the request's: they must add up to it before it is published."""

    gpus: int
    requested: int

    @property
    def problem(self) -> str | None:
        """Why the lots cannot be published as they are, with the way to fix it; None if they
        add up."""
        gap = self.requested - self.gpus
        if gap == 0:
            return None
        said = f"The lots add up to {self.gpus} GPUs; the request asks for {self.requested}."
        if gap > 0:
            return f"{said} Add a lot for the other {gap} GPUs, or change the request's size."
        return (
            f"{said} Make the lots {-gap} GPUs smaller (or remove one), or change the "
            f"request's size."
        )


def lot_total(*, capacity_request: CapacityRequest, lots: Iterable[Lot]) -> LotTotal | None:
    """The running total of `lots` (the request's); None for a request without lots, which is
    one implicit lot of the request's size."""
    gpus = [lot.gpu_count for lot in lots]
    if not gpus:
        return None
    return LotTotal(gpus=sum(gpus), requested=capacity_request.gpu_count)


def lots_publish_errors(*, capacity_request: CapacityRequest) -> list[str]:
    """What stops a request's lots from being published: each lot against the request as it
    is now (its size, window and regions may have changed since the lot was added), then the
    total against the request's GPUs."""
    lots = list(lot_list(capacity_request=capacity_request))
    problems: list[str] = []
    for lot in lots:
        lot.request = capacity_request  # the request as it is being published
        for messages in validate_lot(lot).values():
            problems.extend(f"Lot {lot.number}: {message}" for message in messages)
    total = lot_total(capacity_request=capacity_request, lots=lots)
    if total is not None and total.problem:
        problems.append(total.problem)
    return problems


class LotsRefusePublish(ValidationError):
    """The lots contradict the request: named `lots`, and said in full as the API's detail."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__({"lots": problems})
        self.summary = " ".join(problems)


def lots_publish_check(*, capacity_request: CapacityRequest) -> None:
    """Refuse a publish (or an approval asked for one) that the lots contradict."""
    if problems := lots_publish_errors(capacity_request=capacity_request):
        raise LotsRefusePublish(problems)


@dataclass(frozen=True)
class LotTerms:
    """A bid's (or revision's) offers and bundles as records, or what stops reading them."""

    offers: list[LotOffer]
    bundles: list[Bundle]
    errors: dict[str, list[str]]

    def offer_for(self, number: int) -> LotOffer | None:
        return next((o for o in self.offers if o.lot == number), None)

    def bundle_lines(self, *, lot: int | None = None) -> list[str]:
        """The conditions in words; with `lot`, those that bear on that lot."""
        return [
            describe_bundle(b)
            for b in self.bundles
            if lot is None or b.kind == MAX_TOTAL or lot in b.lots
        ]


def lot_terms(terms: BidTerms, specs: list[LotSpec]) -> LotTerms:
    """Read and check a bid's `lot_offers` and `bundles` against the request's lots."""
    errors: dict[str, list[str]] = {}
    offers: list[LotOffer] = []
    bundles: list[Bundle] = []
    try:
        offers = read_offers(terms.lot_offers or [])
    except LotInputError as exc:
        errors["lot_offers"] = exc.messages
    try:
        bundles = read_bundles(terms.bundles or [])
    except LotInputError as exc:
        errors["bundles"] = exc.messages
    if offers and not specs:
        errors.setdefault("lot_offers", []).append(
            "This request has no lots: give the price and nodes in the bid itself."
        )
    elif problems := offer_errors(offers, specs):
        errors.setdefault("lot_offers", []).extend(problems)
    if "lot_offers" not in errors and (problems := bundle_errors(bundles, offers, specs)):
        errors.setdefault("bundles", []).extend(problems)
    return LotTerms(offers=offers, bundles=bundles, errors=errors)


def bid_lot_totals(offers: list[LotOffer], specs: list[LotSpec]) -> tuple[int, Decimal] | None:
    """The whole bid's nodes and GPU-weighted price per GPU-hour over its lot offers: what the
    bid's own price and nodes say on a request with lots. None without offers."""
    by_number = {spec.number: spec for spec in specs}
    rows = [(o, by_number[o.lot]) for o in offers if o.lot in by_number]
    gpus = sum(o.nodes * spec.gpus_per_node for o, spec in rows)
    if not rows or not gpus:
        return None
    paid = sum(o.price_per_gpu_hour * o.nodes * spec.gpus_per_node for o, spec in rows)
    price = (Decimal(paid) / gpus).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP)
    return sum(o.nodes for o, _ in rows), price


def canonical_lot_json(terms: LotTerms) -> dict[str, Any]:
    """The stored form of checked offers and bundles, by lot number."""
    return {
        "lot_offers": [o.to_json() for o in sorted(terms.offers, key=lambda o: o.lot)],
        "bundles": [b.to_json() for b in terms.bundles],
    }
