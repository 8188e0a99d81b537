"""Acceptance over a failing gate: the buyer asks on the run's page; a second buyer-side
approver approves or declines on the reservation's page. Thin: the table and services decide."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from acceptance.forms.burnin import DeclineOverrideForm, OverrideRequestForm
from acceptance.lifecycle import case_for, pending_override, reservation_move
from acceptance.models import OverrideRequest, Reservation
from acceptance.selectors import burnin as sel
from acceptance.selectors.override import blocking_checks
from acceptance.services import override as services
from acceptance.views.burnin import _buyer_only, reservation_page, run_page
from acceptance.views.evidence import org_ids
from core.web import flash_errors, flashed_or_onto_form
from orgs.access import org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.BUYER)
@require_POST
def run_override(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.run_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, run.burnin_reservation)
    form = OverrideRequestForm(request.POST, blocking=blocking_checks(run=run))
    if form.is_valid():
        try:
            services.override_request(
                reservation=run.burnin_reservation,
                run=run,
                user=user_of(request),
                reason=form.cleaned_data["reason"],
                waived=form.cleaned_data["waived"],
                baseline_from_run=form.cleaned_data["baseline_from_run"],
                confirmed=form.cleaned_data["confirm"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("burnin:run-detail", pk=run.pk)
        else:
            messages.success(
                request,
                "Override requested. A buyer-side approver other than you must approve it "
                "before the reservation is accepted.",
            )
            return redirect("burnin:reservation-detail", pk=run.burnin_reservation.pk)
    return run_page(request, run, override_form=form)


def _pending(request: HttpRequest, reservation: Reservation, move: str) -> OverrideRequest:
    """The pending request; without one, the table says why the move is refused."""
    override = pending_override(reservation)
    if override is None:
        reservation_move(case_for(reservation), move, user=request.user)
        raise AssertionError("a reservation without a pending override awaits no approval")
    return override


@org_required(OrgKind.BUYER)
@require_POST
def override_approve(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = sel.reservation_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, reservation)
    try:
        override = _pending(request, reservation, "approve_override")
        services.override_approve(override=override, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Override approved: the reservation is accepted.")
    return redirect("burnin:reservation-detail", pk=pk)


@org_required(OrgKind.BUYER)
@require_POST
def override_decline(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = sel.reservation_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, reservation)
    form = DeclineOverrideForm(request.POST)
    if form.is_valid():
        try:
            override = _pending(request, reservation, "decline_override")
            services.override_decline(
                override=override, user=user_of(request), reason=form.cleaned_data["reason"]
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("burnin:reservation-detail", pk=pk)
        else:
            messages.success(request, "Override declined. The reservation stays pending.")
            return redirect("burnin:reservation-detail", pk=pk)
    return reservation_page(request, reservation, decline_form=form)
