"""Reservation, burn-in run and evidence pages. Thin: selectors read, services write."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from acceptance.forms.burnin import (
    DeclineOverrideForm,
    ExplainFindingForm,
    OverrideRequestForm,
    RejectForm,
    RunCreateForm,
)
from acceptance.lifecycle import case_for, reservation_decisions
from acceptance.models import BurnInRun, Evidence, Reservation
from acceptance.selectors import burnin as sel
from acceptance.selectors.findings import explanation_list, run_findings
from acceptance.selectors.override import blocking_checks, override_history
from acceptance.services import burnin as services
from acceptance.services import decision as decision_services
from acceptance.views.evidence import RunOwner, org_ids, page_context
from core.web import flash_errors, flashed_or_onto_form
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind


def _buyer_only(request: HttpRequest, reservation: Reservation) -> None:
    if not sel.is_buyer_of(reservation, active_org(request)):
        raise Http404


def reservation_page(request: HttpRequest, reservation: Reservation, **forms: Any) -> HttpResponse:
    case = case_for(reservation)
    context = {
        "reservation": reservation,
        "runs": sel.run_list(reservation=reservation),
        "is_buyer": sel.is_buyer_of(reservation, active_org(request)),
        "moves": reservation_decisions(case, user=request.user),
        "override": case.override,
        "overrides": override_history(reservation=reservation),
        "run_form": RunCreateForm(),
        "reject_form": forms.get("reject_form") or RejectForm(),
        "decline_form": forms.get("decline_form") or DeclineOverrideForm(),
        "now_dt": timezone.now(),
        "panel_forms": forms.get("panel_forms") or {},
    }
    return render(request, "acceptance/burnin/reservation_detail.html", context)


@org_required()
@require_GET
def reservation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # A member of two organisations who opens the other one's reservation (from a notice, a
    # bookmark) is switched to it, not shown a 404.
    reservation = get_for_acting_org(
        request, lambda org: sel.reservation_get(org_ids=[org.pk] if org else [], pk=pk)
    )
    return reservation_page(request, reservation)


@org_required()
@require_POST
def run_create(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = sel.reservation_get(org_ids=org_ids(request), pk=pk)
    form = RunCreateForm(request.POST)
    label = form.cleaned_data["label"] if form.is_valid() else ""
    try:
        run = services.run_create(reservation=reservation, user=user_of(request), label=label)
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("burnin:reservation-detail", pk=pk)
    return redirect("burnin:run-detail", pk=run.pk)


@org_required(OrgKind.BUYER)
@require_POST
def reservation_reject(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = sel.reservation_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, reservation)
    form = RejectForm(request.POST)
    if form.is_valid():
        try:
            decision_services.reservation_reject(
                reservation=reservation, user=user_of(request), reason=form.cleaned_data["reason"]
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("burnin:reservation-detail", pk=pk)
        else:
            messages.success(request, "Reservation rejected. The reason is recorded.")
            return redirect("burnin:reservation-detail", pk=pk)
    return reservation_page(request, reservation, reject_form=form)


@org_required()
@require_GET
def reservation_baseline(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = sel.reservation_get(org_ids=org_ids(request), pk=pk)
    baseline = getattr(reservation, "baseline", None)
    if baseline is None:
        raise Http404
    response = JsonResponse(baseline.snapshot, json_dumps_params={"indent": 2})
    response["Content-Disposition"] = (
        f'attachment; filename="reservation-{reservation.pk}-baseline.json"'
    )
    return response


def run_page(request: HttpRequest, run: BurnInRun, **forms: Any) -> HttpResponse:
    reservation = run.burnin_reservation
    evidence = list(sel.evidence_list(run=run))
    case = case_for(reservation, run)
    blocking = blocking_checks(run=run)
    context = {
        "run": run,
        "reservation": reservation,
        "is_buyer": sel.is_buyer_of(reservation, active_org(request)),
        "moves": reservation_decisions(case, user=request.user),
        "override": case.override,
        "blocking": blocking,
        "evidence": evidence,
        "findings": run_findings(run=run, evidence=evidence),
        "explanations": explanation_list(run=run),
        "explain_form": forms.get("explain_form") or ExplainFindingForm(),
        "groups": sel.check_groups(run=run),
        "status": sel.run_status(run=run, evidence=evidence),
        "charts": sel.run_charts(run=run),
        "override_form": forms.get("override_form") or OverrideRequestForm(blocking=blocking),
        "decision": getattr(reservation, "decision", None),
        "can_change": reservation.is_pending,
        **page_context(OWNER, run, **forms),
    }
    return render(request, "acceptance/burnin/run_detail.html", context)


def _run_get(ids: list[int], pk: int) -> BurnInRun:
    return sel.run_get(org_ids=ids, pk=pk)


def _evidence_get(ids: list[int], pk: int) -> Evidence:
    return sel.evidence_get(org_ids=ids, pk=pk)


#: A reservation's burn-in run: its page and evidence URLs take the run's pk.
OWNER = RunOwner(
    urls=RunOwner.url_names("burnin", page="run-detail", run_prefix="run-"),
    run_get=_run_get,
    evidence_get=_evidence_get,
    page_pk=lambda run: run.pk,
    page=run_page,
)


@org_required()
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return run_page(request, sel.run_get(org_ids=org_ids(request), pk=pk))


@org_required(OrgKind.BUYER)
@require_POST
def run_accept(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept on this run's passing gate (a failing one goes through `override.run_override`)."""
    run = sel.run_get(org_ids=org_ids(request), pk=pk)
    _buyer_only(request, run.burnin_reservation)
    try:
        decision_services.reservation_accept(
            reservation=run.burnin_reservation, run=run, user=user_of(request)
        )
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("burnin:run-detail", pk=run.pk)
    reservation = Reservation.objects.get(pk=run.burnin_reservation.pk)
    messages.success(
        request,
        f"Accepted. The reservation clock starts {reservation.clock_starts_at:%-d %b %Y %H:%M %Z}"
        "; this run is the hand-over baseline.",
    )
    return redirect("burnin:reservation-detail", pk=run.burnin_reservation.pk)
