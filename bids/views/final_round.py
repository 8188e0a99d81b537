"""The buyer opens the best-and-final round: a shortlist, a new deadline, a confirmation."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from bids import selectors, services
from bids.forms import FinalRoundForm
from bids.lifecycle import REQUEST, request_actor
from core.web import flashed_or_onto_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.BUYER)
def request_final_round(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    bids = selectors.shortlist_choices(capacity_request=req)
    form = FinalRoundForm(request.POST if request.method == "POST" else None, bids=bids)
    if form.is_bound and form.is_valid():
        try:
            services.final_round_open(
                capacity_request=req,
                user=user_of(request),
                shortlist=[bid.pk for bid in form.cleaned_data["shortlist"]],
                bid_deadline=form.cleaned_data["bid_deadline"],
                confirmed=form.cleaned_data["confirm"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("bids:request-detail", pk=pk)
            req.refresh_from_db()
        else:
            messages.success(
                request, "Best-and-final round opened: the shortlisted providers are told."
            )
            return redirect("bids:request-detail", pk=pk)
    decision = REQUEST.decide(req, "final_round", actor=request_actor(req, request.user))
    return render(
        request,
        "bids/request_final_round.html",
        {"req": req, "decision": decision, "form": form},
    )
