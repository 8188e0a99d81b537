"""The worked example's reservation (docs/availability.md): 4 nodes × 8 GPUs at $2.00/GPU-h,
$1,000 fees and $500 egress over the term 1 Jan – 31 Mar 2026, accepted on 1 Jan, with terms
that credit 5 % per clock breach. Built through factories and services."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from acceptance.models import (
    Acceptance,
    BurnInRun,
    DecisionKind,
    Reservation,
    ReservationStatus,
)
from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids.models import CapacityRequest
from bids.services import bid_submit, request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.models import HandoffTerms
from contracts.services.terms import terms_create, terms_update
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

NODES = ("gpu-01", "gpu-02", "gpu-03", "gpu-04")


def utc(month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


@dataclass
class Example:
    reservation: Reservation
    rival_reservation: Reservation | None = None


def example_reservation(
    buyer: Any, provider: Any, *, breach_credit: str = "5", bid_terms: dict[str, Any] | None = None
) -> Reservation:
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False, nodes=4, gpus_per_node=8)
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(
        request=req, provider=provider.org, nodes=4, gpus_per_node=8,
        **{"price_per_gpu_hour": Decimal("2.00"), "fees_usd": Decimal("1000"),
           "egress_usd": Decimal("500"), **(bid_terms or {})},
    )  # fmt: skip
    bid_submit(bid=bid, user=provider.user)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    terms_create(capacity_request=req, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    terms_update(
        terms=HandoffTerms.objects.get(request=req), user=buyer.user,
        data={"buyer_owner_name": "Ada", "buyer_owner_contact": "ada@example.com",
              "clock_breach_credit_pct": Decimal(breach_credit)},
    )  # fmt: skip
    bid.refresh_from_db()
    acknowledgement_submit(bid=bid, user=provider.user, status="accepted")
    request_close(capacity_request=req, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=req, bid=bid, user=buyer.user)
    # The term as agreed, 1 Jan – 31 Mar 2026 (past dates: set after the bidding).
    CapacityRequest.objects.filter(pk=req.pk).update(
        reservation_start=date(2026, 1, 1), reservation_end=date(2026, 3, 31)
    )
    run = BurnInRun.objects.create(reservation=reservation, label="Burn-in", created_by=buyer.user)
    Acceptance.objects.create(
        reservation=reservation, run=run, kind=DecisionKind.ACCEPTED, by=buyer.user,
        at=utc(1, 1), gate_passed=True,
    )  # fmt: skip
    reservation.status = ReservationStatus.ACCEPTED
    reservation.clock_starts_at = utc(1, 1)
    reservation.save(update_fields=["status", "clock_starts_at"])
    return Reservation.objects.select_related("request", "bid_revision").get(pk=reservation.pk)


def now() -> datetime:
    return timezone.now()
