from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.choices import BidStatus
from bids.forms import BidForm
from bids.lifecycle import BID, bid_actor
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_start(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    req = selectors.request_get_for_org(org=org, pk=pk)
    try:
        bid = services.bid_start(capacity_request=req, provider=org, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("bids:request-detail", pk=pk)
    return redirect("bids:bid-edit", pk=bid.pk)


@org_required()
def bid_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    bid = get_for_acting_org(request, lambda o: selectors.bid_get_for_org(org=o, pk=pk))
    revisions = selectors.revision_list(bid=bid)
    is_owner = org is not None and bid.provider_id == org.pk
    awarded = bid.status == BidStatus.AWARDED
    # The buyer reads the latest frozen revision, never the provider's working draft; once
    # awarded, both read the revision that won (a draft edit left unsubmitted did not).
    shown = bid if is_owner and not awarded else revisions.first()
    return render(
        request,
        "bids/bid_detail.html",
        {
            "bid": bid,
            "shown": shown,
            "revisions": revisions,
            "is_owner": is_owner,
            "awarded": awarded,
        },
    )


@org_required(OrgKind.PROVIDER)
def bid_edit(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    edit = BID.decide(bid, "edit", actor=bid_actor(bid, request.user))
    if not edit.allowed:
        # A frozen draft offers no form (bidding closed, awarded...): the bid page says why.
        messages.error(request, edit.reason)
        return redirect("bids:bid-detail", pk=bid.pk)
    form = BidForm(request.POST or None, instance=bid)
    if request.method == "POST" and form.is_valid():
        data = {name: form.cleaned_data[name] for name in form.Meta.fields}
        submitting = "submit" in request.POST
        try:
            services.bid_save_draft(bid=bid, user=user_of(request), data=data)
            if submitting:
                revision = services.bid_submit(bid=bid, user=user_of(request))
        except ValidationError as exc:
            errors_into_form(form, exc)
            if submitting:
                # A refusal naming no field (acknowledge an addendum first) says so itself.
                fix = "fix the fields marked below" if hasattr(exc, "error_dict") else "see above"
                form.add_error(None, f"Not submitted: {fix}. Your draft is kept.")
        else:
            if submitting:
                messages.success(request, f"Revision {revision.number} submitted and frozen.")
            else:
                messages.success(
                    request, "Draft saved. It is not visible to the buyer until you submit."
                )
            return redirect("bids:bid-detail", pk=bid.pk)
    return render(request, "bids/bid_form.html", {"form": form, "bid": bid})


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_submit(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    try:
        revision = services.bid_submit(bid=bid, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Revision {revision.number} submitted and frozen.")
    return redirect("bids:bid-detail", pk=pk)


@org_required(OrgKind.PROVIDER)
@require_POST
def bid_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    try:
        services.bid_withdraw(bid=bid, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Bid withdrawn. You can submit again before the deadline.")
    return redirect("bids:bid-detail", pk=pk)


@org_required()
def revision_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    bid = get_for_acting_org(request, lambda o: selectors.bid_get_for_org(org=o, pk=pk))
    revision = selectors.revision_get(bid=bid, number=number)
    return render(request, "bids/revision_detail.html", {"bid": bid, "revision": revision})
