"""A provider acknowledges a lot's own fixture and terms over the API, and its bid then submits;
bad answers name their field, a lot that shares the request's says so, and the buyer reads the
answer once the bid is visible."""

from __future__ import annotations

import pytest

from acceptance.services.fixtures import fixture_from_template, fixture_save
from audit.models import AuditEntry
from bids.choices import BidStatus, RequestStatus
from bids.services import bid_save_draft
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.api.v1.conftest import token_client
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory, LotFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bid(buyer, provider):
    req = CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        nodes=4,
        gpu_count=32,
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=2)
    LotFactory(request=req, number=2, name="Inference", nodes=2)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    made = token_client(buyer.user).post(
        f"/api/v1/requests/{req.pk}/lots/2/fixture/", {"template": "single-node-nvlink"}
    )
    assert made.status_code == 201, made.content
    req.status = RequestStatus.OPEN
    req.save(update_fields=["status"])
    InvitationFactory(request=req, provider=provider.org)
    made_bid = BidFactory(request=req, provider=provider.org)
    offers = [{"lot": 2, "price_per_gpu_hour": "2.40", "nodes": 2}]
    bid_save_draft(bid=made_bid, user=provider.user, data={"lot_offers": offers})
    return made_bid


def test_the_provider_acknowledges_the_lot_and_the_bid_submits(bid, provider, buyer):
    api = token_client(provider.user)
    url = f"/api/v1/bids/{bid.pk}/lots/2/acknowledgement/"
    before = api.get(url).json()
    assert before["acknowledgement"] is None and before["offered"] and not before["current"]
    assert before["fixture_version"] == 1 and before["terms_revision"] is None

    refused = api.post(f"/api/v1/bids/{bid.pk}/submit/")
    assert refused.status_code == 400 and "Lot 2 has its own fixture" in str(refused.json())

    done = api.post(url, {"status": "accepted"}, format="json")
    assert done.status_code == 201, done.content
    body = done.json()
    assert body["current"] and body["acknowledgement"]["status"] == "accepted"
    assert body["acknowledgement"]["fixture_version"] == 1
    entry = AuditEntry.objects.filter(action="bid.acknowledge").latest("pk")
    assert entry.after["lot"] == 2

    assert api.post(f"/api/v1/bids/{bid.pk}/submit/").status_code == 201
    bid.refresh_from_db()
    assert bid.status == BidStatus.SUBMITTED
    # The buyer reads it now that the bid is submitted (the request is not sealed).
    seen = token_client(buyer.user).get(url)
    assert seen.status_code == 200 and seen.json()["current"]


def test_a_new_version_makes_it_outstanding_again(bid, provider, buyer):
    api = token_client(provider.user)
    url = f"/api/v1/bids/{bid.pk}/lots/2/acknowledgement/"
    api.post(url, {"status": "accepted"}, format="json")
    from acceptance.models import Fixture

    fixture = Fixture.objects.get(lot__request=bid.request, lot__number=2)
    fixture_save(
        fixture=fixture,
        user=buyer.user,
        changes={"tests.nccl_tests.iterations": 40},
        reasons={},
    )
    after = api.get(url).json()
    assert not after["current"] and after["acknowledgement"]["fixture_version"] == 1
    assert after["fixture_version"] == 2 and after["stale_reasons"]


def test_bad_answers_name_their_field_and_record_nothing(bid, provider):
    api = token_client(provider.user)
    url = f"/api/v1/bids/{bid.pk}/lots/2/acknowledgement/"
    assert "status" in api.post(url, {"status": "maybe"}, format="json").json()["errors"]
    no_list = api.post(url, {"status": "accepted_with_exceptions"}, format="json")
    assert no_list.status_code == 400 and "exceptions" in str(no_list.json())
    wrong_field = api.post(
        url,
        {"status": "accepted_with_exceptions", "exceptions": [{"text": "x", "field": "nope"}]},
        format="json",
    )
    assert wrong_field.status_code == 400
    assert "'nope' is not a field of this fixture or terms" in str(wrong_field.json())
    assert not AuditEntry.objects.filter(action="bid.acknowledge").exists()


def test_a_lot_that_shares_the_requests_says_so(bid, provider):
    shared = token_client(provider.user).post(
        f"/api/v1/bids/{bid.pk}/lots/1/acknowledgement/", {"status": "accepted"}, format="json"
    )
    assert shared.status_code == 404
    assert "Lot 1 shares the request's fixture and terms" in shared.json()["detail"]
    missing = token_client(provider.user).get(f"/api/v1/bids/{bid.pk}/lots/9/acknowledgement/")
    assert missing.status_code == 404
