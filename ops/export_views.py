"""The page where an organisation's administrators export its data ("Export our data", linked
from the members page), and the download of a finished archive."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.web import flash_errors
from ops import selectors, services
from orgs.access import active_org, org_required, user_of
from orgs.models import Organization
from orgs.selectors import is_member_admin


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


@org_required()
def export_page(request: HttpRequest) -> HttpResponse:
    """Every member reads why the page is not theirs; an administrator sees the exports made
    and starts one (POST)."""
    org = _org(request)
    user = user_of(request)
    if request.method == "POST":
        try:
            job = services.export_request(org=org, user=user)
        except PermissionDenied as exc:
            messages.error(request, str(exc))
            return _page(request, org, status=403)
        messages.success(
            request,
            f"Export #{job.pk} is being built. This page shows it when it is ready to download.",
        )
        return redirect("ops:export")
    return _page(request, org)


@org_required()
@require_POST
def export_retry(request: HttpRequest, pk: int) -> HttpResponse:
    org = _org(request)
    job = selectors.export_job_get(org=org, user=request.user, pk=pk)
    try:
        services.export_retry(job=job, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Export #{job.pk} is being built again.")
    return redirect("ops:export")


@org_required()
def export_download(request: HttpRequest, pk: int) -> FileResponse:
    job = selectors.export_job_get(org=active_org(request), user=request.user, pk=pk)
    if not job.file:
        raise Http404  # not built yet (or failed): the page says which
    return FileResponse(
        job.file.open("rb"),
        as_attachment=True,
        filename=f"{job.organization.slug}-export-{job.pk}.zip",
        content_type="application/zip",
    )


def _page(request: HttpRequest, org: Organization, *, status: int = 200) -> HttpResponse:
    is_admin = is_member_admin(org=org, user=request.user)
    jobs = list(selectors.export_jobs_for_org(org=org)) if is_admin else []
    context = {
        "org": org,
        "is_admin": is_admin,
        "jobs": jobs,
        "refresh": any(job.in_progress for job in jobs),
        "refusal": services.export_refusal(org),
    }
    return render(request, "ops/export.html", context, status=status)
