"""The best-and-final round by API: after the close the buyer posts a shortlist and a deadline
(`confirm: true`); the request says its round; a bid left off the shortlist is refused; the
comparison returns both rounds once the final round closes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.v1.conftest import token_client

pytestmark = pytest.mark.django_db


def test_a_final_round_by_api(world, buyer, provider, rival_provider):
    alice = token_client(buyer.user)
    base = f"/api/v1/requests/{world.request.pk}"
    deadline = (timezone.now() + timedelta(days=4)).isoformat()
    body = {"shortlist": [world.bid.pk], "bid_deadline": deadline, "confirm": True}

    early = alice.post(f"{base}/final-round/", body, format="json")
    assert early.status_code == 409 and early.json()["move"] == "final_round"
    assert alice.post(f"{base}/close/", {"confirm": True}, format="json").status_code == 200
    assert alice.get(f"{base}/").json()["round"] == 1

    empty = alice.post(f"{base}/final-round/", {"confirm": True}, format="json")
    errors = empty.json()["errors"]
    assert empty.status_code == 400 and "shortlist" in errors and "bid_deadline" in errors
    unconfirmed = alice.post(f"{base}/final-round/", {**body, "confirm": False}, format="json")
    assert unconfirmed.status_code == 400 and "confirm" in unconfirmed.json()["errors"]
    # The provider cannot open it for itself.
    nora = token_client(provider.user)
    assert nora.post(f"{base}/final-round/", body, format="json").status_code == 404

    opened = alice.post(f"{base}/final-round/", body, format="json")
    assert opened.status_code == 200, opened.content
    assert opened.json()["round"] == 2 and opened.json()["status"] == "open"
    # Sealed again: the buyer lists no bid and sees no comparison until the close.
    assert alice.get(f"{base}/bids/").json()["count"] == 0
    assert alice.get(f"{base}/comparison/").json()["state"] == "sealed"

    rita = token_client(rival_provider.user)
    refused = rita.post(f"/api/v1/bids/{world.rival_bid.pk}/submit/", format="json")
    assert refused.status_code == 409 and "does not include your bid" in refused.json()["detail"]
    own = nora.get(f"/api/v1/bids/{world.bid.pk}/").json()
    assert own["shortlisted"] is True

    assert alice.post(f"{base}/close/", {"confirm": True}, format="json").status_code == 200
    rounds = alice.get(f"{base}/comparison/").json()["rounds"]
    by_bid = {row["bid"]: row for row in rounds}
    assert by_bid[world.bid.pk]["final_round"]["revision"] == 1  # not revised: round 1 stands
    assert by_bid[world.rival_bid.pk]["final_round"] is None
    assert by_bid[world.rival_bid.pk]["round_1"]["price_per_gpu_hour"] == "2.900"
    anonymous = alice.get(f"{base}/comparison/?labels=anonymous").json()["rounds"]
    assert all(row["bid"] is None and row["name"].startswith("Bid ") for row in anonymous)
