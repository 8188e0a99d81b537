"""Opening an incident from any signal (a party's own, or a step-time rise), attaching a
failed-run analysis to an open incident, and an S3's restart on fewer nodes. Thin: the rules
are in incidents.services.opening."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from acceptance.models import Reservation
from acceptance.selectors import burnin as res_sel
from core.web import errors_into_form, flashed_or_onto_form
from incidents import selectors as sel
from incidents.forms import AttachForm, FewerNodesForm, SignalOpenForm, StepTimesOpenForm
from incidents.lifecycle import opening_decision, opening_party
from incidents.services import opening
from incidents.views import _incident_page, _org_ids
from orgs.access import org_required, user_of


def _new_page(
    request: HttpRequest, reservation: Reservation, *, status: int = 200, **forms: Any
) -> HttpResponse:
    _revision, snapshot, source = sel.terms_for(reservation)
    context = {
        "reservation": reservation,
        "decision": opening_decision(reservation, user=request.user),
        "signal_form": forms.get("signal_form")
        or SignalOpenForm(
            initial={"severity": "S1"}, party=opening_party(reservation, user=request.user)
        ),
        "steps_form": forms.get("steps_form") or StepTimesOpenForm(),
        "found": forms.get("found"),
        "threshold_pct": snapshot.get("degraded_step_time_pct"),
        "window_minutes": snapshot.get("degraded_window_minutes"),
        "terms_source": source,
    }
    context["step_baseline"], context["step_baseline_source"] = sel.step_time_baseline(reservation)
    return render(request, "incidents/incident_new.html", context, status=status)


@org_required()
@require_http_methods(["GET", "POST"])
def incident_new(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the two doors (a signal, or step times). POST: open from a signal."""
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    if request.method == "GET":
        return _new_page(request, reservation)
    with timezone.override(UTC):
        form = SignalOpenForm(request.POST, party=opening_party(reservation, user=request.user))
        valid = form.is_valid()
    if valid:
        try:
            incident = opening.incident_open_signal(
                reservation=reservation, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"Incident #{incident.pk} is open; the clocks are running.")
            return redirect("incidents:incident-detail", pk=incident.pk)
    return _new_page(request, reservation, signal_form=form)


@org_required()
@require_POST
def incident_from_steps(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    form = StepTimesOpenForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            row = opening.step_times_upload(
                reservation=reservation,
                user=user_of(request),
                upload=form.cleaned_data["file"],
                rank_map=form.cleaned_data["rank_map"],
                nodes=form.cleaned_data["nodes"],
                summary=form.cleaned_data["summary"],
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            if row.incident_id:
                messages.success(
                    request, f"Incident #{row.incident_id} (S2) is open; the clocks are running."
                )
                return redirect("incidents:incident-detail", pk=row.incident_id)
            form.add_error("file", row.error or (row.result or {}).get("message", ""))
            return _new_page(request, reservation, steps_form=form, found=row.result)
    return _new_page(request, reservation, steps_form=form)


@org_required()
@require_POST
def failed_run_attach(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.failed_run_get(org_ids=_org_ids(request), pk=pk)
    form = AttachForm(request.POST)
    incident = None
    if form.is_valid():
        incident = next(
            (i for i in sel.attachable_incidents(run) if i.pk == form.cleaned_data["incident"]),
            None,
        )
    if incident is None:
        messages.error(request, "Choose an open incident of this reservation without an analysis.")
        return redirect("incidents:failed-run-detail", pk=pk)
    try:
        opening.incident_attach_failed_run(incident=incident, failed_run=run, user=user_of(request))
    except ValidationError as exc:
        flashed_or_onto_form(request, form, exc)
        return redirect("incidents:failed-run-detail", pk=pk)
    messages.success(request, f"{run.label} is attached to incident #{incident.pk}.")
    return redirect("incidents:incident-detail", pk=incident.pk)


@org_required()
@require_POST
def incident_fewer_nodes(request: HttpRequest, pk: int) -> HttpResponse:
    incident = sel.incident_get(org_ids=_org_ids(request), pk=pk)
    with timezone.override(UTC):
        form = FewerNodesForm(request.POST)
        valid = form.is_valid()
    if valid:
        try:
            opening.incident_fewer_nodes(
                incident=incident, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("incidents:incident-detail", pk=pk)
        else:
            messages.success(request, "The restart on fewer nodes is on record.")
            return redirect("incidents:incident-detail", pk=pk)
    return _incident_page(request, incident, fewer_form=form)
