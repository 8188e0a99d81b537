"""Usage reconciliation pages. Thin: selectors read, services write."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from acceptance.selectors import burnin as res_sel
from billing import bills, services
from billing import selectors as sel
from billing.bills import BILL_FIELDS
from billing.exports import differences_response, focus_response
from billing.forms import UsageBillForm, UsageMappingForm, UsageUploadForm
from billing.lifecycle import usage_decision, usage_party
from billing.models import MappingScope, UsageState, UsageUpload
from core.errors import QueueUnavailable
from core.web import errors_into_form
from engine.billing import FIELDS, RULES, Mapping
from orgs.access import active_org, org_required, user_of

DIFFERENCES_PAGE = 50


def _org_ids(request: HttpRequest) -> list[int]:
    org = active_org(request)
    return [org.pk] if org is not None else []


def _upload(request: HttpRequest, pk: int) -> UsageUpload:
    return sel.usage_upload_get(org_ids=_org_ids(request), pk=pk)


@org_required()
@require_http_methods(["GET", "POST"])
def usage_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The reservation's uploads, newest first, and the form to add one."""
    reservation = res_sel.reservation_get(org_ids=_org_ids(request), pk=pk)
    form, status = UsageUploadForm(), 200
    if request.method == "POST":
        form = UsageUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                row = services.usage_upload(
                    reservation=reservation, user=user_of(request), upload=form.cleaned_data["file"]
                )
            except services.UsageRefused as exc:
                # Stored with its error (listed below), and refused: the form says why.
                form.add_error("file", exc.summary)
                status = 400
            except ValidationError as exc:
                errors_into_form(form, exc)
            else:
                messages.success(request, f"Stored {row.original_name}.")
                if row.state == UsageState.MAPPING:
                    return redirect("billing:usage-mapping", pk=row.pk)
                return redirect("billing:usage-detail", pk=row.pk)
    page = Paginator(sel.usage_uploads(reservation=reservation), 25).get_page(
        request.GET.get("page")
    )
    context = {
        "reservation": reservation,
        "form": form,
        "page": page,
        "decision": usage_decision(reservation, "usage_upload", user=request.user),
    }
    return render(request, "billing/usage_list.html", context, status=status)


@org_required()
@require_http_methods(["GET", "POST"])
def usage_mapping(request: HttpRequest, pk: int) -> HttpResponse:
    """The mapping form beside a preview of the first rows as it reads them; saving it makes it
    the provider's mapping and reconciles this file again."""
    upload = _upload(request, pk)
    if bills.is_bill(upload.mapping):
        return _bill_mapping(request, upload)
    mapping = Mapping.from_json(upload.mapping)
    initial = {**mapping.columns, "unit": mapping.unit, "date_format": mapping.date_format}
    form = UsageMappingForm(initial=initial, headers=upload.headers)
    if request.method == "POST":
        form = UsageMappingForm(request.POST, headers=upload.headers)
        if form.is_valid():
            try:
                upload = services.usage_map(
                    upload=upload,
                    user=user_of(request),
                    columns=form.columns(),
                    unit=form.cleaned_data["unit"],
                    date_format=form.cleaned_data["date_format"],
                )
            except services.UsageRefused as exc:
                form.add_error(None, exc.summary)
                # The preview reads the kept rows as typed: each refused line shows its error.
                mapping = Mapping(
                    columns={f: h for f, h in form.columns().items() if h},
                    unit=form.cleaned_data["unit"],
                    date_format=form.cleaned_data["date_format"],
                )
            except ValidationError as exc:
                errors_into_form(form, exc)
            else:
                messages.success(
                    request,
                    "Mapping saved as the provider's; reconciling the file."
                    if upload.mapping_scope == MappingScope.PROVIDER
                    else "Mapping set for this file only (the provider's is unchanged); "
                    "reconciling it.",
                )
                return redirect("billing:usage-detail", pk=upload.pk)
        elif form.data:
            # Preview what was typed, so the user sees why it does not fit.
            mapping = Mapping(
                columns={f: str(form.data[f]) for f in FIELDS if form.data.get(f)},
                unit=str(form.data.get("unit") or mapping.unit),
                date_format=str(form.data.get("date_format") or ""),
            )
    context = {
        "upload": upload,
        "reservation": upload.reservation,
        "form": form,
        "preview": sel.usage_preview(upload=upload, mapping=mapping),
        "decision": usage_decision(upload.reservation, "usage_map", user=request.user),
        "is_provider": usage_party(upload.reservation, user=request.user) == "provider",
    }
    return render(request, "billing/usage_mapping.html", context)


def _asked(upload: UsageUpload, inspection: dict[str, Any]) -> list[dict[str, Any]]:
    """The reading's questions, then the types already answered, with their answer: a reading
    after the answer asks nothing more, and a form without them would confirm without them."""
    asked = list(inspection.get("questions") or [])
    answered = {str(k): v for k, v in dict(upload.mapping.get("answers") or {}).items()}
    kinds = {str(q.get("instance_type") or "") for q in asked}
    return asked + [
        {"instance_type": kind, "ask": f"Answered: one '{kind}' has {gpus} GPUs."}
        for kind, gpus in answered.items()
        if kind not in kinds
    ]


def _bill_mapping(request: HttpRequest, upload: UsageUpload) -> HttpResponse:
    """A bill read by its profile: what the worker found (stored, never read again here) and
    the form to correct it; saving reconciles, or reads the file again first when the change
    cuts it into rows differently."""
    inspection = dict(upload.inspection or {})
    asked = _asked(upload, inspection)
    questions = [str(q.get("instance_type") or "") for q in asked]
    billed = [str(b) for b in inspection.get("billed_nodes") or []]
    nodes = [str(n) for n in inspection.get("contract_nodes") or []]
    headers = list(inspection.get("headers") or upload.headers)
    shape = {"headers": headers, "questions": questions, "billed": billed, "nodes": nodes}
    initial = UsageBillForm.initial_for(
        mapping=upload.mapping, inspection=inspection, questions=questions, billed=billed
    )
    form = UsageBillForm(initial=initial, **shape)
    if request.method == "POST":
        form = UsageBillForm(request.POST, **shape)
        if form.is_valid():
            try:
                upload = services.usage_map_bill(
                    upload=upload,
                    user=user_of(request),
                    profile=form.cleaned_data["profile"],
                    columns=form.columns(),
                    overrides=form.overrides(),
                    answers=form.answers(),
                    node_map=form.node_map(),
                )
            except services.UsageRefused as exc:
                form.add_error(None, exc.summary)  # the cells are listed on this page
            except ValidationError as exc:
                for key, errors in exc.message_dict.items():
                    form.add_error(form.field_for(key), errors)
            else:
                if upload.state == UsageState.MAPPING:
                    messages.success(request, "Reading the file again with these settings.")
                    return redirect("billing:usage-mapping", pk=upload.pk)
                messages.success(
                    request,
                    "Settings saved as the provider's; reconciling the file."
                    if upload.mapping_scope == MappingScope.PROVIDER
                    else "Settings set for this file only (the provider's are unchanged); "
                    "reconciling it.",
                )
                return redirect("billing:usage-detail", pk=upload.pk)
    match = inspection.get("node_match") or {}
    context = {
        "upload": upload,
        "reservation": upload.reservation,
        "form": form,
        "inspection": inspection,
        "settings_fields": [form[n] for n in ("profile", "delimiter", "decimal", "date_order")]
        + [form[n] for n in ("header_row", "sheet")],
        "column_fields": [form[f"col_{f}"] for f in BILL_FIELDS],
        "answer_fields": [(form[f"answer_{i}"], q) for i, q in enumerate(asked)],
        "node_rows": [
            (
                form[f"node_{i}"],
                b,
                match.get("matched", {}).get(b, ""),
                match.get("how", {}).get(b, ""),
            )
            for i, b in enumerate(billed)
        ],
        "decision": usage_decision(upload.reservation, "usage_map", user=request.user),
        "retry": usage_decision(upload.reservation, "usage_retry", user=request.user),
        "is_provider": usage_party(upload.reservation, user=request.user) == "provider",
    }
    return render(request, "billing/usage_bill_mapping.html", context)


@org_required()
@require_GET
def usage_detail(request: HttpRequest, pk: int) -> HttpResponse:
    upload = _upload(request, pk)
    rule = request.GET.get("rule", "")
    if rule and rule not in RULES:
        rule = ""
    page = Paginator(sel.differences(upload=upload, rule=rule), DIFFERENCES_PAGE).get_page(
        request.GET.get("page")
    )
    context: dict[str, Any] = {
        "upload": upload,
        "reservation": upload.reservation,
        "rule": rule,
        "rules": [(k, label, upload.by_rule.get(k, 0)) for k, label in RULES.items()],
        "page": page,
        "totals": upload.totals,
        "other": sorted((upload.totals.get("other") or {}).items()),
        "retry": usage_decision(upload.reservation, "usage_retry", user=request.user),
        # Cells the reading could not read: Retry would meet them again, so it is not offered.
        "bad_cells": _bad_cell_count(upload),
    }
    return render(request, "billing/usage_detail.html", context)


def _bad_cell_count(upload: UsageUpload) -> int:
    if not bills.is_bill(upload.mapping):
        return 0
    cells, more = bills.bad_cells(upload.inspection or {})
    return len(cells) + more if cells else 0


@org_required()
@require_POST
def usage_retry(request: HttpRequest, pk: int) -> HttpResponse:
    upload = _upload(request, pk)
    try:
        row = services.usage_retry(upload=upload, user=user_of(request))
    except services.UsageRefused as exc:
        messages.error(request, exc.summary)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    except QueueUnavailable as exc:
        exc.next_url = reverse("billing:usage-detail", args=[upload.pk])  # type: ignore[attr-defined]
        raise
    else:
        if row.state == UsageState.MAPPING:
            messages.success(request, f"Reading {upload.original_name} again.")
            return redirect("billing:usage-mapping", pk=upload.pk)
        messages.success(request, f"Reconciling {upload.original_name} again.")
    return redirect("billing:usage-detail", pk=upload.pk)


@org_required()
@require_GET
def usage_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "xlsx"):
        raise Http404
    upload = _upload(request, pk)
    rule = request.GET.get("rule", "")
    return differences_response(
        upload, sel.differences(upload=upload, rule=rule if rule in RULES else ""), fmt
    )


@org_required()
@require_GET
def usage_file(request: HttpRequest, pk: int) -> FileResponse:
    upload = _upload(request, pk)
    return FileResponse(
        upload.file.open("rb"),
        as_attachment=True,
        filename=upload.original_name,
        content_type="application/octet-stream",
    )


@org_required()
@require_GET
def usage_focus(request: HttpRequest, pk: int) -> HttpResponse:
    """Every billed line of the latest reconciliation in FOCUS column names (CSV)."""
    return focus_response(_upload(request, pk))
