from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from acceptance.models import Reservation
from annexes import selectors
from annexes.document.diff import in_annex_order, snapshot_diff
from annexes.document.present import document_for
from annexes.document.render import render_html
from annexes.models import Annex, AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request, annex_retry
from bids.models import CapacityRequest
from core.web import flash_errors
from orgs.access import active_org, org_required, user_of


@org_required()
def annex_list(request: HttpRequest, pk: int) -> HttpResponse:
    req, access = selectors.annex_request_for_org(org=active_org(request), pk=pk)
    annexes = list(selectors.annex_list(capacity_request=req, kinds=access))
    jobs = list(selectors.annex_jobs(capacity_request=req, kinds=access))
    sections = [
        _section(req, kind, reservation, annexes=annexes, jobs=jobs)
        for kind, reservation in access.scopes()
    ]
    return render(
        request,
        "annexes/list.html",
        {"req": req, "sections": sections, "busy": any(j.in_progress for j in jobs)},
    )


def _section(
    req: CapacityRequest,
    kind: str,
    reservation: Reservation | None,
    *,
    annexes: list[Annex],
    jobs: list[AnnexJob],
) -> dict[str, Any]:
    """One annex's section: its versions, its latest job, what blocks or changed. On a split
    award a contract annex and statements are each reservation's own."""
    rid = reservation.pk if reservation is not None else None
    issued = [a for a in annexes if a.kind == kind and a.reservation_id == rid]
    return {
        "kind": kind,
        "anchor": f"{kind}-{rid}" if rid else kind,
        "reservation": reservation,
        "label": AnnexKind(kind).label,
        "annexes": issued,
        "job": next((j for j in jobs if j.kind == kind and j.reservation_id == rid), None),
        "blocker": selectors.annex_blocker(
            capacity_request=req, kind=kind, reservation=reservation
        ),
        "conflicts": selectors.annex_conflicts(
            capacity_request=req, kind=kind, reservation=reservation
        ),
        "periods": selectors.statement_periods(capacity_request=req, reservation=reservation)
        if kind == AnnexKind.STATEMENT
        else selectors.outcome_periods_for(capacity_request=req, reservation=reservation)
        if kind == AnnexKind.OUTCOME
        else [],
        "stale": bool(issued)
        and selectors.annex_sources_changed(capacity_request=req, kind=kind, latest=issued[0]),
    }


@org_required()
def annex_status(request: HttpRequest, pk: int) -> JsonResponse:
    req, kinds = selectors.annex_request_for_org(org=active_org(request), pk=pk)
    jobs = selectors.annex_jobs(capacity_request=req, kinds=kinds)
    return JsonResponse(
        {
            "jobs": [
                {
                    "id": j.pk,
                    "kind": j.kind,
                    "status": j.status,
                    "error": j.error,
                    "version": j.annex.version if j.annex else None,
                }
                for j in jobs
            ],
            "busy": any(j.in_progress for j in jobs),
        }
    )


@org_required()
@require_POST
def annex_generate(request: HttpRequest, pk: int) -> HttpResponse:
    req, kinds = selectors.annex_request_for_org(org=active_org(request), pk=pk)
    kind = request.POST.get("kind", AnnexKind.CONTRACT)
    if kind not in kinds:
        raise Http404
    try:
        reservation = selectors.annex_reservation_for(
            access=kinds, kind=kind, reservation_id=request.POST.get("reservation")
        )
        dated = kind in (AnnexKind.STATEMENT, AnnexKind.OUTCOME)
        period = request.POST.get("period", "")[:7] if dated else ""
        job = annex_request(
            capacity_request=req,
            kind=kind,
            user=user_of(request),
            period=period,
            reservation=reservation,
        )
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        job.refresh_from_db()  # with in-process tasks the render has already finished
        if job.status == AnnexJobStatus.QUEUED or job.status == AnnexJobStatus.RENDERING:
            messages.success(
                request, "Rendering the PDF. This page updates itself when it is ready."
            )
        elif job.status == AnnexJobStatus.DONE and job.annex is not None and not job.reused:
            messages.success(request, f"Version {job.annex.version} is issued: download it below.")
    return redirect("annexes:list", pk=pk)


@org_required()
@require_POST
def annex_job_retry(request: HttpRequest, pk: int) -> HttpResponse:
    job = selectors.annex_job_for_org(org=active_org(request), pk=pk)
    try:
        annex_retry(job=job, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    return redirect("annexes:list", pk=job.request_id)


@org_required()
def annex_download(request: HttpRequest, pk: int) -> FileResponse:
    annex = selectors.annex_get_for_org(org=active_org(request), pk=pk)
    return FileResponse(
        annex.pdf.open("rb"),
        as_attachment=True,
        filename=annex.filename,
        content_type="application/pdf",
    )


@org_required()
def annex_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """The same template the PDF is rendered from, in the browser."""
    annex = selectors.annex_get_for_org(org=active_org(request), pk=pk)
    document = document_for(annex.snapshot, sha256=annex.snapshot_sha256, version=annex.version)
    links = {
        "pdf": reverse("annexes:download", args=[annex.pk]),
        "list": reverse("annexes:list", args=[annex.request_id]),
    }
    return HttpResponse(render_html(document, preview=True, links=links))


@org_required()
def annex_diff(request: HttpRequest, pk: int) -> HttpResponse:
    req, kinds = selectors.annex_request_for_org(org=active_org(request), pk=pk)
    annexes = {a.pk: a for a in selectors.annex_list(capacity_request=req, kinds=kinds).defer(None)}
    try:
        old = annexes[int(request.GET.get("from", ""))]
        new = annexes[int(request.GET.get("to", ""))]
    except (KeyError, ValueError):
        messages.error(request, "Choose two versions of the same annex to compare.")
        return redirect("annexes:list", pk=pk)
    if (old.kind, old.period, old.reservation_id) != (new.kind, new.period, new.reservation_id):
        messages.error(request, "Only versions of the same annex can be compared.")
        return redirect("annexes:list", pk=pk)
    changes = in_annex_order(snapshot_diff(old.snapshot, new.snapshot))
    return render(
        request,
        "annexes/diff.html",
        {
            "req": req,
            "old": old,
            "new": new,
            "changes": changes,
            "back": reverse("annexes:list", args=[pk]),
        },
    )
