"""The best-and-final round: after the close, the buyer shortlists submitted bids and takes
revised offers from those providers alone, sealed again until a new deadline or a close.

A shortlisted provider that does not revise keeps its last revision as its final offer; the
others' bids stay as they were, out of the round (`Bid.out_of_final_round`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from audit.services import parties
from bids.audit import record_request
from bids.choices import BidStatus, RequestStatus
from bids.lifecycle import REQUEST, request_actor
from bids.models import Bid, CapacityRequest
from bids.models.requests import FINAL_ROUND
from bids.notices import final_round_notify
from bids.services.requests import new_deadline_errors
from bids.signals import scoring_inputs_changed_on_commit
from core.lifecycle import require_confirmation


def _shortlist_errors(capacity_request: CapacityRequest, ids: Sequence[int]) -> list[str]:
    if not ids:
        return ["Shortlist at least one submitted bid: only shortlisted providers revise."]
    submitted = set(
        Bid.objects.filter(request=capacity_request, pk__in=ids, status=BidStatus.SUBMITTED)
        .exclude(latest_revision_number=0)
        .values_list("pk", flat=True)
    )
    # Worded alike for any other id (another request's bid, a draft): never a hint.
    if missing := sorted(set(ids) - submitted):
        return [f"Bid {missing[0]} is not a submitted bid on this request; shortlist another."]
    return []


@transaction.atomic
def final_round_open(
    *,
    capacity_request: CapacityRequest,
    user: User,
    shortlist: Sequence[int],
    bid_deadline: datetime | None,
    confirmed: bool = False,
) -> CapacityRequest:
    """Open the final round to the shortlisted bids (ids) until `bid_deadline`, confirmed.

    The request takes bids again (status open, round 2), sealed whatever its own flag: the
    buyer sees no bid until the new deadline or a close. Each invited provider hears whether it
    is shortlisted, and nothing of the others."""
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    decision = REQUEST.allow(stored, "final_round", actor=request_actor(stored, user))
    errors: dict[str, list[str]] = {}
    if deadline_errors := new_deadline_errors(stored, bid_deadline):
        errors["bid_deadline"] = deadline_errors
    if shortlist_errors := _shortlist_errors(stored, shortlist):
        errors["shortlist"] = shortlist_errors
    if errors:
        raise ValidationError(errors)
    require_confirmation(decision, confirmed=confirmed)
    assert bid_deadline is not None
    chosen = sorted(set(shortlist))
    Bid.objects.filter(pk__in=chosen).update(shortlisted=True)
    before = {"status": stored.status, "round": stored.round, "bid_deadline": stored.bid_deadline}
    capacity_request.status = RequestStatus.OPEN
    capacity_request.round = FINAL_ROUND
    capacity_request.bid_deadline = bid_deadline
    capacity_request.closed_at = None
    capacity_request.bids_opened_at = None  # sealed again until the new deadline or a close
    fields = ["status", "round", "bid_deadline", "closed_at", "bids_opened_at", "updated_at"]
    capacity_request.save(update_fields=fields)
    # Shared with every invitee: a final round, its deadline and how many were shortlisted.
    record_request(
        capacity_request=capacity_request,
        action="request.final_round",
        user=user,
        before=before,
        after={
            "status": capacity_request.status,
            "round": capacity_request.round,
            "bid_deadline": capacity_request.bid_deadline,
            "shortlisted": len(chosen),
        },
    )
    for bid in (
        Bid.objects.filter(request=capacity_request).select_related("provider").order_by("pk")
    ):
        # Whether a bid made the shortlist is the buyer's and that provider's alone.
        record_request(
            capacity_request=capacity_request,
            action="request.shortlist" if bid.pk in chosen else "request.not_shortlisted",
            user=user,
            after={"provider": bid.provider.name, "bid": bid.pk},
            audience=parties(
                buyer_org_id=capacity_request.buyer_id, provider_org_id=bid.provider_id
            ),
        )
    final_round_notify(capacity_request=capacity_request, shortlisted_bid_ids=chosen)
    scoring_inputs_changed_on_commit(capacity_request=capacity_request)
    return capacity_request
