"""The reservation's Observed page, its uploads and the buyer's result. Thin: selectors read,
services write."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from acceptance.selectors import burnin as res_sel
from core.errors import QueueUnavailable
from core.web import errors_into_form
from observed import selectors as sel
from observed import services
from observed.charts import capacity_chart
from observed.forms import ObservedUploadForm, ResultForm
from observed.lifecycle import observed_decision
from orgs.access import active_org, org_required, user_of


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


@org_required()
@require_http_methods(["GET", "POST"])
def observed_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The four capacities, start receipts, reclaims, misses and cost; the uploads below."""
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    form, status = ObservedUploadForm(), 200
    if request.method == "POST":
        form = ObservedUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                row = services.observed_upload(
                    reservation=reservation, user=user_of(request),
                    upload=form.cleaned_data["file"], kind=form.cleaned_data["kind"],
                )  # fmt: skip
            except ValidationError as exc:
                errors_into_form(form, exc)
                status = 400
            except QueueUnavailable as exc:
                exc.next_url = reverse("observed:page", args=[pk])  # type: ignore[attr-defined]
                raise
            else:
                messages.success(request, f"Stored {row.original_name}; reading it.")
                return redirect("observed:page", pk=pk)
        else:
            status = 400
    report = sel.observed_report(reservation=reservation)
    definition = report.definition
    initial = (
        {"unit": definition.unit, "expected_per_gpu_hour": definition.expected_per_gpu_hour}
        if definition
        else {}
    )
    page = Paginator(sel.uploads_for(reservation=reservation), 25).get_page(request.GET.get("page"))
    context = {
        "reservation": reservation,
        "report": report,
        "chart": capacity_chart(report),
        "form": form,
        "result_form": ResultForm(initial=initial),
        "page": page,
        "upload_move": observed_decision(reservation, "observed_upload", user=request.user),
        "result_move": observed_decision(reservation, "observed_result", user=request.user),
    }
    return render(request, "observed/page.html", context, status=status)


@org_required()
@require_POST
def result_define(request: HttpRequest, pk: int) -> HttpResponse:
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    form = ResultForm(request.POST)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{form.fields[field].label}: {' '.join(map(str, errors))}")
        return redirect("observed:page", pk=pk)
    try:
        services.result_define(
            reservation=reservation, user=user_of(request), unit=form.cleaned_data["unit"],
            expected_per_gpu_hour=form.cleaned_data["expected_per_gpu_hour"],
        )  # fmt: skip
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, "The result is named; the cost below is counted in it.")
    return redirect("observed:page", pk=pk)


@org_required()
@require_POST
def upload_retry(request: HttpRequest, pk: int) -> HttpResponse:
    upload = sel.upload_get(org_ids=_org_ids(request), pk=pk)
    try:
        services.observed_retry(upload=upload, user=user_of(request))
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    except QueueUnavailable as exc:
        exc.next_url = reverse("observed:page", args=[upload.reservation_id])  # type: ignore[attr-defined]
        raise
    else:
        messages.success(request, f"Reading {upload.original_name} again.")
    return redirect("observed:page", pk=upload.reservation_id)


@org_required()
@require_GET
def upload_file(request: HttpRequest, pk: int) -> FileResponse:
    upload = sel.upload_get(org_ids=_org_ids(request), pk=pk)
    return FileResponse(
        upload.file.open("rb"), as_attachment=True, filename=upload.original_name,
        content_type="application/octet-stream",
    )  # fmt: skip
