"""The pages for lots: the buyer's lot editor on a draft, the lots on the request page, and the
provider's bid form with a price and nodes per lot and bundle rows."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from audit.models import AuditEntry
from bids import services
from bids.choices import RequestStatus
from bids.models import CapacityRequest, Lot
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

pytestmark = pytest.mark.django_db

LOT_POST = {
    "name": "Pre-training",
    "nodes": "32",
    "gpus_per_node": "8",
    "single_fabric_domain": "on",
    "region": "",
    "reservation_start": "",
    "reservation_end": "",
    "min_block_nodes": "",
}


@pytest.fixture
def draft(buyer):
    """288 GPUs: the 256-GPU pre-training lot and a 32-GPU inference lot add up to it."""
    return CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        gpu_count=288,
        nodes=36,
    )


def test_a_buyer_adds_edits_and_removes_lots_on_a_draft(draft, buyer):
    client = buyer.client()
    detail = reverse("bids:request-detail", args=[draft.pk])
    assert "No lots: providers bid on the whole allocation" in client.get(detail).content.decode()
    added = client.post(reverse("bids:lot-add", args=[draft.pk]), LOT_POST)
    assert added.status_code == 302
    client.post(
        reverse("bids:lot-add", args=[draft.pk]),
        {**LOT_POST, "name": "Inference", "nodes": "4", "divisible": "on", "min_block_nodes": "1"},
    )
    page = client.get(detail).content.decode()
    assert "Pre-training" in page and "256" in page and "divisible, at least 1 node" in page
    edited = client.post(reverse("bids:lot-edit", args=[draft.pk, 1]), {**LOT_POST, "nodes": "16"})
    assert edited.status_code == 302
    assert client.post(reverse("bids:lot-remove", args=[draft.pk, 2])).status_code == 302
    assert list(Lot.objects.values_list("number", "nodes")) == [(1, 16)]
    assert AuditEntry.objects.filter(action__startswith="request.lot_").count() == 4


def test_a_bad_lot_keeps_what_was_typed_and_names_the_field(draft, buyer):
    response = buyer.client().post(
        reverse("bids:lot-add", args=[draft.pk]),
        {**LOT_POST, "name": "Odd block", "divisible": "on"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Give the minimum block in nodes for a divisible lot." in html
    assert 'value="Odd block"' in html
    assert not Lot.objects.exists()


def test_published_lots_are_shown_to_invitees_and_fixed_for_the_buyer(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org)
    LotFactory(request=req, name="Fine-tuning")
    BidFactory(request=req, provider=provider.org)  # invites the provider
    detail = reverse("bids:request-detail", args=[req.pk])
    assert "Fine-tuning" in provider.client().get(detail).content.decode()
    buyer_page = buyer.client().get(detail).content.decode()
    assert "Fine-tuning" in buyer_page and "Add a lot" not in buyer_page
    refused = buyer.client().get(reverse("bids:lot-add", args=[req.pk]), follow=True)
    assert "cannot be split into other lots" in refused.content.decode()


def test_a_lot_larger_than_the_request_is_named_on_nodes_and_what_was_typed_stays(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, gpu_count=128, nodes=16
    )
    response = buyer.client().post(reverse("bids:lot-add", args=[req.pk]), LOT_POST)
    assert response.status_code == 400
    html = response.content.decode()
    assert "This lot has 32 nodes × 8 GPUs = 256 GPUs; the whole request asks for 128 GPUs." in html
    assert 'value="Pre-training"' in html and 'value="32"' in html
    assert "The request asks for 128 GPUs." in html
    assert not Lot.objects.exists()


def test_the_request_page_keeps_a_running_total_and_publish_refuses_until_it_matches(
    draft, buyer, provider, outsider
):
    services.request_invite(capacity_request=draft, user=buyer.user, providers=[provider.org])
    client = buyer.client()
    detail = reverse("bids:request-detail", args=[draft.pk])
    client.post(reverse("bids:lot-add", args=[draft.pk]), LOT_POST)
    page = client.get(detail).content.decode()
    problem = (
        "The lots add up to 256 GPUs; the request asks for 288. Add a lot for the other 32 GPUs, "
        "or change the request&#x27;s size."
    )
    assert "Lots: 256 of 288 GPUs" in page and problem in page
    # An outsider's publish is no publish; the buyer's is refused, in words, on the page.
    outside = outsider.client().post(reverse("bids:request-publish", args=[draft.pk]))
    assert outside.status_code == 404
    refused = client.post(reverse("bids:request-publish", args=[draft.pk]), follow=True)
    assert problem in refused.content.decode()
    draft.refresh_from_db()
    assert draft.status == RequestStatus.DRAFT and draft.lots.count() == 1
    form = client.get(reverse("bids:lot-add", args=[draft.pk])).content.decode()
    assert "The request asks for 288 GPUs; its lots add up to 256 so far." in form
    client.post(
        reverse("bids:lot-add", args=[draft.pk]), {**LOT_POST, "name": "Inference", "nodes": "4"}
    )
    page = client.get(detail).content.decode()
    assert "Lots: 288 of 288 GPUs" in page and "Add a lot for the other" not in page
    client.post(reverse("bids:request-publish", args=[draft.pk]))
    draft.refresh_from_db()
    assert draft.status == RequestStatus.OPEN
    # Invitees read the total too, without the buyer's advice.
    shown = provider.client().get(detail).content.decode()
    assert "Lots: 288 of 288 GPUs" in shown


@pytest.fixture
def lot_bid(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False, gpu_count=64, nodes=8)
    LotFactory(request=req, number=1, name="Pre-training", nodes=4)
    LotFactory(request=req, number=2, name="Inference", nodes=4, divisible=True, min_block_nodes=2)
    return BidFactory(request=req, provider=provider.org)


def _bid_post(bid, **extra):
    form = {
        "price_per_gpu_hour": "9.999",  # disabled on a lot request: ignored
        "fees_usd": "0",
        "egress_usd": "0",
        "region": "eu",
        "available_start": bid.request.reservation_start.isoformat(),
        "gpu_model": "H200",
        "nodes": "99",
        "gpus_per_node": "8",
        "nvlink_domain_size": "8",
        "fabric": "infiniband",
        "nics_per_node": "8",
        "nic_rate_gbps": "400",
        "rail_optimised": "on",
        "oversubscription_ratio": "1.00",
        "isolation_class": "whole_device",
        "scheduler": "slurm",
        "uptime_pct": "99.9",
        "node_replacement_hours": "24",
        "spares_count": "0",
        "spares_location": "none",
        "coverage": "business_hours",
        "site_readiness": "live",
        "lots-lot_1_price": "2.00",
        "lots-lot_1_nodes": "4",
        "lots-lot_2_price": "",
        "lots-lot_2_nodes": "",
    }
    form.update(extra)
    return form


def test_a_provider_bids_per_lot_with_a_bundle_and_the_buyer_reads_it(lot_bid, provider, buyer):
    client = provider.client()
    edit = reverse("bids:bid-edit", args=[lot_bid.pk])
    form_page = client.get(edit).content.decode()
    assert (
        "Lot 1: price per GPU-hour" in form_page
        and "Inference: at least 2, at most 4 nodes" in form_page
        and "Pre-training: indivisible, so all 4 nodes." in form_page
    )
    assert "Worked out from your lot offers below." in form_page
    response = client.post(
        edit,
        _bid_post(
            lot_bid,
            **{
                "lots-lot_2_price": "2.40",
                "lots-lot_2_nodes": "2",
                "lots-bundle_1_kind": "discount",
                "lots-bundle_1_lots": "1, 2",
                "lots-bundle_1_amount": "5",
                "submit": "1",
            },
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    lot_bid.refresh_from_db()
    assert lot_bid.lot_offers == [
        {"lot": 1, "price_per_gpu_hour": "2.00", "nodes": 4},
        {"lot": 2, "price_per_gpu_hour": "2.40", "nodes": 2},
    ]
    assert (lot_bid.nodes, lot_bid.price_per_gpu_hour) == (6, Decimal("2.133"))
    shown = buyer.client().get(reverse("bids:bid-detail", args=[lot_bid.pk])).content.decode()
    assert "Lot 2: 2 nodes at $2.40 per GPU-hour" in shown
    assert "−5 % if awarded all of lot 1 and lot 2." in shown


def test_a_bad_bundle_on_the_form_is_named_and_what_was_typed_stays(lot_bid, provider):
    response = provider.client().post(
        reverse("bids:bid-edit", args=[lot_bid.pk]),
        _bid_post(
            lot_bid,
            **{
                "lots-bundle_1_kind": "all_or_nothing",
                "lots-bundle_1_lots": "1, 2",
                "lots-bundle_2_kind": "max_total",
                "lots-bundle_2_amount": "lots",
            },
        ),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Bundle 2: give the maximum GPUs as a whole number." in html
    assert 'value="1, 2"' in html and 'value="lots"' in html
    lot_bid.refresh_from_db()
    assert lot_bid.lot_offers == []
    response = provider.client().post(
        reverse("bids:bid-edit", args=[lot_bid.pk]),
        _bid_post(
            lot_bid, **{"lots-bundle_1_kind": "all_or_nothing", "lots-bundle_1_lots": "1, 2"}
        ),
    )
    assert "Bundle 1: you make no offer on lot 2." in response.content.decode()


def test_the_demo_has_a_request_in_three_lots_with_each_kind_of_bundle(client):
    from django.http import HttpRequest

    from demo.lots import LOTS_TITLE
    from demo.seed import DEMO_PASSWORD, seed_demo

    seed_demo()
    seed_demo()  # a second run adds nothing
    req = CapacityRequest.objects.get(title=LOTS_TITLE)
    assert list(req.lots.values_list("number", flat=True)) == [1, 2, 3]
    assert req.bids.filter(latest_revision_number=1).count() == 3
    assert client.login(request=HttpRequest(), username="alice", password=DEMO_PASSWORD)
    html = client.get(reverse("evaluation:request-compare", args=[req.pk])).content.decode()
    assert all(f'id="lot-{n}"' in html for n in (1, 2, 3))
    for words in ("−4 % if awarded all of lot 1 and lot 2.", "Only together: lot 1 and lot 2",
                  "At most 96 GPUs across all lots."):  # fmt: skip
        assert words in html
    # The inference lot has its own fixture, sized to the lot; its two bidders acknowledged it
    # (else their bids could not have been submitted), and the buyer reads that on its page.
    from acceptance.models import Acknowledgement, Fixture

    # Lots 1 and 2 share the request's fixture, so the buyer can award without attaching one.
    assert Fixture.objects.filter(request=req).exists()
    fixture = Fixture.objects.get(lot__request=req)
    assert fixture.lot.number == 3
    spec = fixture.versions.get(number=fixture.current_number).spec
    assert spec["allocation"]["nodes"] <= fixture.lot.nodes
    assert spec["allocation"]["gpus_per_node"] == fixture.lot.gpus_per_node
    acked = Acknowledgement.objects.filter(lot=fixture.lot).values_list("bid__provider__name")
    offering = {b.provider.name for b in req.bids.all() if any(o["lot"] == 3 for o in b.lot_offers)}
    assert {name for (name,) in acked} == offering and len(offering) == 2
    parts = client.get(reverse("acceptance:lot-parts", args=[req.pk, 3])).content.decode()
    assert "Providers' acknowledgements" in parts and "Accepted" in parts
