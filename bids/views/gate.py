"""The request's gate: the buyer sets it on a draft; an invited provider reads it (the NDA's
text and file are what it accepts, so they are open before the details) and its
administrator accepts it."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import gate_selectors, selectors, services
from bids.gate_forms import GateForm
from bids.models import CapacityRequest, DetailsGate
from core.filetypes import safe_filename
from core.web import errors_into_form, flash_errors
from orgs.access import active_org, get_for_acting_org, org_required, user_of
from orgs.choices import OrgKind
from orgs.models import Organization
from suppliers import selectors as supplier_selectors


@org_required(OrgKind.BUYER)
def gate_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    gate = gate_selectors.gate_for(capacity_request=req)
    form = GateForm.for_gate(gate, request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved = services.gate_set(
                capacity_request=req,
                user=user_of(request),
                nda_text=data["nda_text"],
                nda_file=data["nda_file"],
                remove_file=data["remove_file"],
                required_documents=list(data["required_documents"]),
            )
        except ValidationError as exc:
            if not hasattr(exc, "error_dict"):
                flash_errors(request, exc)
                return redirect("bids:request-detail", pk=pk)
            errors_into_form(form, exc)
        else:
            messages.success(
                request,
                "Invitees accept these terms before the details open."
                if saved
                else "The request has no gate: its details open to every invitee.",
            )
            return redirect("bids:request-detail", pk=pk)
    return render(request, "bids/gate_form.html", {"req": req, "gate": gate, "form": form})


def gated_page(request: HttpRequest, req: CapacityRequest, org: Organization) -> HttpResponse:
    """What an invitee sees of a gated request: its title, its buyer and the gate."""
    gate = gate_selectors.gate_for(capacity_request=req)
    assert gate is not None
    missing = supplier_selectors.missing_documents(org=org, wanted=gate.required_documents)
    return render(
        request,
        "bids/request_gated.html",
        {
            "req": req,
            "gate": gate,
            "required": gate.required_labels,
            "missing": missing,
        },
    )


@org_required(OrgKind.PROVIDER)
@require_POST
def gate_accept(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    assert org is not None
    req = selectors.request_title_for_org(org=org, pk=pk)
    try:
        services.gate_accept(capacity_request=req, provider=org, user=user_of(request))
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"Accepted for {org.name}: the request's details are open.")
    return redirect("bids:request-detail", pk=pk)


@org_required()
def gate_nda(request: HttpRequest, pk: int) -> FileResponse:
    """The NDA's file, for the buyer and every invitee: it is what they are asked to accept."""
    req = get_for_acting_org(request, lambda o: selectors.request_title_for_org(org=o, pk=pk))
    gate: DetailsGate | None = gate_selectors.gate_for(capacity_request=req)
    if gate is None or not gate.file:
        raise Http404
    return FileResponse(
        gate.file.open("rb"),
        as_attachment=True,
        filename=safe_filename(gate.original_name, DetailsGate.FALLBACK_NAME),
        content_type=gate.content_type or "application/octet-stream",
    )
