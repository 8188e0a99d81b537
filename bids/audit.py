"""What the audit trail records about requests and bids, and for whom.

Visibility (see `audit.services.Audience`):
- request moves that say nothing about any bid (publish, edit once published, close, cancel,
  award's status change) are shared with every provider invited to the request;
- a draft's edits, and invitations, are the buyer's (an invitation also its provider's: a rival
  never learns who else was invited);
- a bid's entries (start, submit, withdraw, award, loss), and an invitee's questions and
  acknowledgements, are its provider's, and its buyer's only once the request's bids are
  visible to the buyer: a sealed request's buyer learns neither that a bid arrived nor from
  whom before the deadline or an early close. The start of a draft is the provider's alone,
  as drafts are.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from audit import tenancy
from audit.models import Party
from audit.services import Audience, audit_record, bid_audience, buyer_only, shared
from bids.choices import RequestStatus
from bids.models import Bid, CapacityRequest, DetailsGate, Invitation


def register_audit_tenancy() -> None:
    tenancy.register(invited_to=_invited_to, sealed_for_buyer=_sealed_for_buyer)


def _invited_to(org_id: int) -> QuerySet[Any]:
    """The requests whose shared entries the provider reads: published, and past their gate
    (a gated request's history tells its details, e.g. what an edit changed)."""
    gated = DetailsGate.objects.exclude(request__gate_acceptances__provider_id=org_id)
    return (
        Invitation.objects.filter(provider_id=org_id)
        .exclude(request__status=RequestStatus.DRAFT)
        .exclude(request_id__in=gated.values("request_id"))
        .values("request_id")
    )


def _sealed_for_buyer(org_id: int) -> QuerySet[Any]:
    return CapacityRequest.objects.filter(buyer_id=org_id).bids_hidden_from_buyer().values("pk")


def record_request(
    *,
    capacity_request: CapacityRequest,
    action: str,
    user: Any,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    audience: Audience | None = None,
    reason: str = "",
) -> None:
    """A buyer's move on the request; shared unless the request is still a draft."""
    if audience is None:
        published = capacity_request.status != RequestStatus.DRAFT or action == "request.publish"
        make = shared if published else buyer_only
        audience = make(buyer_org_id=capacity_request.buyer_id)
    audit_record(
        action=action,
        obj_key=f"request:{capacity_request.pk}",
        request_id=capacity_request.pk,
        user=user,
        org_id=capacity_request.buyer_id,
        party=Party.BUYER,
        audience=audience,
        before=before,
        after=after,
        reason=reason,
    )


def record_bid(
    *,
    bid: Bid,
    action: str,
    user: Any,
    party: str = Party.PROVIDER,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    audience: Audience | None = None,
) -> None:
    buyer_id = bid.request.buyer_id
    audit_record(
        action=action,
        obj_key=f"bid:{bid.pk}",
        request_id=bid.request_id,
        user=user,
        org_id=bid.provider_id if party == Party.PROVIDER else buyer_id,
        party=party,
        audience=audience or bid_audience(buyer_org_id=buyer_id, provider_org_id=bid.provider_id),
        before=before,
        after=after,
    )


def record_invitee(
    *,
    capacity_request: CapacityRequest,
    provider_id: int,
    action: str,
    user: Any,
    after: dict[str, Any] | None = None,
) -> None:
    """An invited provider's move on the request (a question, an acknowledgement): its own and
    the buyer's to read, never a rival's (a rival must not learn who asked or acknowledged).
    Hidden from a sealed request's buyer until the bids open, like a bid's entries: who is
    engaged, and when, says who is bidding."""
    audit_record(
        action=action,
        obj_key=f"request:{capacity_request.pk}",
        request_id=capacity_request.pk,
        user=user,
        org_id=provider_id,
        party=Party.PROVIDER,
        audience=bid_audience(buyer_org_id=capacity_request.buyer_id, provider_org_id=provider_id),
        after=after,
    )
