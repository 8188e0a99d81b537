"""The maintenance form, the buyer's agreement and the availability downloads. Thin: the rules
are in delivery.services, the figures in delivery.selectors; the panel on the reservation page
is `delivery.templatetags.delivery_panel`."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from acceptance.models import Reservation
from acceptance.selectors import burnin as res_sel
from core.web import errors_into_form, flash_errors
from delivery import exports, selectors, services
from delivery.forms import MaintenanceForm
from delivery.lifecycle import announce_decision
from delivery.models import MaintenanceWindow
from orgs.access import active_org, org_required, user_of


def _reservation(request: HttpRequest, pk: int) -> Reservation:
    org = active_org(request)
    return res_sel.reservation_get(org_ids=[org.pk] if org else [], pk=pk)


def _back(reservation: Reservation) -> str:
    return reverse("burnin:reservation-detail", args=[reservation.pk]) + "#delivery"


@org_required()
@require_http_methods(["GET", "POST"])
def maintenance_new(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the form on its own page. POST: announce; field errors come back here, typed
    values kept; a refusal by party, role or state is flashed on the reservation page."""
    reservation = _reservation(request, pk)
    form = MaintenanceForm(request.POST or None)
    decision = announce_decision(reservation, user=request.user)
    if request.method == "POST" and not decision.allowed:
        messages.error(request, decision.reason)
        return redirect(_back(reservation))
    if request.method == "POST":
        with timezone.override(UTC):
            valid = form.is_valid()
        if valid:
            try:
                window = services.maintenance_announce(
                    reservation=reservation, user=user_of(request), **form.cleaned_data
                )
            except ValidationError as exc:
                if not hasattr(exc, "error_dict"):
                    flash_errors(request, exc)
                    return redirect(_back(reservation))
                errors_into_form(form, exc)
            else:
                note = " It is short notice: it counts as downtime until the buyer agrees." * (
                    window.short_notice
                )
                messages.success(request, f"Maintenance announced; the buyer is told.{note}")
                return redirect(_back(reservation))
    context: dict[str, Any] = {
        "reservation": reservation,
        "form": form,
        "decision": decision,
    }
    return render(request, "delivery/maintenance_new.html", context)


@org_required()
@require_POST
def maintenance_agree(request: HttpRequest, pk: int) -> HttpResponse:
    window = _window(request, pk)
    try:
        services.maintenance_agree(window=window, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "Agreed: the window is maintenance, not downtime.")
    return redirect(_back(window.reservation))


def _window(request: HttpRequest, pk: int) -> MaintenanceWindow:
    org = active_org(request)
    try:
        window = MaintenanceWindow.objects.only("reservation_id").get(pk=pk)
    except MaintenanceWindow.DoesNotExist:
        raise Http404 from None
    reservation = res_sel.reservation_get(org_ids=[org.pk] if org else [], pk=window.reservation_id)
    return selectors.maintenance_get(reservation=reservation, pk=pk)


def _report_or_404(request: HttpRequest, pk: int) -> tuple[Reservation, Any]:
    reservation = _reservation(request, pk)
    report = selectors.delivery_for(reservation=reservation).report
    if report is None:
        raise Http404("The term starts when the buyer accepts; there is nothing to download yet.")
    return reservation, report


@org_required()
@require_GET
def availability_csv(request: HttpRequest, pk: int) -> HttpResponse:
    reservation, report = _report_or_404(request, pk)
    response = HttpResponse(exports.availability_csv(report), content_type=exports.CSV_TYPE)
    name = exports.filename(reservation.request.title, "csv")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@org_required()
@require_GET
def availability_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    reservation, report = _report_or_404(request, pk)
    response = HttpResponse(exports.availability_xlsx(report), content_type=exports.XLSX_TYPE)
    name = exports.filename(reservation.request.title, "xlsx")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
