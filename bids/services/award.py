"""The end of bidding: which bid may win, and the win and the losses themselves.

The reservation the award opens belongs to acceptance (`acceptance.services.award`), which
calls these after its own checks.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from bids.choices import BidStatus, RequestStatus
from bids.models import Bid, BidRevision, CapacityRequest
from core.errors import ServiceError


def award_blocker(*, request: CapacityRequest) -> str | None:
    """Why the request cannot be awarded now (None when it can)."""
    if request.bids_hidden_from_buyer and request.status in (
        RequestStatus.OPEN,
        RequestStatus.CLOSED,
    ):
        return "The request is sealed until its deadline; bids cannot be awarded before then."
    if request.status == RequestStatus.CLOSED:
        return None
    if request.status == RequestStatus.OPEN:
        if request.deadline_passed:
            return None
        return "Bidding is still open: close it or wait for the deadline before awarding."
    return f"A request that is {request.get_status_display().lower()} cannot be awarded."


def award_refusal(*, request: CapacityRequest, bid: Bid) -> str | None:
    """Why this bid cannot win this request now (None when it can)."""
    blocker = award_blocker(request=request)
    if blocker:
        return blocker
    if bid.request_id != request.pk:
        return "That bid belongs to another request."
    if bid.status != BidStatus.SUBMITTED or bid.latest_revision_number == 0:
        return f"The bid from {bid.provider.name} is not a submitted bid."
    return None


@transaction.atomic
def bid_award(*, request: CapacityRequest, bid: Bid) -> BidRevision:
    """The bid wins and every other submitted bid loses; returns the winning revision.

    The caller holds both rows locked (`select_for_update`)."""
    refusal = award_refusal(request=request, bid=bid)
    if refusal:
        raise ServiceError(refusal)
    revision = bid.revisions.get(number=bid.latest_revision_number)
    request.status = RequestStatus.AWARDED
    request.save(update_fields=["status", "updated_at"])
    bid.status = BidStatus.AWARDED
    bid.save(update_fields=["status", "updated_at"])
    request.bids.exclude(pk=bid.pk).filter(status=BidStatus.SUBMITTED).update(
        status=BidStatus.LOST, updated_at=timezone.now()
    )
    return revision
