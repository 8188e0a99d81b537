"""The reservation's Inference page: upload served responses, and read each file's figures
against the offer's promise. Thin: services write, selectors read."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from acceptance.models import Reservation
from acceptance.selectors import burnin as res_sel
from core.web import errors_into_form, flash_errors
from inference import selectors as sel
from inference import services
from inference.forms import ServedUploadForm
from inference.lifecycle import served_decision
from inference.models import ServedResponsesFile
from orgs.access import active_org, org_required, user_of

FILES_PAGE = 20


def _reservation(request: HttpRequest, pk: int) -> Reservation:
    org = active_org(request)
    return res_sel.reservation_get(org_ids=[org.pk] if org else [], pk=pk)


def _file(request: HttpRequest, pk: int) -> ServedResponsesFile:
    try:
        reservation_id = ServedResponsesFile.objects.values_list("reservation_id", flat=True).get(
            pk=pk
        )
    except ServedResponsesFile.DoesNotExist:
        raise Http404 from None
    reservation = _reservation(request, reservation_id)
    return sel.served_file_get(reservation=reservation, pk=pk)


@org_required()
@require_http_methods(["GET", "POST"])
def served_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The promise, the latest reading against it, every file and the form to add one."""
    reservation = _reservation(request, pk)
    form, status = ServedUploadForm(), 200
    if request.method == "POST":
        form = ServedUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                row, duplicate = services.served_upload(
                    reservation=reservation,
                    user=user_of(request),
                    upload=form.cleaned_data["file"],
                    label=form.cleaned_data["label"],
                )
            except ValidationError as exc:
                errors_into_form(form, exc)
                status = 400
            else:
                messages.success(
                    request,
                    f"{row.original_name} was already stored; its reading is below."
                    if duplicate
                    else f"Stored {row.original_name}; reading it against the promise.",
                )
                return redirect("inference:served-detail", pk=row.pk)
        else:
            status = 400
    files = sel.served_files(reservation=reservation)
    context = {
        "reservation": reservation,
        "form": form,
        "page": Paginator(files, FILES_PAGE).get_page(request.GET.get("page")),
        "latest": sel.latest_read(reservation=reservation),
        "promised": sel.promises_inference(reservation.bid_revision),
        "decision": served_decision(reservation, "served_upload", user=request.user),
    }
    return render(request, "inference/served_list.html", context, status=status)


@org_required()
@require_GET
def served_detail(request: HttpRequest, pk: int) -> HttpResponse:
    row = _file(request, pk)
    context = {
        "reservation": row.reservation,
        "row": row,
        "retry": served_decision(row.reservation, "served_retry", user=request.user),
    }
    return render(request, "inference/served_detail.html", context)


@org_required()
@require_POST
def served_retry(request: HttpRequest, pk: int) -> HttpResponse:
    row = _file(request, pk)
    try:
        services.served_retry(row=row, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{row.original_name} is queued to be read again.")
    return redirect("inference:served-detail", pk=row.pk)
