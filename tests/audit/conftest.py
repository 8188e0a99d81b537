"""A request walked through its life by the services: created as a draft, published, both
providers invited, a bid from each, closed and awarded to `provider` (with a reservation)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from acceptance.models import Reservation
from acceptance.services.award import request_award
from bids.choices import RequestStatus
from bids.models import Bid, CapacityRequest
from bids.services import bid_start, bid_submit, request_close, request_invite, request_publish
from tests.acceptance.burnin.helpers import attach_fixture, two_node_spec
from tests.factories import CapacityRequestFactory


@dataclass
class Walk:
    request: CapacityRequest
    bid: Bid
    rival_bid: Bid
    reservation: Reservation | None = None


def open_request(buyer: Any, provider: Any, rival_provider: Any, *, sealed: bool) -> Walk:
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, sealed=sealed, published_at=None
    )
    request_invite(
        capacity_request=req, user=buyer.user, providers=[provider.org, rival_provider.org]
    )
    request_publish(capacity_request=req, user=buyer.user)
    bids = []
    for role, price in ((provider, "2.400"), (rival_provider, "2.900")):
        bid = bid_start(capacity_request=req, provider=role.org, user=role.user)
        Bid.objects.filter(pk=bid.pk).update(
            price_per_gpu_hour=price, region="eu", site="Frankfurt"
        )
        bid_submit(bid=bid, user=role.user)
        bids.append(Bid.objects.get(pk=bid.pk))
    return Walk(request=req, bid=bids[0], rival_bid=bids[1])


def award_walk(walk: Walk, buyer: Any) -> Walk:
    attach_fixture(walk.request, two_node_spec())
    request_close(capacity_request=walk.request, user=buyer.user, confirmed=True)
    walk.reservation = request_award(capacity_request=walk.request, bid=walk.bid, user=buyer.user)
    return walk


@pytest.fixture
def walk(buyer: Any, provider: Any, rival_provider: Any) -> Walk:
    return award_walk(open_request(buyer, provider, rival_provider, sealed=False), buyer)


@pytest.fixture
def sealed_walk(buyer: Any, provider: Any, rival_provider: Any) -> Walk:
    """Open, sealed, deadline ahead: both bids are in."""
    return open_request(buyer, provider, rival_provider, sealed=True)


def pass_deadline(req: CapacityRequest) -> None:
    CapacityRequest.objects.filter(pk=req.pk).update(
        bid_deadline=timezone.now() - timedelta(minutes=1)
    )
