"""Who hears of approval by policy: the buyer's approvers (and whoever stands in for one
today) when a publish or an award waits for them; the person who asked when it is decided."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from bids.models import ApprovalRequest, Delegation
from notices.choices import Event
from notices.models import Notice
from notices.services import notify
from orgs.choices import MemberRole


def _what(asked: ApprovalRequest) -> str:
    title = asked.request.title
    if asked.bid_id:
        return f"awarding “{title}” to {asked.bid.provider.name}"  # type: ignore[union-attr]
    return f"publishing “{title}”"


def approval_asked_notify(*, asked: ApprovalRequest) -> list[Notice]:
    org = asked.request.buyer
    approvers = list(
        User.objects.filter(
            memberships__organization=org,
            memberships__role__in=[MemberRole.APPROVER, MemberRole.ADMIN],
        )
    )
    today = timezone.localdate()
    delegates = [
        d.delegate
        for d in Delegation.objects.filter(
            organization=org, delegator__in=approvers, starts_on__lte=today, ends_on__gte=today
        ).select_related("delegate")
    ]
    who = asked.asked_by.get_username() if asked.asked_by else "A colleague"
    value = f" (${asked.value:,.2f})" if asked.value is not None else ""
    return notify(
        event=Event.APPROVAL,
        users=[u for u in {*approvers, *delegates} if u.pk != asked.asked_by_id],
        organization=org,
        subject=f"Approve or decline: {_what(asked)}",
        body=f"{who} asks to go ahead with {_what(asked)}{value}. Under {org.name}'s approval "
        f"policy it needs {asked.needed} approver(s), each a different person.",
        path=reverse("bids:request-detail", args=[asked.request_id]) + "#approvals",
        key=f"approval:{asked.pk}:asked",
    )


def approval_decided_notify(*, asked: ApprovalRequest) -> list[Notice]:
    if asked.asked_by is None:
        return []
    verb = asked.get_status_display().lower()
    reason = f"\n\nWhy: {asked.decline_reason}" if asked.decline_reason else ""
    return notify(
        event=Event.APPROVAL,
        users=[asked.asked_by],
        organization=asked.request.buyer,
        subject=f"{verb.capitalize()}: {_what(asked)}",
        body=f"Your request for {_what(asked)} is {verb}.{reason}",
        path=reverse("bids:request-detail", args=[asked.request_id]) + "#approvals",
        key=f"approval:{asked.pk}:{asked.status}",
    )
