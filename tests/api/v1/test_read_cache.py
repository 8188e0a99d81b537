"""Kept API reads: a repeated GET is answered from the shared cache, yet every committed write
shows at once, a passed deadline shows with no write, and a copy never reaches another caller."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from bids.models import Bid, CapacityRequest
from tests.api.v1.conftest import token_client
from tests.factories import CapacityRequestFactory

# Kept reads engage only once writes are committed, as in production.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _kept_reads(settings):
    settings.READ_CACHE = True


def test_a_repeated_read_comes_from_the_copy(world, provider, django_assert_max_num_queries):
    client = token_client(provider.user)
    url = f"/api/v1/bids/{world.bid.pk}/"
    first = client.get(url)
    with django_assert_max_num_queries(1):  # the token's own lookup, nothing else
        again = client.get(url)
    assert again.status_code == 200 and again["Content-Type"] == "application/json"
    assert again.json() == first.json()


def test_writes_show_at_once_whatever_made_them(world, provider, buyer):
    client = token_client(provider.user)
    url = f"/api/v1/bids/{world.bid.pk}/"
    assert client.get(url).json()["price_per_gpu_hour"] == "2.400"
    client.patch(url, {"price_per_gpu_hour": "2.10"}, format="json")
    assert client.get(url).json()["price_per_gpu_hour"] == "2.100"
    # A task or an admin action that updates rows in bulk, past every model method.
    Bid.objects.filter(pk=world.bid.pk).update(price_per_gpu_hour=Decimal("1.95"))
    assert client.get(url).json()["price_per_gpu_hour"] == "1.950"

    listing = token_client(buyer.user)
    assert listing.get("/api/v1/requests/").json()["count"] == 1
    CapacityRequestFactory(buyer=buyer.org, title="Posted since")
    titles = [r["title"] for r in listing.get("/api/v1/requests/").json()["results"]]
    assert "Posted since" in titles


def test_a_copy_never_reaches_another_caller(world, provider, rival_provider, outsider, buyer):
    url = f"/api/v1/bids/{world.bid.pk}/"
    own = token_client(provider.user).get(url)
    assert own.status_code == 200 and own.json()["has_unsubmitted_changes"] is not None
    for other in (rival_provider, outsider):
        assert token_client(other.user).get(url).status_code == 404
    shown = token_client(buyer.user).get(url).json()
    assert shown["has_unsubmitted_changes"] is None  # the buyer's own view, not the owner's


def test_the_query_string_selects_its_own_copy(world, buyer):
    client = token_client(buyer.user)
    CapacityRequestFactory(buyer=buyer.org, title="Another request")
    ascending = client.get("/api/v1/requests/?ordering=title").json()["results"]
    descending = client.get("/api/v1/requests/?ordering=-title").json()["results"]
    assert [r["title"] for r in descending] == [r["title"] for r in reversed(ascending)]


def test_a_deadline_passing_shows_with_no_write(buyer, monkeypatch):
    deadline = timezone.now() + timedelta(hours=2)
    CapacityRequestFactory(buyer=buyer.org, bid_deadline=deadline)
    # Signed in (a token's use two hours on would be recorded: a write, which proves nothing).
    client = APIClient()
    client.force_login(buyer.user)
    assert client.get("/api/v1/requests/").json()["results"][0]["deadline_passed"] is False
    assert client.get("/api/v1/requests/").json()["results"][0]["deadline_passed"] is False
    later = deadline + timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert client.get("/api/v1/requests/").json()["results"][0]["deadline_passed"] is True


def test_without_the_setting_every_read_is_fresh(world, provider, settings):
    settings.READ_CACHE = False
    client = token_client(provider.user)
    url = f"/api/v1/bids/{world.bid.pk}/"
    client.get(url)
    Bid.objects.filter(pk=world.bid.pk).update(price_per_gpu_hour=Decimal("1.5"))
    assert client.get(url).json()["price_per_gpu_hour"] == "1.500"
    assert CapacityRequest.objects.count() == 1
