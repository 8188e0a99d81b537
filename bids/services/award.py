"""The end of bidding: which bid may win, and the win and the losses themselves.

The reservation the award opens belongs to acceptance (`acceptance.services.award`), which
calls these after its own checks.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from audit.models import Party
from bids.audit import record_bid, record_request
from bids.choices import BidStatus, RequestStatus
from bids.lifecycle import REQUEST, request_actor
from bids.models import ApprovalAction, Bid, BidRevision, CapacityRequest
from bids.services.approvals import approval_gate, approval_used
from core.errors import Conflict, ServiceError
from core.lifecycle import MoveRefused


def award_refusal(*, capacity_request: CapacityRequest, bid: Bid, user: User) -> str | None:
    """Why `user` cannot award this bid now (None when they can)."""
    decision = REQUEST.decide(
        capacity_request, "award", actor=request_actor(capacity_request, user)
    )
    if not decision.allowed:
        return decision.reason
    if bid.request_id != capacity_request.pk:
        return "That bid belongs to another request."
    if bid.status != BidStatus.SUBMITTED or bid.latest_revision_number == 0:
        return f"The bid from {bid.provider.name} is not a submitted bid."
    if bid.out_of_final_round:
        return f"The bid from {bid.provider.name} was not shortlisted for the final round."
    return None


def award_check(*, capacity_request: CapacityRequest, bid: Bid, user: User) -> None:
    """Refuse the award if `user` cannot make it now (`award_allowed`) or the buyer's approval
    policy holds it back."""
    award_allowed(capacity_request=capacity_request, bid=bid, user=user)
    approval_gate(capacity_request=capacity_request, action=ApprovalAction.AWARD, bid=bid)


def award_allowed(*, capacity_request: CapacityRequest, bid: Bid, user: User) -> None:
    """Refuse an award `user` cannot make or ask for now: 403 by role, 409 by the request's or
    the bid's state, 400 for a bid of another request."""
    decision = REQUEST.decide(
        capacity_request, "award", actor=request_actor(capacity_request, user)
    )
    if not decision.allowed:
        raise MoveRefused(decision)  # type: ignore[arg-type]
    if bid.request_id != capacity_request.pk:
        raise ServiceError("That bid belongs to another request.")
    refusal = award_refusal(capacity_request=capacity_request, bid=bid, user=user)
    if refusal:
        raise Conflict(refusal)


@transaction.atomic
def bid_award(*, capacity_request: CapacityRequest, bid: Bid, user: User) -> BidRevision:
    """The bid wins and every other submitted bid loses; returns the winning revision.

    The caller holds both rows locked (`select_for_update`)."""
    return bids_award(capacity_request=capacity_request, bids=[bid], user=user)[bid.pk]


@transaction.atomic
def bids_award(
    *, capacity_request: CapacityRequest, bids: list[Bid], user: User
) -> dict[int, BidRevision]:
    """These bids win (a split award has several), every other submitted bid loses; returns
    each winner's revision by bid id. The caller holds the request and the bids locked."""
    for bid in bids:
        award_check(capacity_request=capacity_request, bid=bid, user=user)
    revisions = {bid.pk: bid.revisions.get(number=bid.latest_revision_number) for bid in bids}
    before = {"status": capacity_request.status}
    capacity_request.status = RequestStatus.AWARDED
    capacity_request.save(update_fields=["status", "updated_at"])
    for bid in bids:
        bid.status = BidStatus.AWARDED
        bid.save(update_fields=["status", "updated_at"])
    losing = capacity_request.bids.exclude(pk__in=[b.pk for b in bids]).filter(
        status=BidStatus.SUBMITTED
    )
    lost = list(losing.select_related("request"))
    losing.update(status=BidStatus.LOST, updated_at=timezone.now())
    approval_used(capacity_request=capacity_request, action=ApprovalAction.AWARD)
    # Shared with every invited provider: that it was awarded, never to whom or at what price.
    record_request(
        capacity_request=capacity_request, action="request.award", user=user, before=before,
        after={"status": capacity_request.status},
    )  # fmt: skip
    for bid in bids:
        revision = revisions[bid.pk]
        record_bid(
            bid=bid,
            action="bid.award",
            user=user,
            party=Party.BUYER,
            before={"status": BidStatus.SUBMITTED},
            after={
                "status": bid.status,
                "revision": revision.number,
                "price_per_gpu_hour": revision.price_per_gpu_hour,
            },
        )
    for other in lost:
        record_bid(
            bid=other, action="bid.lose", user=user, party=Party.BUYER,
            before={"status": BidStatus.SUBMITTED}, after={"status": BidStatus.LOST},
        )  # fmt: skip
    return revisions
