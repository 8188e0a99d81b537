"""The buyer's lots on a draft request: add, edit, remove. Once published they are fixed, and
these pages send the buyer back to the request, saying why."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.lifecycle import REQUEST, request_actor
from bids.lot_forms import LotForm
from bids.lots import lot_get, lot_list, lot_total
from bids.models import CapacityRequest, Lot
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


def _back(req: CapacityRequest) -> HttpResponse:
    return redirect(reverse("bids:request-detail", args=[req.pk]) + "#lots")


def _lot_page(request: HttpRequest, req: CapacityRequest, lot: Lot | None) -> HttpResponse:
    decision = REQUEST.decide(req, "lots", actor=request_actor(req, request.user))
    if not decision.allowed:
        messages.error(request, decision.reason)
        return _back(req)
    form = LotForm(request.POST or None, instance=lot)
    if request.method == "POST" and form.is_valid():
        try:
            if lot is None:
                saved = services.lot_add(
                    capacity_request=req, user=user_of(request), data=form.cleaned_data
                )
            else:
                saved = services.lot_update(lot=lot, user=user_of(request), data=form.cleaned_data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"Lot {saved.number} saved.")
            return _back(req)
    status = 400 if form.is_bound and form.errors else 200
    total = lot_total(capacity_request=req, lots=lot_list(capacity_request=req))
    context = {"form": form, "req": req, "lot": lot, "lot_total": total}
    return render(request, "bids/lot_form.html", context, status=status)


@org_required(OrgKind.BUYER)
def lot_add(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    return _lot_page(request, req, None)


@org_required(OrgKind.BUYER)
def lot_edit(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    return _lot_page(request, req, lot_get(capacity_request=req, number=number))


@org_required(OrgKind.BUYER)
@require_POST
def lot_remove(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    lot = lot_get(capacity_request=req, number=number)
    try:
        services.lot_remove(lot=lot, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Lot {number} removed; the lots after it moved up one number.")
    return _back(req)
