"""A bid's files: attach (the provider), leave out of the next revision, download."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors, services
from bids.forms import AttachmentForm
from bids.models import BidAttachment
from core.filetypes import safe_filename
from core.web import flash_errors, flashed_or_onto_form
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind


@org_required(OrgKind.PROVIDER)
def attachment_upload(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the form alone; POST: attach, back to the bid. A refused file shows the form again
    with the reason and the description typed."""
    bid = selectors.bid_get_for_provider(org=active_org(request), pk=pk)
    form = AttachmentForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            attachment = services.bid_attachment_add(
                bid=bid,
                user=user_of(request),
                upload=form.cleaned_data["file"],
                description=form.cleaned_data["description"],
            )
        except ValidationError as exc:
            if flashed_or_onto_form(request, form, exc):
                return redirect("bids:bid-detail", pk=bid.pk)
        else:
            messages.success(
                request,
                f"{attachment.original_name} attached. It goes to the buyer with your next submit.",
            )
            return redirect("bids:bid-detail", pk=bid.pk)
    status = 400 if form.is_bound else 200
    return render(
        request, "bids/attachment_form.html", {"bid": bid, "attachment_form": form}, status=status
    )


@org_required(OrgKind.PROVIDER)
@require_POST
def attachment_remove(request: HttpRequest, pk: int, attachment: int) -> HttpResponse:
    org = active_org(request)
    selectors.bid_get_for_provider(org=org, pk=pk)
    row = selectors.attachment_get_for_org(org=org, bid_pk=pk, pk=attachment)
    try:
        services.bid_attachment_remove(attachment=row, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"{row.original_name} is left out of the next revision.")
    return redirect("bids:bid-detail", pk=pk)


def attachment_response(attachment: BidAttachment) -> FileResponse:
    return FileResponse(
        attachment.file.open("rb"),
        as_attachment=True,
        filename=safe_filename(attachment.original_name, BidAttachment.FALLBACK_NAME),
        content_type=attachment.content_type or "application/octet-stream",
    )


@org_required()
def attachment_download(request: HttpRequest, pk: int, attachment: int) -> FileResponse:
    row = get_for_acting_org(
        request, lambda o: selectors.attachment_get_for_org(org=o, bid_pk=pk, pk=attachment)
    )
    return attachment_response(row)
