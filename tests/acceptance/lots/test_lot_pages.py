"""The pages: the buyer gives a draft's lot its own fixture and terms from the request page's
lot table; the provider acknowledges the lot's own on its page, and the bid then submits."""

from __future__ import annotations

import pytest
from django.urls import reverse

from acceptance.models import Acknowledgement, Fixture
from acceptance.services.fixtures import fixture_from_template
from bids.choices import BidStatus, RequestStatus
from bids.models import Invitation
from bids.services import bid_save_draft
from contracts.models import HandoffTerms
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        nodes=4,
        gpu_count=32,
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=2)
    LotFactory(request=req, number=2, name="Inference", nodes=2)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    return req


def test_the_buyer_gives_a_lot_its_own_fixture_and_terms_on_a_draft(draft, buyer):
    client = buyer.client()
    page = client.get(reverse("bids:request-detail", args=[draft.pk])).content.decode()
    assert "Each lot's fixture and terms" in page
    assert reverse("acceptance:lot-parts", args=[draft.pk, 2]) in page

    parts = reverse("acceptance:lot-parts", args=[draft.pk, 2])
    assert "Give it its own fixture" in client.get(parts).content.decode()
    client.post(
        reverse("acceptance:lot-fixture-own", args=[draft.pk, 2]),
        {"template": "single-node-nvlink"},
    )
    fixture = Fixture.objects.get(lot__request=draft, lot__number=2)
    assert fixture.versions.get().template == "single-node-nvlink"
    response = client.post(reverse("contracts:lot-terms-own", args=[draft.pk, 2]))
    assert response["Location"] == reverse("contracts:lot-terms-edit", args=[draft.pk, 2])
    assert HandoffTerms.objects.filter(lot__number=2, lot__request=draft).exists()

    html = client.get(parts).content.decode()
    assert "Use the request's fixture instead" in html and "Use the request's terms instead" in html
    edit = client.get(reverse("acceptance:lot-fixture-edit", args=[draft.pk, 2]))
    assert "lot 2 (Inference)" in edit.content.decode()

    client.post(reverse("acceptance:lot-fixture-share", args=[draft.pk, 2]))
    assert not Fixture.objects.filter(lot__request=draft).exists()


def _offer_on_lot_with_own_fixture(draft, buyer_client, provider, *, number):
    """The buyer gives lot `number` its own fixture and publishes; the invited provider's draft
    offers on that lot."""
    buyer_client.post(
        reverse("acceptance:lot-fixture-own", args=[draft.pk, number]),
        {"template": DEFAULT_TEMPLATE},
    )
    draft.status = RequestStatus.OPEN
    draft.save(update_fields=["status"])
    Invitation.objects.create(request=draft, provider=provider.org)
    bid = BidFactory(request=draft, provider=provider.org)
    offers = [{"lot": number, "price_per_gpu_hour": "2.40", "nodes": 2}]
    bid_save_draft(bid=bid, user=provider.user, data={"lot_offers": offers})
    return bid


def test_once_published_the_choice_is_refused_with_its_reason(draft, buyer):
    draft.status = RequestStatus.OPEN
    draft.save(update_fields=["status"])
    client = buyer.client()
    response = client.post(
        reverse("acceptance:lot-fixture-own", args=[draft.pk, 1]),
        {"template": DEFAULT_TEMPLATE},
        follow=True,
    )
    assert not Fixture.objects.filter(lot__request=draft).exists()
    assert "lots" in response.content.decode().lower()
    assert (
        "Give it its own fixture"
        not in client.get(reverse("acceptance:lot-parts", args=[draft.pk, 1])).content.decode()
    )


def test_the_provider_acknowledges_the_lots_own_fixture_and_then_submits(
    draft, buyer, provider, rival_provider
):
    client = buyer.client()
    bid = _offer_on_lot_with_own_fixture(draft, client, provider, number=1)

    nora = provider.client()
    parts = nora.get(reverse("acceptance:lot-parts", args=[draft.pk, 1])).content.decode()
    assert "Not acknowledged yet" in parts
    refused = nora.post(reverse("bids:bid-submit", args=[bid.pk]), follow=True)
    assert "Lot 1 has its own fixture" in refused.content.decode()

    ack_url = reverse("acceptance:lot-acknowledge", args=[bid.pk, 1])
    form = nora.get(ack_url).content.decode()
    assert "Acknowledge lot 1&#x27;s own fixture" in form or "Acknowledge lot 1's own" in form
    nora.post(ack_url, {"status": "accepted", "exc-TOTAL_FORMS": "0", "exc-INITIAL_FORMS": "0"})
    assert Acknowledgement.objects.filter(bid=bid, lot__number=1).count() == 1
    nora.post(reverse("bids:bid-submit", args=[bid.pk]))
    bid.refresh_from_db()
    assert bid.status == BidStatus.SUBMITTED

    # The buyer reads who acknowledged the lot's own; an invited rival reads no one's.
    parts_url = reverse("acceptance:lot-parts", args=[draft.pk, 1])
    seen = client.get(parts_url).content.decode()
    assert "Providers' acknowledgements" in seen and "Northwind" in seen and "Accepted" in seen
    Invitation.objects.create(request=draft, provider=rival_provider.org)
    rival_view = rival_provider.client().get(parts_url).content.decode()
    assert "Northwind" not in rival_view and "Providers' acknowledgements" not in rival_view
    # Sealed until the deadline: the buyer learns nothing of who bid.
    draft.sealed = True
    draft.save(update_fields=["sealed"])
    assert draft.bids_hidden_from_buyer
    assert "Northwind" not in client.get(parts_url).content.decode()


def test_the_bid_page_lists_each_lots_acknowledgement_with_a_link(draft, buyer, provider):
    client = buyer.client()
    bid = _offer_on_lot_with_own_fixture(draft, client, provider, number=2)

    nora = provider.client()
    page_url = reverse("bids:bid-detail", args=[bid.pk])
    ack_url = reverse("acceptance:lot-acknowledge", args=[bid.pk, 2])
    page = nora.get(page_url).content.decode()
    assert "Lots with their own fixture or terms" in page
    assert "Lot 2 (Inference)" in page and "Outstanding: not acknowledged" in page
    assert ack_url in page
    # Lot 1 shares the request's: nothing of its own to acknowledge, so no row.
    assert 'id="lot-ack-1"' not in page

    nora.post(ack_url, {"status": "accepted", "exc-TOTAL_FORMS": "0", "exc-INITIAL_FORMS": "0"})
    page = nora.get(page_url).content.decode()
    assert "Current" in page and "Outstanding" not in page
    assert "Accepted · fixture v1" in page


def test_a_lot_of_a_request_without_fixture_or_terms_says_there_is_none_yet(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        nodes=4,
        gpu_count=32,
    )
    LotFactory(request=req, number=1, name="Inference", nodes=2)
    page = buyer.client().get(reverse("acceptance:lot-parts", args=[req.pk, 1])).content.decode()
    assert "Shares the request's fixture, and the request has none yet" in page
    assert "Shares the request's handoff terms, and the request has none yet" in page
    assert "starting from the standard template" in page
    assert (
        "starting from the request&#x27;s" not in page and "starting from the request's" not in page
    )
