"""Bid data for the comparison benches: one open request and as many varied bids as asked.

Import after `django.setup()`. Bids are written in bulk (a 200-bid request in a second), with
their first revision, varied so that the ranking, the hard requirements and the charts have
something to show: one in ten is in a region the request does not accept.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from bids.choices import BidStatus
from bids.models import Bid, BidRevision, CapacityRequest, Invitation
from orgs.choices import OrgKind
from orgs.models import Membership, Organization


def make_request(tag: str = "bench") -> tuple[CapacityRequest, Any]:
    buyer = Organization.objects.create(name=f"Bench buyer {tag}", slug=tag, kind=OrgKind.BUYER)
    user = get_user_model().objects.create_user(tag, password="bench-pass")
    Membership.objects.create(user=user, organization=buyer)
    start = timezone.localdate() + timedelta(days=60)
    req = CapacityRequest.objects.create(
        buyer=buyer,
        title="Bench: 16 × H200",
        status="open",
        gpu_model="H200",
        gpu_count=16,
        nodes=2,
        gpus_per_node=8,
        max_leaf_switches=1,
        acceptable_regions=["eu", "nordics"],
        reservation_start=start,
        reservation_end=start + timedelta(days=88),
        bid_deadline=timezone.now() + timedelta(days=14),
        sealed=False,
    )
    return req, user


def add_bids(req: CapacityRequest, start: int, count: int) -> None:
    orgs = Organization.objects.bulk_create(
        Organization(
            name=f"Provider {req.pk}-{i:03d}", slug=f"{req.pk}-p-{i}", kind=OrgKind.PROVIDER
        )
        for i in range(start, start + count)
    )
    Invitation.objects.bulk_create(Invitation(request=req, provider=o) for o in orgs)
    bids = Bid.objects.bulk_create(
        Bid(
            request=req,
            provider=o,
            status=BidStatus.SUBMITTED,
            latest_revision_number=1,
            has_unsubmitted_changes=False,
            price_per_gpu_hour=Decimal("1.90") + Decimal((i * 37) % 120) / 100,
            region="us-west" if i % 10 == 9 else ("eu", "nordics")[i % 2],
            site=f"Site {i}",
            available_start=req.reservation_start - timedelta(days=i % 20),
            gpu_model="H200",
            nodes=2,
            gpus_per_node=8,
            node_replacement_hours=Decimal((4, 8, 24, 72)[i % 4]),
            spares_count=i % 3,
            spares_location=("none", "same_fabric_domain", "same_site")[i % 3],
            coverage=("24x7", "extended", "business_hours")[i % 3],
            declared_node_mtbf_hours=(None, 3000, 6000, 9000)[i % 4],
            health_checks_auto_drain=i % 2 == 0,
        )
        for i, o in zip(range(start, start + count), orgs, strict=True)
    )
    BidRevision.objects.bulk_create(
        BidRevision(bid=b, number=1, submitted_at=timezone.now(), **b.terms_dict()) for b in bids
    )
