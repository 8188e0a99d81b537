"""The request page's approvals card: what waits for approval under the buyer's policy, who
approved (and for whom), and the current user's approve or decline form where they may."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import User
from django.utils import timezone

from bids.approval_selectors import approval_requests_for, approval_words, person
from bids.models import ApprovalStatus, CapacityRequest
from bids.services.approvals import principals_for
from core.web import kept_input
from orgs.choices import MemberRole
from orgs.models import Membership, Organization

register = template.Library()

#: Decided approval requests shown under the live one: the latest few tell the story.
RECENT = 5


@register.inclusion_tag("evaluation/_approval_panel_body.html", takes_context=True)
def approval_panel(
    context: dict[str, Any], req: CapacityRequest, org: Organization | None
) -> dict[str, Any]:
    if org is None or req.buyer_id != org.pk:
        return {"rows": []}
    user = context["request"].user
    today = timezone.localdate()
    is_admin = Membership.objects.filter(
        organization=org, user=user, role=MemberRole.ADMIN
    ).exists()
    rows = []
    for asked in approval_requests_for(capacity_request=req)[:RECENT]:
        pending = asked.status == ApprovalStatus.PENDING
        principals = principals_for(asked=asked, user=user, today=today) if pending else []
        rows.append(
            {
                "asked": asked,
                "asker": person(asked.asked_by),
                "approvals": [approval_words(a) for a in asked.approvals.all()],
                "principals": [(p.pk, _as(p, user)) for p in principals],
                "is_asker": asked.asked_by_id == user.pk,
                "may_withdraw": asked.asked_by_id == user.pk or is_admin,
                "kept_reason": kept_input(context["request"], key=f"approval:{asked.pk}").get(
                    "reason", ""
                ),
            }
        )
    return {"rows": rows, "req": req, "csrf_token": context.get("csrf_token")}


def _as(principal: User, user: User) -> str:
    return "Yourself" if principal == user else f"For {person(principal)} (delegated to you)"
