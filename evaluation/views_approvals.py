"""Approving, declining and withdrawing a publish or an award held back by the buyer's policy,
on the request's page. The approval that completes one makes the move (`evaluation.approvals`)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from bids.approval_selectors import approval_request_get, buyer_member
from bids.models import ApprovalRequest
from bids.services.approvals import approval_decline, approval_withdraw
from core.web import flash_errors, keep_input
from evaluation.approvals import approve
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _asked(request: HttpRequest, pk: int) -> ApprovalRequest:
    org = active_org(request)
    assert org is not None  # org_required
    return approval_request_get(buyer=org, pk=pk)


@org_required(OrgKind.BUYER)
@require_POST
def approval_approve(request: HttpRequest, pk: int) -> HttpResponse:
    asked = _asked(request, pk)
    user = user_of(request)
    wanted = request.POST.get("on_behalf_of") or str(user.pk)
    principal = buyer_member(asked=asked, user_id=int(wanted)) if wanted.isdigit() else None
    if principal is None:  # not a colleague: approve as nobody rather than as oneself
        messages.error(request, "Choose whom you approve for: yourself or a colleague listed.")
        return redirect("bids:request-detail", pk=asked.request_id)
    try:
        result = approve(asked=asked, user=user, on_behalf_of=principal)
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("bids:request-detail", pk=asked.request_id)
    if result.done:
        messages.success(request, f"Approved: the request is {_done(result.asked)}.")
    elif result.problem:
        messages.error(
            request,
            f"Approved, but it could not be made yet: {result.problem} Once that is put "
            "right, the person who asked can make it again.",
        )
    else:
        messages.success(request, "Approved: a second approver must approve too.")
    return redirect("bids:request-detail", pk=asked.request_id)


def _done(asked: ApprovalRequest) -> str:
    return "published" if asked.action == "publish" else "awarded"


@org_required(OrgKind.BUYER)
@require_POST
def approval_refuse(request: HttpRequest, pk: int) -> HttpResponse:
    asked = _asked(request, pk)
    reason = request.POST.get("reason", "")
    try:
        approval_decline(asked=asked, user=user_of(request), reason=reason)
    except ValidationError as exc:
        flash_errors(request, exc)
        keep_input(request, key=f"approval:{asked.pk}", data={"reason": reason})
    else:
        messages.success(request, "Declined: the person who asked is shown why.")
    return redirect("bids:request-detail", pk=asked.request_id)


@org_required(OrgKind.BUYER)
@require_POST
def approval_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    asked = _asked(request, pk)
    try:
        approval_withdraw(asked=asked, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "The approval request is withdrawn.")
    return redirect("bids:request-detail", pk=asked.request_id)
