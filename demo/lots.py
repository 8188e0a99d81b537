"""Demo data for lots: one request in three lots, bid on by the three demo providers, with each
kind of bundle condition (docs/lots.md walks through it)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from acceptance.services import acknowledgement_submit, fixture_from_template, lot_fixture_own
from bids import services
from bids.models import Bid, CapacityRequest, Lot
from demo.offers import offer_terms
from engine.scoring import demo as scoring_demo
from orgs.models import Organization

LOTS_TITLE = "GPU programme: pre-training, fine-tuning and inference"

LOTS: list[dict[str, Any]] = [
    {"name": "Pre-training", "nodes": 8, "gpus_per_node": 8},
    {
        "name": "Fine-tuning",
        "nodes": 4,
        "gpus_per_node": 8,
        "divisible": True,
        "min_block_nodes": 2,
    },
    {
        "name": "Inference",
        "nodes": 2,
        "gpus_per_node": 8,
        "divisible": True,
        "min_block_nodes": 1,
        "single_fabric_domain": False,
    },
]

# The request's fixture (what lots 1 and 2 are checked against, on the nodes each
# reservation wins); the inference lot has one of its own, a single-node NVLink check on the
# lot's servers. Bidders acknowledge the request's, and the lot's before offering on it.
REQUEST_FIXTURE_TEMPLATE = "rank-sum-allreduce"
OWN_FIXTURE_LOT = 3
OWN_FIXTURE_TEMPLATE = "single-node-nvlink"

# Per provider (in demo.seed.PROVIDERS order): its scoring demo offer, lot offers and bundles.
BIDS: list[dict[str, Any]] = [
    {
        "offer": scoring_demo.demo_cheap,
        "lot_offers": [
            {"lot": 1, "price_per_gpu_hour": "2.150", "nodes": 8},
            {"lot": 2, "price_per_gpu_hour": "2.250", "nodes": 4},
        ],
        "bundles": [{"kind": "discount", "lots": [1, 2], "discount_pct": "4"}],
    },
    {
        "offer": scoring_demo.demo_premium,
        "lot_offers": [
            {"lot": 1, "price_per_gpu_hour": "2.600", "nodes": 8},
            {"lot": 2, "price_per_gpu_hour": "2.500", "nodes": 2},
            {"lot": 3, "price_per_gpu_hour": "2.900", "nodes": 2},
        ],
        "bundles": [
            {"kind": "all_or_nothing", "lots": [1, 2]},
            {"kind": "max_total", "max_gpus": 96},
        ],
    },
    {
        "offer": scoring_demo.demo_wrong_region,
        "lot_offers": [{"lot": 3, "price_per_gpu_hour": "2.400", "nodes": 1}],
        "bundles": [],
    },
]


def seed_lots_demo(
    *, buyer: Organization, user: Any, providers: list[tuple[Organization, Any, Any]]
) -> CapacityRequest:
    """The lot request, once; running it again returns the one made before."""
    existing = CapacityRequest.objects.filter(buyer=buyer, title=LOTS_TITLE).first()
    if existing is not None:
        return existing
    start = timezone.localdate() + timedelta(days=75)
    req = services.request_create(
        buyer=buyer,
        user=user,
        data={
            "title": LOTS_TITLE,
            "description": "Three blocks that may go to different providers: one fabric for "
            "pre-training, fine-tuning in blocks of two servers, and inference capacity.",
            "gpu_model": "H200",
            "gpu_count": 112,
            "nodes": 14,
            "gpus_per_node": 8,
            "acceptable_regions": ["eu", "nordics", "uk"],
            "reservation_start": start,
            "reservation_end": start + timedelta(days=89),
            "bid_deadline": timezone.now() + timedelta(days=21),
            "sealed": False,
            "run_length_hours": 2000,
        },
    )
    for lot in LOTS:
        services.lot_add(capacity_request=req, user=user, data=lot)
    fixture_from_template(capacity_request=req, user=user, template=REQUEST_FIXTURE_TEMPLATE)
    own_lot = Lot.objects.get(request=req, number=OWN_FIXTURE_LOT)
    lot_fixture_own(lot=own_lot, user=user, template=OWN_FIXTURE_TEMPLATE)
    services.request_invite(
        capacity_request=req, user=user, providers=[org for org, _, _ in providers]
    )
    services.request_publish(capacity_request=req, user=user)
    for (org, provider_user, _spec), spec in zip(providers, BIDS, strict=True):
        bid = services.bid_start(capacity_request=req, provider=org, user=provider_user)
        terms = offer_terms(spec["offer"](), reservation_start=start)
        terms.update(lot_offers=spec["lot_offers"], bundles=spec["bundles"])
        services.bid_save_draft(bid=bid, user=provider_user, data=terms)
        acknowledgement_submit(bid=bid, user=provider_user, status="accepted")
        if any(offer["lot"] == OWN_FIXTURE_LOT for offer in spec["lot_offers"]):
            acknowledgement_submit(bid=bid, user=provider_user, status="accepted", lot=own_lot)
        services.bid_submit(bid=Bid.objects.get(pk=bid.pk), user=provider_user)
    return req
