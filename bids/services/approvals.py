"""Approval by policy: publishing and awarding over the buyer's thresholds wait for one or two
approvers, each a different person and never the one who asked.

The gate (`approval_gate`) sits in the moves themselves (`request_publish`, `award_check`), so
no path, page or API, publishes or awards over a threshold without the approvals. The pages ask
first (`approval_ask`); approvers approve (`approval_give`), as themselves or for a colleague
who delegated to them; the last approval lets the move through once, for the value approved.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import buyer_only
from bids.approval_notices import approval_asked_notify, approval_decided_notify
from bids.audit import record_request
from bids.lifecycle import REQUEST, request_actor
from bids.lots import lots_publish_check
from bids.models import (
    Approval,
    ApprovalAction,
    ApprovalPolicy,
    ApprovalRequest,
    ApprovalStatus,
    Bid,
    CapacityRequest,
    Delegation,
)
from core.errors import Conflict
from core.lifecycle import MoveRefused
from core.sentences import sentence_problem
from orgs.choices import MemberRole
from orgs.models import Membership, Organization

APPROVING_ROLES = (MemberRole.APPROVER, MemberRole.ADMIN)
LIVE = (ApprovalStatus.PENDING, ApprovalStatus.APPROVED)


def policy_of(*, organization: Organization) -> ApprovalPolicy:
    """The organisation's policy; an unsaved empty one (nobody asked) if it never set one."""
    policy = ApprovalPolicy.objects.filter(organization=organization).first()
    return policy or ApprovalPolicy(organization=organization)


def move_value(
    *, capacity_request: CapacityRequest, action: str, bid: Bid | None
) -> Decimal | None:
    """What a move is worth: a request's budget; an award's price for every GPU over the whole
    term, plus the bid's one-off fees (None when unknown)."""
    if action == ApprovalAction.PUBLISH:
        return capacity_request.budget_usd
    assert bid is not None
    revision = bid.revisions.filter(number=bid.latest_revision_number).first()
    if revision is None or revision.price_per_gpu_hour is None:
        return None
    hours = capacity_request.gpu_count * capacity_request.term_hours
    fees = revision.fees_usd or Decimal(0)
    return (revision.price_per_gpu_hour * hours + fees).quantize(Decimal("0.01"))


def approvers_needed(*, capacity_request: CapacityRequest, action: str, bid: Bid | None) -> int:
    policy = policy_of(organization=capacity_request.buyer)
    value = move_value(capacity_request=capacity_request, action=action, bid=bid)
    return policy.approvers_needed(action=action, value=value)


def live_approval(*, capacity_request: CapacityRequest, action: str) -> ApprovalRequest | None:
    return (
        ApprovalRequest.objects.filter(request=capacity_request, action=action, status__in=LIVE)
        .select_related("bid__provider", "asked_by")
        .first()
    )


def must_ask(*, capacity_request: CapacityRequest, action: str, bid: Bid | None) -> bool:
    """Over the policy's threshold and not yet approved: the move is asked for, not made."""
    if not approvers_needed(capacity_request=capacity_request, action=action, bid=bid):
        return False
    live = live_approval(capacity_request=capacity_request, action=action)
    return live is None or live.status != ApprovalStatus.APPROVED


def approval_gate(*, capacity_request: CapacityRequest, action: str, bid: Bid | None) -> None:
    """Refuse a move over the policy's threshold unless it was approved as it stands now."""
    needed = approvers_needed(capacity_request=capacity_request, action=action, bid=bid)
    if not needed:
        return
    live = live_approval(capacity_request=capacity_request, action=action)
    value = move_value(capacity_request=capacity_request, action=action, bid=bid)
    if live is None or live.status != ApprovalStatus.APPROVED:
        people = "one approver" if needed == 1 else "two approvers"
        raise Conflict(
            f"Under {capacity_request.buyer.name}'s approval policy this needs {people}: ask "
            "for approval first."
        )
    if live.bid_id != (bid.pk if bid else None) or live.value != value:
        raise Conflict(
            "What was approved differs from this move (another bid, or the value changed): "
            "withdraw the approval request and ask again."
        )
    if live.needed < needed:
        raise Conflict(
            "The approval policy now needs more approvers than this was approved by: withdraw "
            "the approval request and ask again."
        )


def approval_used(*, capacity_request: CapacityRequest, action: str) -> None:
    """The approved move happened: its approval lets nothing else through."""
    ApprovalRequest.objects.filter(
        request=capacity_request, action=action, status=ApprovalStatus.APPROVED
    ).update(status=ApprovalStatus.DONE, decided_at=timezone.now())


@transaction.atomic
def approval_ask(
    *,
    capacity_request: CapacityRequest,
    action: str,
    user: User,
    bid: Bid | None = None,
    justification: str = "",
    view: str = "",
) -> ApprovalRequest:
    """Ask the organisation's approvers for a move the policy holds back."""
    decision = REQUEST.decide(capacity_request, action, actor=request_actor(capacity_request, user))
    if not decision.allowed:
        raise MoveRefused(decision)  # type: ignore[arg-type]
    if action == ApprovalAction.PUBLISH:
        # Approvers would approve a request that publishing then refuses: fix the lots first.
        lots_publish_check(capacity_request=capacity_request)
    needed = approvers_needed(capacity_request=capacity_request, action=action, bid=bid)
    if not needed:
        raise Conflict("Your organisation's approval policy needs no approver for this.")
    if live_approval(capacity_request=capacity_request, action=action) is not None:
        raise Conflict(
            f"An approval to {action} this request is already under way: see it on the page."
        )
    asked = ApprovalRequest.objects.create(
        request=capacity_request,
        action=action,
        bid=bid,
        value=move_value(capacity_request=capacity_request, action=action, bid=bid),
        needed=needed,
        justification=justification.strip(),
        view=view,
        asked_by=user,
    )
    _record(asked, "approval.ask", user, after={"needed": needed, "value": asked.value})
    approval_asked_notify(asked=asked)
    return asked


def principals_for(*, asked: ApprovalRequest, user: User, today: date) -> list[User]:
    """Whom `user` may approve as: themselves if an approver or admin, and every approver who
    delegated to them for today; never the asker nor anyone who already approved."""
    org_id = asked.request.buyer_id
    approving = Membership.objects.filter(organization_id=org_id, role__in=APPROVING_ROLES)
    delegators = Delegation.objects.filter(
        organization_id=org_id,
        delegate=user,
        starts_on__lte=today,
        ends_on__gte=today,
        delegator__memberships__in=approving,
    ).select_related("delegator")
    candidates: list[User] = []
    if approving.filter(user=user).exists():
        candidates.append(user)
    candidates += [d.delegator for d in delegators if d.delegator not in candidates]
    given = list(asked.approvals.all())
    taken = {a.principal_id for a in given} | {a.approver_id for a in given}
    if user.pk in taken or user.pk == asked.asked_by_id:
        return []
    return [p for p in candidates if p.pk not in taken and p.pk != asked.asked_by_id]


@transaction.atomic
def approval_give(*, asked: ApprovalRequest, user: User, on_behalf_of: User) -> ApprovalRequest:
    """One approval, as `on_behalf_of` (the approver themselves, or who delegated to them)."""
    asked = ApprovalRequest.objects.select_for_update().select_related("request").get(pk=asked.pk)
    if asked.status != ApprovalStatus.PENDING:
        raise Conflict(f"This approval request is {asked.get_status_display().lower()}.")
    allowed = principals_for(asked=asked, user=user, today=timezone.localdate())
    if on_behalf_of not in allowed:
        raise Conflict(_why_not(asked=asked, user=user))
    Approval.objects.create(
        approval_request=asked,
        approver=user,
        on_behalf_of=None if on_behalf_of == user else on_behalf_of,
    )
    if asked.approvals.count() >= asked.needed:
        asked.status = ApprovalStatus.APPROVED
        asked.decided_at = timezone.now()
        asked.save(update_fields=["status", "decided_at"])
        approval_decided_notify(asked=asked)
    after = {"approved_by": user.get_username(), "status": asked.status}
    if on_behalf_of != user:
        after["for"] = on_behalf_of.get_username()
    _record(asked, "approval.give", user, after=after)
    return asked


def _why_not(*, asked: ApprovalRequest, user: User) -> str:
    if user.pk == asked.asked_by_id:
        return "You asked for this: a different person must approve it."
    if asked.approvals.filter(approver=user).exists():
        return "You already approved this: the second approval must be someone else's."
    return (
        "Only an approver or administrator of the buyer, or a colleague they delegated to for "
        "today, may approve this, and each approval must be a different person's."
    )


@transaction.atomic
def approval_decline(*, asked: ApprovalRequest, user: User, reason: str) -> ApprovalRequest:
    asked = ApprovalRequest.objects.select_for_update().select_related("request").get(pk=asked.pk)
    if asked.status != ApprovalStatus.PENDING:
        raise Conflict(f"This approval request is {asked.get_status_display().lower()}.")
    if not principals_for(asked=asked, user=user, today=timezone.localdate()):
        raise Conflict(_why_not(asked=asked, user=user))
    if problem := sentence_problem(reason.strip(), ask="Say why you decline"):
        raise ValidationError({"reason": [problem]})
    asked.status = ApprovalStatus.DECLINED
    asked.decided_at = timezone.now()
    asked.decline_reason = reason.strip()
    asked.save(update_fields=["status", "decided_at", "decline_reason"])
    _record(asked, "approval.decline", user, after={"status": asked.status}, reason=reason)
    approval_decided_notify(asked=asked)
    return asked


@transaction.atomic
def approval_withdraw(*, asked: ApprovalRequest, user: User) -> ApprovalRequest:
    """The asker (or an admin) withdraws a request not yet used, to ask again differently."""
    asked = ApprovalRequest.objects.select_for_update().select_related("request").get(pk=asked.pk)
    if asked.status not in LIVE:
        raise Conflict(f"This approval request is {asked.get_status_display().lower()}.")
    is_admin = Membership.objects.filter(
        organization_id=asked.request.buyer_id, user=user, role=MemberRole.ADMIN
    ).exists()
    if user.pk != asked.asked_by_id and not is_admin:
        raise Conflict("Only the person who asked, or an administrator, may withdraw it.")
    asked.status = ApprovalStatus.WITHDRAWN
    asked.decided_at = timezone.now()
    asked.save(update_fields=["status", "decided_at"])
    _record(asked, "approval.withdraw", user, after={"status": asked.status})
    return asked


def _record(
    asked: ApprovalRequest, action: str, user: User, *, after: dict[str, Any], reason: str = ""
) -> None:
    # The buyer's own business, whatever the request's state: an award's approvals name a bid.
    req = asked.request
    record_request(
        capacity_request=req,
        action=f"request.{action}",
        user=user,
        after={"move": asked.action, **({"bid": asked.bid_id} if asked.bid_id else {}), **after},
        audience=buyer_only(buyer_org_id=req.buyer_id),
        reason=reason,
    )
