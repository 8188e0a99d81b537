"""Planned-change pages: the provider's announcement form, the change page both parties read
(the canary's verdict, its checks beside the accepted burn-in's, its files), the canary's
evidence moves (the provider's) and the buyer's answer. Thin: `delivery.changes` and the burn-in
services write, `delivery.change_selectors` reads (the reservation's two parties alone)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from acceptance.canary_lifecycle import canary_decisions
from acceptance.models import BurnInRun, Reservation
from acceptance.selectors import burnin as res_sel
from acceptance.selectors.canary import canary_evidence_get, canary_run
from acceptance.views.evidence import RunOwner, page_context
from core.web import errors_into_form, flash_errors
from delivery import change_selectors as sel
from delivery.changes import change_announce, change_answer
from delivery.forms import ChangeAnswerForm, PlannedChangeForm
from delivery.lifecycle import ANNOUNCING, change_decisions
from delivery.models import MaintenanceWindow, PlannedChange
from incidents.lifecycle import reservation_actor
from orgs.access import active_org, get_for_acting_org, org_required, user_of


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


def _change(request: HttpRequest, pk: int) -> PlannedChange:
    return sel.change_get(org_ids=_org_ids(request), pk=pk)


def _windows(reservation: Reservation) -> Any:
    return MaintenanceWindow.objects.filter(
        reservation=reservation, starts_at__gt=timezone.now()
    ).order_by("starts_at", "pk")


@org_required()
@require_http_methods(["GET", "POST"])
def change_new(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the form. POST: announce; field errors come back with what was typed; a refusal by
    party, role or state is flashed on the reservation page."""
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    back = reverse("burnin:reservation-detail", args=[reservation.pk]) + "#delivery"
    decision = ANNOUNCING.decide(
        reservation, "announce_change", actor=reservation_actor(reservation, request.user)
    )
    form = PlannedChangeForm(request.POST or None, windows=_windows(reservation))
    if request.method == "POST" and not decision.allowed:
        messages.error(request, decision.reason)
        return redirect(back)
    if request.method == "POST" and form.is_valid():
        try:
            change = change_announce(
                reservation=reservation, user=user_of(request), **form.cleaned_data
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Announced. Upload the canary's evidence before the window.")
            return redirect("delivery:change-detail", pk=change.pk)
    context = {"reservation": reservation, "form": form, "decision": decision, "back": back}
    return render(request, "delivery/change_new.html", context)


def _page(request: HttpRequest, change: PlannedChange, **forms: Any) -> HttpResponse:
    """The change page; `forms` are the upload or answer form as typed, after an error."""
    view = sel.change_view(change=change)
    user = request.user
    moves = change_decisions(change, user=user)
    evidence_move = canary_decisions(change.canary, user=user)["evidence"]
    context = {
        "change": change,
        "view": view,
        "run": view.run,
        "evidence": view.evidence,
        "groups": view.groups,
        "status": view.status,
        "moves": moves,
        "can_change": evidence_move.allowed,
        "closed_reason": evidence_move.reason,
        "is_provider": "provider" in reservation_actor(change.reservation, user).roles,
        "answer_form": forms.get("answer_form") or ChangeAnswerForm(),
        "run_noun": "canary",
        **page_context(CANARY_OWNER, view.run, **forms),
    }
    return render(request, "delivery/change_detail.html", context)


@org_required()
@require_GET
def change_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # A member of both parties' organisations is switched to the one the change is for.
    change = get_for_acting_org(
        request, lambda org: sel.change_get(org_ids=[org.pk] if org else [], pk=pk)
    )
    return _page(request, change)


@org_required()
@require_POST
def change_answer_view(request: HttpRequest, pk: int) -> HttpResponse:
    change = _change(request, pk)
    form = ChangeAnswerForm(request.POST)
    if not form.is_valid():
        return _page(request, change, answer_form=form)
    accept = form.cleaned_data["decision"] == "accept"
    try:
        change_answer(
            change=change, user=user_of(request), accept=accept,
            reason=form.cleaned_data["reason"],
        )  # fmt: skip
    except ValidationError as exc:
        if hasattr(exc, "error_dict") and "reason" in exc.error_dict:
            errors_into_form(form, exc)
            return _page(request, change, answer_form=form)
        flash_errors(request, exc)
    else:
        messages.success(request, "Accepted." if accept else "Your objection is on the record.")
    return redirect("delivery:change-detail", pk=change.pk)


def _change_pk(run: BurnInRun) -> int:
    return PlannedChange.objects.values_list("pk", flat=True).get(canary__run=run)


# The canary's evidence moves are the burn-in run's views (acceptance.views.evidence), told
# how a canary's run and files are found (the reservation's two parties alone) and that its
# page is the change's. Who may upload, retry or withdraw is the burn-in services' rule, which
# asks the canary's lifecycle: the provider's team, until the window opens.
CANARY_OWNER = RunOwner(
    urls={
        "page": "delivery:change-detail",
        "upload": "delivery:canary-upload",
        "status": "delivery:change-status",
        "download": "delivery:canary-evidence-download",
        "retry": "delivery:canary-evidence-retry",
        "withdraw": "delivery:canary-evidence-withdraw",
    },
    run_get=lambda ids, pk: canary_run(sel.change_get(org_ids=ids, pk=pk).canary),
    evidence_get=lambda ids, pk: canary_evidence_get(org_ids=ids, pk=pk),
    page_pk=_change_pk,
    page=lambda request, run, **forms: _page(request, _change(request, _change_pk(run)), **forms),
)
