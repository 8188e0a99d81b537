"""Reads for approval by policy: a request's approval requests with who approved (and for
whom), an organisation's delegations, and the words the pages use."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from bids.models import Approval, ApprovalRequest, CapacityRequest, Delegation
from orgs.models import Organization


def person(user: User | None) -> str:
    if user is None:
        return "a former member"
    return user.get_full_name() or user.get_username()


def approval_words(approval: Approval) -> str:
    """ "approved by X", or "approved by X for Y" when X acted as Y's delegate."""
    words = f"approved by {person(approval.approver)}"
    if approval.on_behalf_of_id:
        words += f" for {person(approval.on_behalf_of)}"
    return words


def asked_message(asked: ApprovalRequest) -> str:
    people = "one approver" if asked.needed == 1 else "two different approvers"
    verb = "Publishing" if asked.action == "publish" else "This award"
    return (
        f"{verb} needs {people} under your organisation's policy: they are asked, and it "
        "happens once they approve."
    )


def approval_requests_for(*, capacity_request: CapacityRequest) -> QuerySet[ApprovalRequest]:
    """Newest first, each with its approvals in order; for the buyer's page only."""
    approvals = Approval.objects.select_related("approver", "on_behalf_of")
    return (
        ApprovalRequest.objects.filter(request=capacity_request)
        .select_related("asked_by", "bid__provider")
        .prefetch_related(Prefetch("approvals", queryset=approvals))
    )


def approval_request_get(*, buyer: Organization, pk: int) -> ApprovalRequest:
    """Tenancy: an approval request on one of the buyer's own requests, else 404."""
    return get_object_or_404(
        ApprovalRequest.objects.select_related("request", "bid__provider", "asked_by"),
        pk=pk,
        request__buyer=buyer,
    )


def buyer_member(*, asked: ApprovalRequest, user_id: int) -> User | None:
    """A member of the asking buyer by id, whom an approval may count for; None for any other
    id, so that ids say nothing of other organisations."""
    members = User.objects.filter(memberships__organization_id=asked.request.buyer_id)
    return members.filter(pk=user_id).first()


def delegations_of(*, organization: Organization) -> QuerySet[Delegation]:
    return Delegation.objects.filter(organization=organization).select_related(
        "delegator", "delegate", "created_by"
    )
