"""The comparison page's lots side by side: one section per lot, each offer ranked by useful
GPU-hours per dollar, bundle conditions in words, nothing while sealed, and the same queries
for 2 bids on 3 lots as for 12 bids on 5."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from bids.choices import BidStatus
from bids.models import Bid, BidRevision, Invitation
from bids.services import bid_save_draft, bid_submit
from orgs.choices import OrgKind
from orgs.models import Organization
from tests.evaluation.pages.conftest import score
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

pytestmark = pytest.mark.django_db


def _lots(req):
    """Three lots making up the request's 10 nodes."""
    LotFactory(request=req, number=1, name="Pre-training", nodes=4)
    LotFactory(
        request=req, number=2, name="Fine-tuning", nodes=4, divisible=True, min_block_nodes=2
    )
    LotFactory(request=req, number=3, name="Inference", nodes=2)


def _offer(role, req, offers, bundles=()):
    bid = BidFactory(request=req, provider=role.org)
    bid_save_draft(bid=bid, user=role.user, data={"lot_offers": offers, "bundles": list(bundles)})
    bid_submit(bid=bid, user=role.user)
    return bid


@pytest.fixture
def lotted(buyer, provider, rival_provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False, nodes=10, gpu_count=80)
    _lots(req)
    _offer(
        provider,
        req,
        [
            {"lot": 1, "price_per_gpu_hour": "2.00", "nodes": 4},
            {"lot": 2, "price_per_gpu_hour": "2.50", "nodes": 2},
        ],
        [{"kind": "discount", "lots": [1, 2], "discount_pct": "4"}],
    )
    _offer(
        rival_provider,
        req,
        [
            {"lot": 1, "price_per_gpu_hour": "1.80", "nodes": 4},
            {"lot": 3, "price_per_gpu_hour": "3.00", "nodes": 2},
        ],
        [{"kind": "max_total", "max_gpus": 48}],
    )
    return req


def _section(html: str, number: int) -> str:
    start = html.index(f'id="lot-{number}"')
    return html[start : html.index("</section>", start)]


def _page(client, req) -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_each_lot_has_its_section_ranked_with_the_bundles_that_bear_on_it(lotted, buyer):
    score(lotted)
    html = _page(buyer.client(), lotted)
    assert "Lots side by side" in html
    first, second, third = (_section(html, n) for n in (1, 2, 3))
    assert "Lot 1: Pre-training" in first and "32 GPUs" in first and "indivisible" in first
    # Same terms otherwise: the cheaper offer gives more useful GPU-hours per dollar.
    assert first.index("Rival Cloud") < first.index("Northwind")
    assert "−4 % if awarded all of lot 1 and lot 2." in first
    assert "At most 48 GPUs across all lots." in first
    assert "Northwind" in second and "Rival Cloud" not in second
    assert "divisible, blocks of at least 2 nodes" in second
    assert "Rival Cloud" in third and "−4 %" not in third
    per_dollar = [float(v) for v in re.findall(r'<td class="num">(\d+\.\d{3})</td>', first)][::2]
    assert per_dollar == sorted(per_dollar, reverse=True) and len(per_dollar) == 2


def test_a_sealed_request_shows_no_lot_offers(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True, nodes=10, gpu_count=80)
    _lots(req)
    _offer(provider, req, [{"lot": 1, "price_per_gpu_hour": "2.00", "nodes": 4}])
    html = _page(buyer.client(), req)
    assert "Lots side by side" not in html and "Northwind" not in html


def test_a_request_without_lots_shows_no_lot_section(world, buyer):
    score(world.request)
    html = _page(buyer.client(), world.request)
    assert "Lots side by side" not in html and world.bid.provider.name in html


def _bulk_offers(req, count: int) -> None:
    orgs = Organization.objects.bulk_create(
        Organization(name=f"Lot provider {i}", slug=f"lot-{i}", kind=OrgKind.PROVIDER)
        for i in range(count)
    )
    Invitation.objects.bulk_create(Invitation(request=req, provider=o) for o in orgs)
    bids = Bid.objects.bulk_create(
        Bid(
            request=req,
            provider=o,
            status=BidStatus.SUBMITTED,
            latest_revision_number=1,
            has_unsubmitted_changes=False,
            price_per_gpu_hour=Decimal("2.000"),
            region="eu",
            available_start=req.reservation_start,
            gpu_model=req.gpu_model,
            nodes=6,
            gpus_per_node=8,
            lot_offers=[
                {"lot": n, "price_per_gpu_hour": f"{2 + i / 100:.3f}", "nodes": 2}
                for n in (2, 3, 4, 5)
            ],
            bundles=[{"kind": "all_or_nothing", "lots": [2, 3]}],
        )
        for i, o in enumerate(orgs)
    )
    BidRevision.objects.bulk_create(
        BidRevision(bid=b, number=1, submitted_at=timezone.now(), **b.terms_dict()) for b in bids
    )


def test_the_same_queries_for_2_bids_on_3_lots_and_12_on_5(
    lotted, buyer, django_assert_max_num_queries
):
    client = buyer.client()
    score(lotted)
    _page(client, lotted)
    with django_assert_max_num_queries(1000) as few:
        _page(client, lotted)
    small = len(few)  # read now: the connection keeps only the latest queries
    # Two more lots, the request grown to match (as a buyer would have published it).
    lotted.nodes, lotted.gpu_count = 14, 112
    lotted.save(update_fields=["nodes", "gpu_count"])
    LotFactory(request=lotted, number=4, nodes=2, divisible=True, min_block_nodes=1)
    LotFactory(request=lotted, number=5, nodes=2)
    _bulk_offers(lotted, 10)
    score(lotted)
    _page(client, lotted)
    with django_assert_max_num_queries(small):
        html = _page(client, lotted)
    assert html.count("Lot provider") >= 40 and "Only together: lot 2 and lot 3" in html


def test_anonymised_labels_name_the_lot_offers_too(lotted, buyer):
    score(lotted)
    url = reverse("evaluation:request-compare", args=[lotted.pk])
    html = buyer.client().get(url, {"labels": "anonymous"}).content.decode()
    lots = html[html.index('id="lots"') : html.index('id="lot-3"')]
    assert "Northwind" not in lots and "Rival Cloud" not in lots
    assert re.search(r"<td>Bid [A-Z]+</td>", _section(html, 1))
