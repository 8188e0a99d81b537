"""Fixtures for the comparison pages: a scored world, and many bids made in bulk."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from bids.choices import BidStatus
from bids.models import Bid, BidRevision, CapacityRequest, Invitation
from evaluation.models import ScoringRun
from evaluation.services import request_score
from orgs.choices import OrgKind
from orgs.models import Organization


def score(request: CapacityRequest) -> ScoringRun:
    return request_score(capacity_request=request)


@pytest.fixture
def scored(world: Any) -> Any:
    """The shared world (two submitted bids), scored once."""
    run = score(world.request)
    assert run.status == "done", run.error
    return world


def add_bids(
    request: CapacityRequest, count: int, *, start: int = 0, extra: dict[str, Any] | None = None
) -> list[Bid]:
    """`count` submitted bids with one revision each, in a handful of queries; `extra`: terms
    every one of them states besides the usual."""
    orgs = Organization.objects.bulk_create(
        Organization(
            name=f"Bulk provider {start + i}", slug=f"bulk-{start + i}", kind=OrgKind.PROVIDER
        )
        for i in range(count)
    )
    Invitation.objects.bulk_create(Invitation(request=request, provider=o) for o in orgs)
    terms: dict[str, Any] = {
        "region": "eu",
        "site": "Bulk site",
        "available_start": request.reservation_start,
        "gpu_model": request.gpu_model,
        "nodes": request.nodes,
        "gpus_per_node": request.gpus_per_node,
        "node_replacement_hours": Decimal("24"),
        **(extra or {}),
    }
    bids = Bid.objects.bulk_create(
        Bid(
            request=request,
            provider=o,
            status=BidStatus.SUBMITTED,
            latest_revision_number=1,
            has_unsubmitted_changes=False,
            price_per_gpu_hour=Decimal("2.000") + Decimal(i % 97) / 100,
            region="us-west" if i % 10 == 9 else "eu",
            **{k: v for k, v in terms.items() if k != "region"},
        )
        for i, o in enumerate(orgs)
    )
    BidRevision.objects.bulk_create(
        BidRevision(bid=b, number=1, submitted_at=timezone.now(), **b.terms_dict()) for b in bids
    )
    return bids
