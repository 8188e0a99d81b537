"""Pilot pages: the list, one pilot with its figures, evidence and checks, and the evidence
moves. Thin: the pilot selectors read (the buyer and the invited provider alone), the burn-in
services write. The invitation is made from the comparison page (evaluation)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from acceptance.forms.burnin import EvidenceUploadForm
from acceptance.models import Pilot
from acceptance.pilot_lifecycle import PilotCase, pilot_decisions
from acceptance.selectors import burnin as burnin_sel
from acceptance.selectors import pilot as sel
from acceptance.services import burnin as services
from acceptance.views.burnin import evidence_file
from bids.models import BidRevision
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, get_for_acting_org, org_required, user_of

EVIDENCE_URLS = {
    "download": "pilots:evidence-download",
    "retry": "pilots:evidence-retry",
    "withdraw": "pilots:evidence-withdraw",
}
PAGE_SIZE = 25


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


@org_required()
@require_GET
def pilot_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(sel.pilot_list(org_ids=_org_ids(request)), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "acceptance/pilot/list.html", {"page": page})


def pilot_page(request: HttpRequest, pilot: Pilot, **forms: Any) -> HttpResponse:
    run = sel.pilot_run(pilot)
    org = active_org(request)
    moves = pilot_decisions(PilotCase(pilot.bid, pilot), user=request.user)
    revision = BidRevision.objects.filter(
        bid=pilot.bid, number=pilot.bid.latest_revision_number
    ).first()
    evidence = list(burnin_sel.evidence_list(run=run))
    context = {
        "pilot": pilot,
        "run": run,
        "is_buyer": sel.is_buyer_of_pilot(pilot, org.pk if org else None),
        "figures": sel.figure_rows(
            pilot, revision, evidence, sel.acknowledged_floors([pilot.bid_id]).get(pilot.bid_id)
        ),
        "evidence": evidence,
        "groups": burnin_sel.check_groups(run=run),
        "upload_form": forms.get("upload_form") or EvidenceUploadForm(),
        "max_bytes": settings.EVIDENCE_MAX_BYTES,
        "evidence_urls": EVIDENCE_URLS,
        "status": burnin_sel.run_status(run=run, evidence=evidence),
        "can_change": moves["evidence"].allowed,
        "closed_reason": "" if moves["evidence"].allowed else moves["evidence"].reason,
    }
    return render(request, "acceptance/pilot/detail.html", context)


@org_required()
@require_GET
def pilot_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # A member of both parties' organisations is switched to the one the pilot is for.
    pilot = get_for_acting_org(
        request, lambda org: sel.pilot_get(org_ids=[org.pk] if org else [], pk=pk)
    )
    return pilot_page(request, pilot)


@org_required()
@require_GET
def pilot_status(request: HttpRequest, pk: int) -> HttpResponse:
    """What the pilot page polls while a file is queued or parsing, as a burn-in run's does."""
    pilot = sel.pilot_get(org_ids=_org_ids(request), pk=pk)
    return JsonResponse(burnin_sel.run_status(run=sel.pilot_run(pilot)))


@org_required()
@require_POST
def pilot_upload(request: HttpRequest, pk: int) -> HttpResponse:
    pilot = sel.pilot_get(org_ids=_org_ids(request), pk=pk)
    run = sel.pilot_run(pilot)
    form = EvidenceUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return pilot_page(request, pilot, upload_form=form)
    stored = 0
    for upload in form.cleaned_data["file"]:
        try:
            result = services.evidence_upload(
                run=run,
                user=user_of(request),
                upload=upload,
                node=form.cleaned_data["node"],
                kind=form.cleaned_data["kind"] or None,
            )
        except ValidationError as exc:
            if hasattr(exc, "error_dict") and "node" in exc.error_dict:
                errors_into_form(form, exc)
                return pilot_page(request, pilot, upload_form=form)
            for message in exc.messages:
                messages.error(request, f"{upload.name}: {message}")
            continue
        if result.duplicate:
            messages.warning(
                request, f"{upload.name} is already uploaded; it was not stored twice."
            )
        else:
            stored += 1
    if stored:
        messages.success(
            request, f"Stored {stored} file{'s' if stored != 1 else ''}; parsing has started."
        )
    return redirect("pilots:detail", pk=pilot.pk)


@org_required()
@require_POST
def pilot_recheck(request: HttpRequest, pk: int) -> HttpResponse:
    pilot = sel.pilot_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.run_request_recheck(run=sel.pilot_run(pilot), user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "The checks are running again.")
    return redirect("pilots:detail", pk=pilot.pk)


@login_required
@require_GET
def evidence_download(request: HttpRequest, pk: int) -> HttpResponseBase:
    if active_org(request) is None:
        raise Http404
    evidence = sel.pilot_evidence_get(org_ids=_org_ids(request), pk=pk)
    assert evidence.run.pilot is not None  # the selector reads pilots' evidence only
    return evidence_file(
        request,
        evidence,
        back_url=reverse("pilots:detail", args=[evidence.run.pilot.pk]),
        download_url=reverse("pilots:evidence-download", args=[evidence.pk]),
    )


@org_required()
@require_POST
def evidence_retry(request: HttpRequest, pk: int) -> HttpResponse:
    evidence = sel.pilot_evidence_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.evidence_retry(evidence=evidence, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{evidence.original_name} is queued for parsing again.")
    assert evidence.run.pilot is not None
    return redirect("pilots:detail", pk=evidence.run.pilot.pk)


@org_required()
@require_POST
def evidence_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    evidence = sel.pilot_evidence_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.evidence_withdraw(evidence=evidence, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request, f"{evidence.original_name} is withdrawn: still stored, no longer checked."
        )
    assert evidence.run.pilot is not None
    return redirect("pilots:detail", pk=evidence.run.pilot.pk)
