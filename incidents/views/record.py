"""The incident record's pages: propose, approve or decline, and apply a change; post a repair
estimate; download the ticket as text. Thin: services write, `incidents.ticket` reads."""

from __future__ import annotations

from datetime import UTC

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from core.web import flash_errors, flashed_or_onto_form
from incidents.forms_record import (
    ChangeApplyForm,
    ChangeDecideForm,
    ChangeProposeForm,
    EstimateForm,
)
from incidents.lifecycle import INCIDENT, incident_actor
from incidents.services import record as service
from incidents.ticket import ticket_for
from incidents.views import _get_incident, _incident_page
from orgs.access import org_required, user_of


@org_required()
@require_POST
def change_propose(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = ChangeProposeForm(request.POST, incident=incident)
    if form.is_valid():
        try:
            entry = service.change_propose(
                incident=incident, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("incidents:incident-detail", pk=pk)
        else:
            messages.success(
                request,
                f"Change #{entry.pk} is proposed; the {entry.other_party} approves or declines it.",
            )
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, change_form=form)


@org_required()
@require_POST
def change_decide(request: HttpRequest, pk: int, change: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = ChangeDecideForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose to approve or to decline the change.")
        return redirect("incidents:incident-detail", pk=pk)
    approve = form.cleaned_data["decision"] == "approve"
    try:
        entry = service.change_decide(
            incident=incident,
            user=user_of(request),
            entry=change,
            approve=approve,
            note=form.cleaned_data["note"],
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Change #{entry.pk} is {entry.status}; it is on the record.")
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def change_apply(request: HttpRequest, pk: int, change: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    form = ChangeApplyForm(request.POST, incident=incident)
    if not form.is_valid():
        messages.error(request, "Tick only evidence rows of this incident.")
        return redirect("incidents:incident-detail", pk=pk)
    try:
        entry = service.change_apply(
            incident=incident, user=user_of(request), entry=change, **form.cleaned_data
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Change #{entry.pk} is recorded as applied.")
    return redirect("incidents:incident-detail", pk=pk)


@org_required()
@require_POST
def estimate_post(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    decision = INCIDENT.decide(incident, "estimate", actor=incident_actor(incident, request.user))
    if not decision.allowed:  # the party is refused before the form is read
        messages.error(request, decision.reason)
        return redirect("incidents:incident-detail", pk=pk)
    with timezone.override(UTC):
        form = EstimateForm(request.POST)
        valid = form.is_valid()
    if valid:
        try:
            estimate = service.estimate_post(
                incident=incident, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("incidents:incident-detail", pk=pk)
        else:
            messages.success(
                request, f"Repair estimate r{estimate.revision} posted; the buyer is notified."
            )
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, estimate_form=form)


@org_required()
@require_GET
def ticket_txt(request: HttpRequest, pk: int) -> HttpResponse:
    incident = _get_incident(request, pk)
    response = HttpResponse(ticket_for(incident).text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="incident-{incident.pk}-ticket.txt"'
    return response
