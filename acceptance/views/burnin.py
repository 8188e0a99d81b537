"""Reservation, burn-in run and evidence pages. Thin: selectors read, services write."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from acceptance.forms.burnin import (
    DeclineOverrideForm,
    EvidenceUploadForm,
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
from core.web import errors_into_form, flash_errors, flashed_or_onto_form
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind

#: The views a run's evidence table links to (`_evidence_table.html`, `_checks.html`).
EVIDENCE_URLS = {
    "download": "burnin:evidence-download",
    "retry": "burnin:evidence-retry",
    "withdraw": "burnin:evidence-withdraw",
}


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


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
    reservation = sel.reservation_get(org_ids=_org_ids(request), pk=pk)
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
    reservation = sel.reservation_get(org_ids=_org_ids(request), pk=pk)
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
    reservation = sel.reservation_get(org_ids=_org_ids(request), pk=pk)
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
        "upload_form": forms.get("upload_form") or EvidenceUploadForm(),
        "override_form": forms.get("override_form") or OverrideRequestForm(blocking=blocking),
        "decision": getattr(reservation, "decision", None),
        "max_bytes": settings.EVIDENCE_MAX_BYTES,
        "evidence_urls": EVIDENCE_URLS,
        "can_change": reservation.is_pending,
    }
    return render(request, "acceptance/burnin/run_detail.html", context)


@org_required()
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return run_page(request, sel.run_get(org_ids=_org_ids(request), pk=pk))


@org_required()
@require_GET
def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.run_get(org_ids=_org_ids(request), pk=pk)
    return JsonResponse(sel.run_status(run=run))


@org_required()
@require_POST
def run_upload(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.run_get(org_ids=_org_ids(request), pk=pk)
    form = EvidenceUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return run_page(request, run, upload_form=form)
    stored, refused = 0, 0
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
            refused += 1
            if hasattr(exc, "error_dict") and "node" in exc.error_dict:
                errors_into_form(form, exc)
                return run_page(request, run, upload_form=form)
            for message in exc.messages:
                messages.error(request, message)
            continue
        if result.duplicate:
            messages.warning(
                request,
                f"{upload.name} is already uploaded as {result.evidence.original_name} "
                f"(SHA-256 {result.evidence.sha256[:12]}…); it was not stored twice.",
            )
        else:
            stored += 1
    if stored:
        messages.success(
            request, f"Stored {stored} file{'s' if stored != 1 else ''}; parsing has started."
        )
    return redirect("burnin:run-detail", pk=run.pk)


@org_required()
@require_POST
def run_recheck(request: HttpRequest, pk: int) -> HttpResponse:
    run = sel.run_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.run_request_recheck(run=run, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, "The checks are running again.")
    return redirect("burnin:run-detail", pk=run.pk)


@org_required(OrgKind.BUYER)
@require_POST
def run_accept(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept on this run's passing gate (a failing one goes through `override.run_override`)."""
    run = sel.run_get(org_ids=_org_ids(request), pk=pk)
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


# Lines shown either side of the one a check points at (the whole file stays downloadable).
LINES_AROUND = 150


@login_required
@require_GET
def evidence_download(request: HttpRequest, pk: int) -> HttpResponseBase:
    """The stored file as uploaded; with ?line=N, the lines around N as a page to read."""
    # Same rule as org_required (signed in, an active organisation), typed for a streamed file.
    if active_org(request) is None:
        raise Http404
    evidence = sel.evidence_get(org_ids=_org_ids(request), pk=pk)
    return evidence_file(
        request,
        evidence,
        back_url=reverse("burnin:run-detail", args=[evidence.run_id]),
        download_url=reverse("burnin:evidence-download", args=[evidence.pk]),
    )


def evidence_file(
    request: HttpRequest, evidence: Evidence, *, back_url: str, download_url: str
) -> HttpResponseBase:
    """The stored file as uploaded; with ?line=N, the lines around N as a page to read (the
    caller has checked the user may read it)."""
    line = request.GET.get("line", "")
    if line.isdigit() and int(line) > 0:
        with evidence.file.open("rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        target = int(line)
        first = max(1, target - LINES_AROUND)
        window = text.split("\n")[first - 1 : target + LINES_AROUND]
        return render(
            request,
            "acceptance/burnin/evidence_lines.html",
            {
                "evidence": evidence,
                "target": target,
                "lines": [(first + i, t.rstrip("\r")) for i, t in enumerate(window)],
                "back_url": back_url,
                "download_url": download_url,
            },
        )
    return FileResponse(
        evidence.file.open("rb"),
        as_attachment=True,
        filename=evidence.original_name,
        content_type="text/plain; charset=utf-8",
    )


@org_required()
@require_POST
def evidence_retry(request: HttpRequest, pk: int) -> HttpResponse:
    evidence = sel.evidence_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.evidence_retry(evidence=evidence, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{evidence.original_name} is queued for parsing again.")
    return redirect("burnin:run-detail", pk=evidence.run_id)


@org_required()
@require_POST
def evidence_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    evidence = sel.evidence_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.evidence_withdraw(evidence=evidence, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request, f"{evidence.original_name} is withdrawn: still stored, no longer checked."
        )
    return redirect("burnin:run-detail", pk=evidence.run_id)
