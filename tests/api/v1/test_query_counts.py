"""The polled reads cost the same number of queries for a few rows as for many."""

from __future__ import annotations

from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext

from bids.models import Bid
from bids.services import bid_save_draft, bid_submit
from evaluation.services import request_score
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import add_bids
from tests.factories import CapacityRequestFactory


def _queries(client, url: str) -> int:
    client.get(url)  # the token's first use is recorded once, not on every call
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_request_list_and_a_requests_bids_do_not_grow_with_their_rows(world, buyer):
    client = token_client(buyer.user)
    bids_url = f"/api/v1/requests/{world.request.pk}/bids/"
    few = _queries(client, "/api/v1/requests/"), _queries(client, bids_url)
    for _ in range(12):
        CapacityRequestFactory(buyer=buyer.org)
    add_bids(world.request, 12)
    many = _queries(client, "/api/v1/requests/"), _queries(client, bids_url)
    assert many == few
    assert client.get(bids_url).json()["count"] == 14


def test_the_comparison_does_not_grow_with_its_bids(world, buyer):
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    request_score(capacity_request=world.request)
    few = _queries(client, url)
    add_bids(world.request, 12)
    request_score(capacity_request=world.request)
    assert len(client.get(url).json()["columns"]) == 14
    assert _queries(client, url) == few


def test_the_comparisons_pilot_section_reads_only_the_shortlisted_bids(world, buyer):
    """Nobody shortlisted: the section is empty and costs no read of bids, revisions, floors or
    roles; shortlisting one lists it, and shortlisting more costs no further query."""
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    add_bids(world.request, 6)
    request_score(capacity_request=world.request)
    none = _queries(client, url)
    assert client.get(url).json()["pilots"]["bids"] == []

    Bid.objects.filter(pk=world.bid.pk).update(shortlisted=True)
    one = _queries(client, url)
    assert [row["bid"] for row in client.get(url).json()["pilots"]["bids"]] == [world.bid.pk]
    assert none < one

    Bid.objects.filter(request=world.request).update(shortlisted=True)
    assert _queries(client, url) == one
    assert len(client.get(url).json()["pilots"]["bids"]) == 8


def test_the_buyer_reads_a_bid_and_its_latest_revision_in_one_query(world, buyer, provider):
    """Token, memberships, and the bid with its latest submitted revision: the revision
    submitted last is shown, never the provider's unsubmitted draft."""
    bid = world.bid
    bid_save_draft(bid=bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.100")})
    bid_submit(bid=bid, user=provider.user)
    bid_save_draft(bid=bid, user=provider.user, data={"price_per_gpu_hour": Decimal("1.500")})
    client = token_client(buyer.user)
    url = f"/api/v1/bids/{bid.pk}/"
    assert _queries(client, url) == 3
    body = client.get(url).json()
    assert body["price_per_gpu_hour"] == "2.100"
    assert body["latest_revision_number"] == 2
    owner = token_client(provider.user)
    assert owner.get(url).json()["price_per_gpu_hour"] == "1.500"
