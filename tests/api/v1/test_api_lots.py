"""Lots over the API: nested under their request, written by its buyer while a draft, one audit
entry each; lot offers and bundle conditions as per-lot bid fields, seen by nobody but their
provider until submitted, and by the buyer only once the seal lifts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from bids.choices import RequestStatus
from tests.api.v1.conftest import token_client
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory, LotFactory

pytestmark = pytest.mark.django_db

PRETRAIN = {"name": "Pre-training", "nodes": 32, "gpus_per_node": 8}


def test_a_buyer_lots_a_draft_and_every_write_is_audited(buyer, provider):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, gpu_count=384, nodes=48
    )
    api = token_client(buyer.user)
    base = f"/api/v1/requests/{req.pk}/lots/"
    made = api.post(base, PRETRAIN, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["number"] == 1 and made.json()["gpu_count"] == 256
    assert made.json()["start"] == req.reservation_start.isoformat()
    second = api.post(
        base,
        {"name": "Fine-tuning", "nodes": 16, "gpus_per_node": 8, "divisible": True,
         "min_block_nodes": 4},
        format="json",
    )  # fmt: skip
    assert second.json()["number"] == 2
    changed = api.patch(f"{base}2/", {"min_block_nodes": 8}, format="json")
    assert changed.status_code == 200 and changed.json()["min_block_nodes"] == 8
    assert api.delete(f"{base}1/").status_code == 204
    listed = api.get(base).json()
    assert [(lot["number"], lot["name"]) for lot in listed] == [(1, "Fine-tuning")]
    detail = api.get(f"/api/v1/requests/{req.pk}/").json()
    assert [lot["name"] for lot in detail["lots"]] == ["Fine-tuning"]
    actions = list(
        AuditEntry.objects.filter(request_id=req.pk)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    assert actions == [
        "request.lot_add",
        "request.lot_add",
        "request.lot_edit",
        "request.lot_remove",
    ]
    # A draft is the buyer's: an invited provider does not see it, nor its lots.
    InvitationFactory(request=req, provider=provider.org)
    assert token_client(provider.user).get(base).status_code == 404


def test_a_bad_lot_is_a_400_naming_the_field(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, gpu_count=256, nodes=32
    )
    response = token_client(buyer.user).post(
        f"/api/v1/requests/{req.pk}/lots/", {**PRETRAIN, "divisible": True}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "min_block_nodes": ["Give the minimum block in nodes for a divisible lot."]
    }


def test_a_lot_larger_than_the_request_or_outside_its_dates_is_a_400_naming_the_field(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, gpu_count=128, nodes=16
    )
    api = token_client(buyer.user)
    base = f"/api/v1/requests/{req.pk}/lots/"
    too_big = api.post(base, PRETRAIN, format="json")
    assert too_big.status_code == 400
    assert too_big.json()["errors"] == {
        "nodes": ["This lot has 32 nodes × 8 GPUs = 256 GPUs; the whole request asks for 128 GPUs."]
    }
    assert api.post(base, {**PRETRAIN, "nodes": 16}, format="json").status_code == 201
    grown = api.patch(f"{base}1/", {"nodes": 17}, format="json")
    assert grown.status_code == 400 and list(grown.json()["errors"]) == ["nodes"]
    early = (req.reservation_start - timedelta(days=1)).isoformat()
    moved = api.patch(f"{base}1/", {"reservation_start": early}, format="json")
    assert moved.status_code == 400 and list(moved.json()["errors"]) == ["reservation_start"]
    assert api.get(f"{base}1/").json()["start"] == req.reservation_start.isoformat()


def test_publishing_lots_that_do_not_add_up_is_a_400_naming_lots(buyer, provider, outsider):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, gpu_count=256, nodes=32
    )
    InvitationFactory(request=req, provider=provider.org)
    api = token_client(buyer.user)
    base = f"/api/v1/requests/{req.pk}/lots/"
    api.post(base, {**PRETRAIN, "nodes": 16}, format="json")
    api.post(base, {**PRETRAIN, "name": "Fine-tuning", "nodes": 8}, format="json")
    publish = f"/api/v1/requests/{req.pk}/publish/"
    # Neither an invitee nor an outsider publishes, nor learns why the buyer could not.
    assert token_client(provider.user).post(publish).status_code == 404
    assert token_client(outsider.user).post(publish).status_code == 404
    refused = api.post(publish)
    problem = (
        "The lots add up to 192 GPUs; the request asks for 256. Add a lot for the other 64 "
        "GPUs, or change the request's size."
    )
    assert refused.status_code == 400
    assert refused.json() == {"detail": problem, "errors": {"lots": [problem]}}
    detail = api.get(f"/api/v1/requests/{req.pk}/").json()
    assert detail["status"] == "draft"
    # The request says so before a publish is tried, as its page does ("Lots: 192 of 256 GPUs").
    assert detail["lots_total"] == {"gpus": 192, "requested": 256, "problem": problem}
    api.post(base, {**PRETRAIN, "name": "Inference", "nodes": 8}, format="json")
    added_up = api.get(f"/api/v1/requests/{req.pk}/").json()["lots_total"]
    assert added_up == {"gpus": 256, "requested": 256, "problem": None}
    published = api.post(publish)
    assert published.status_code == 200 and published.json()["status"] == "open"


def test_a_request_without_lots_has_no_lot_total(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    assert token_client(buyer.user).get(f"/api/v1/requests/{req.pk}/").json()["lots_total"] is None


def test_a_published_requests_lots_are_fixed_409(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    LotFactory(request=req)
    response = token_client(buyer.user).patch(
        f"/api/v1/requests/{req.pk}/lots/1/", {"nodes": 1}, format="json"
    )
    assert response.status_code == 409
    assert "cannot be split into other lots" in response.json()["detail"]


@pytest.fixture
def lotted(buyer, provider, rival_provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True, gpu_count=64, nodes=8)
    LotFactory(request=req, number=1, nodes=4)
    LotFactory(request=req, number=2, nodes=4, divisible=True, min_block_nodes=2)
    bid = BidFactory(request=req, provider=provider.org)
    InvitationFactory(request=req, provider=rival_provider.org)
    return req, bid


OFFERS = [
    {"lot": 1, "price_per_gpu_hour": "2.100", "nodes": 4},
    {"lot": 2, "price_per_gpu_hour": "2.300", "nodes": 2},
]
BUNDLES = [
    {"kind": "discount", "lots": [1, 2], "discount_pct": "4"},
    {"kind": "max_total", "max_gpus": 48},
]


def test_per_lot_bid_fields_are_the_providers_alone_until_the_seal_lifts(
    lotted, provider, rival_provider, buyer
):
    req, bid = lotted
    own = token_client(provider.user)
    saved = own.patch(
        f"/api/v1/bids/{bid.pk}/", {"lot_offers": OFFERS, "bundles": BUNDLES}, format="json"
    )
    assert saved.status_code == 200, saved.content
    body = saved.json()
    assert body["lot_offers"] == OFFERS and body["bundles"] == BUNDLES
    assert (body["nodes"], body["price_per_gpu_hour"]) == (6, "2.167")
    assert own.post(f"/api/v1/bids/{bid.pk}/submit/").status_code == 201
    # A rival never reads another provider's bid, its offers or bundles.
    rival = token_client(rival_provider.user)
    assert rival.get(f"/api/v1/bids/{bid.pk}/").status_code == 404
    assert "discount" not in rival.get("/api/v1/bids/").content.decode()
    audit = rival.get("/api/v1/audit/", {"object": f"bid:{bid.pk}"}).content.decode()
    assert "lot_offers" not in audit and "discount" not in audit
    # Sealed: the buyer reads nothing before the deadline or a close.
    buyer_api = token_client(buyer.user)
    assert buyer_api.get(f"/api/v1/bids/{bid.pk}/").status_code == 404
    req.bid_deadline = timezone.now() - timedelta(minutes=1)
    req.save(update_fields=["bid_deadline"])
    opened = buyer_api.get(f"/api/v1/bids/{bid.pk}/").json()
    assert opened["lot_offers"] == OFFERS and opened["bundles"] == BUNDLES
    revision = buyer_api.get(f"/api/v1/bids/{bid.pk}/revisions/1/").json()
    assert revision["bundles"] == BUNDLES


def test_bad_bundles_are_a_400_in_words_and_the_draft_is_kept(lotted, provider):
    _req, bid = lotted
    response = token_client(provider.user).patch(
        f"/api/v1/bids/{bid.pk}/",
        {
            "lot_offers": OFFERS,
            "bundles": [
                {"kind": "discount", "lots": [1, 9], "discount_pct": "4"},
                {"kind": "discount", "lots": [1, 2], "discount_pct": "55"},
                {"kind": "max_total", "max_gpus": 8},
            ],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"]["bundles"] == [
        "Bundle 1: there is no lot 9 in this request.",
        "Bundle 2: a discount must be above 0 and at most 50 %, not 55 %.",
        "Bundle 3: a maximum of 8 GPUs is below the smallest block you offer (16 GPUs on lot 2).",
    ]
    bid.refresh_from_db()
    assert bid.lot_offers == [] and bid.bundles == []


def test_the_schema_documents_the_per_lot_bid_fields(client):
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    assert set(components["LotOffer"]["properties"]) == {"lot", "price_per_gpu_hour", "nodes"}
    assert components["Bundle"]["properties"]["kind"]
    assert "lot_offers" in components["Bid"]["properties"]
    assert "/api/v1/requests/{id}/lots/{number}/" in schema["paths"]
