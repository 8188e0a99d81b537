"""The browser's award: here, above acceptance, because the scores decide whether the buyer
must write why (awarding a bid not ranked first, or disqualified) and what each bidder's
debrief says (`evaluation.debrief`)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from bids import selectors as bid_selectors
from bids.approval_selectors import asked_message
from bids.models import ApprovalRequest
from core.web import flash_errors, keep_input
from evaluation.approvals import award_or_ask
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.BUYER)
@require_POST
def bid_award(request: HttpRequest, pk: int) -> HttpResponse:
    bid = bid_selectors.bid_get_for_org(org=active_org(request), pk=pk)
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=bid.request_id)
    justification = request.POST.get("justification", "")
    view = request.POST.get("view") or "request"
    try:
        outcome = award_or_ask(
            capacity_request=req,
            bid=bid,
            user=user_of(request),
            justification=justification,
            view=view,
        )
    except ValidationError as exc:
        flash_errors(request, exc)
        keep_input(
            request,
            key=f"award:{req.pk}",
            data={"bid": str(bid.pk), "justification": justification, "view": view},
        )
        return redirect("bids:request-detail", pk=req.pk)
    if isinstance(outcome, ApprovalRequest):
        messages.success(request, asked_message(outcome))
        return redirect("bids:request-detail", pk=req.pk)
    messages.success(
        request,
        f"Awarded to {bid.provider.name}. The reservation waits for burn-in evidence and your "
        "acceptance; its clock starts when you accept, or on the term's first day if that is "
        "later.",
    )
    return redirect("burnin:reservation-detail", pk=outcome.pk)
