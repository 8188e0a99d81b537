"""Early close and reopen by API: `confirm: true` or 400 naming `confirm`; a sealed request's
bids are listed at once after the close, and still after a reopen."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.v1.conftest import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def sealed(world):
    world.request.sealed = True
    world.request.bid_deadline = timezone.now() + timedelta(days=17)
    world.request.save()
    return world.request


def test_close_and_reopen_a_sealed_request(sealed, buyer):
    alice = token_client(buyer.user)
    base = f"/api/v1/requests/{sealed.pk}"
    assert alice.get(f"{base}/bids/").json()["count"] == 0

    unconfirmed = alice.post(f"{base}/close/")
    body = unconfirmed.json()
    assert unconfirmed.status_code == 400 and body["move"] == "close"
    assert "Confirmation required" in body["errors"]["confirm"][0]

    closed = alice.post(f"{base}/close/", {"confirm": True}, format="json")
    assert closed.status_code == 200, closed.content
    assert closed.json()["status"] == "closed" and closed.json()["bids_opened_at"]
    assert alice.get(f"{base}/bids/").json()["count"] == 2
    assert alice.get(f"{base}/comparison/").json()["state"] != "sealed"

    no_deadline = alice.post(f"{base}/reopen/", {"confirm": True}, format="json")
    assert no_deadline.status_code == 400 and "bid_deadline" in no_deadline.json()["errors"]
    deadline = (timezone.now() + timedelta(days=20)).isoformat()
    unconfirmed = alice.post(f"{base}/reopen/", {"bid_deadline": deadline}, format="json")
    assert unconfirmed.status_code == 400 and "confirm" in unconfirmed.json()["errors"]
    reopened = alice.post(
        f"{base}/reopen/", {"bid_deadline": deadline, "confirm": True}, format="json"
    )
    assert reopened.status_code == 200, reopened.content
    assert reopened.json()["status"] == "open" and reopened.json()["closed_at"] is None
    # Once opened, the bids stay listed.
    assert alice.get(f"{base}/bids/").json()["count"] == 2
    again = alice.post(
        f"{base}/reopen/", {"bid_deadline": deadline, "confirm": True}, format="json"
    )
    assert again.status_code == 409 and again.json()["move"] == "reopen"


def test_cancel_needs_its_confirmation_too(world, buyer):
    alice = token_client(buyer.user)
    refused = alice.post(f"/api/v1/requests/{world.request.pk}/cancel/")
    assert refused.status_code == 400 and "confirm" in refused.json()["errors"]
    done = alice.post(
        f"/api/v1/requests/{world.request.pk}/cancel/", {"confirm": True}, format="json"
    )
    assert done.status_code == 200 and done.json()["status"] == "cancelled"


def test_a_provider_cannot_revise_after_the_close_but_can_after_the_reopen(sealed, buyer, provider):
    alice, nora = token_client(buyer.user), token_client(provider.user)
    alice.post(f"/api/v1/requests/{sealed.pk}/close/", {"confirm": True}, format="json")
    bid = f"/api/v1/bids/{sealed.bids.get(provider=provider.org).pk}/"
    frozen = nora.patch(bid, {"site": "Frankfurt FR2"}, format="json")
    assert frozen.status_code == 409 and "Bidding closed on" in frozen.json()["detail"]
    deadline = (timezone.now() + timedelta(days=20)).isoformat()
    alice.post(
        f"/api/v1/requests/{sealed.pk}/reopen/",
        {"bid_deadline": deadline, "confirm": True},
        format="json",
    )
    assert nora.patch(bid, {"site": "Frankfurt FR2"}, format="json").status_code == 200
    assert nora.post(f"{bid}submit/").status_code == 201
