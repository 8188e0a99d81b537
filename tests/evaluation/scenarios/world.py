"""The worked example of docs/award-optimisation.md as a request with lots and submitted bids:
Northwind plays Aurora (EU), Rival Cloud plays Borealis (US), Cirrus Compute plays Cirrus (EU).
Every node is 8 GPUs for the request's 30 days (720 hours)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from bids.models import Invitation
from bids.services import bid_save_draft, bid_submit
from evaluation.scenario_models import AwardScenario
from evaluation.scenario_services import scenario_create
from orgs.choices import OrgKind
from tests.conftest import _role
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory, OrganizationFactory


def _offer(role, req, region, offers, bundles):
    Invitation.objects.get_or_create(request=req, provider=role.org)
    bid = BidFactory(request=req, provider=role.org, region=region)
    bid_save_draft(bid=bid, user=role.user, data={"lot_offers": offers, "bundles": bundles})
    bid_submit(bid=bid, user=role.user)
    return bid


def _o(lot: int, price: str, nodes: int) -> dict:
    return {"lot": lot, "price_per_gpu_hour": price, "nodes": nodes}


@pytest.fixture
def cirrus(db):
    org = OrganizationFactory(name="Cirrus Compute", slug="cirrus", kind=OrgKind.PROVIDER)
    return _role("cora", org)


@pytest.fixture
def worked(buyer, provider, rival_provider, cirrus):
    start = timezone.localdate() + timedelta(days=60)
    req = CapacityRequestFactory(
        buyer=buyer.org,
        sealed=False,
        acceptable_regions=["eu", "us-east"],
        reservation_start=start,
        reservation_end=start + timedelta(days=29),
        gpu_count=448,
        nodes=56,
        gpus_per_node=8,
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=32, gpus_per_node=8)
    LotFactory(
        request=req,
        number=2,
        name="Fine-tuning",
        nodes=16,
        gpus_per_node=8,
        divisible=True,
        min_block_nodes=4,
    )
    LotFactory(
        request=req,
        number=3,
        name="Inference",
        nodes=8,
        gpus_per_node=8,
        divisible=True,
        min_block_nodes=2,
    )
    _offer(
        rival_provider,
        req,
        "us-east",
        [_o(1, "2.10", 32), _o(2, "2.20", 16)],
        [
            {"kind": "all_or_nothing", "lots": [1, 2]},
            {"kind": "discount", "lots": [1, 2], "discount_pct": "5"},
        ],
    )
    _offer(
        provider,
        req,
        "eu",
        [_o(1, "2.00", 32), _o(3, "2.50", 8)],
        [{"kind": "discount", "lots": [1, 3], "discount_pct": "4"}],
    )
    _offer(cirrus, req, "eu", [_o(2, "2.15", 16)], [{"kind": "max_total", "max_gpus": 96}])
    return req


def define(req, user, **data) -> AwardScenario:
    values = {"name": "Cap 75 %, two regions", "max_share_pct": Decimal("75"), "min_regions": 2}
    return scenario_create(capacity_request=req, user=user, data=values | data)
