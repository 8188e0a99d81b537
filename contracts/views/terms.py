from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from bids import selectors as bid_selectors
from bids.lots import lot_get
from bids.models import Lot
from contracts import selectors, services
from contracts.defaults import terms_templates
from contracts.forms import HandoffTermsForm, TermsTemplateForm
from core.errors import ServiceError
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import OrgKind


@org_required()
def terms_detail(request: HttpRequest, pk: int) -> HttpResponse:
    org = active_org(request)
    req = bid_selectors.request_get_for_org(org=org, pk=pk)
    terms = selectors.terms_for_request(capacity_request=req)
    context: dict[str, object] = {"req": req, "terms": terms}
    if terms is not None:
        context.update(
            severities=selectors.severity_rows(terms=terms),
            revisions=selectors.terms_revision_list(terms=terms),
        )
    return render(request, "contracts/terms_detail.html", context)


@org_required(OrgKind.BUYER)
def terms_create(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    existing = selectors.terms_for_request(capacity_request=req)
    form = TermsTemplateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.terms_create(
                capacity_request=req, user=user_of(request), template=form.cleaned_data["template"]
            )
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, "Handoff terms set from the template. Adjust any field.")
            return redirect("contracts:terms-edit", pk=req.pk)
    return render(
        request,
        "contracts/terms_template_form.html",
        {"req": req, "form": form, "templates": terms_templates(), "existing": existing},
    )


@org_required(OrgKind.BUYER)
def terms_edit(request: HttpRequest, pk: int) -> HttpResponse:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    terms = selectors.terms_for_request(capacity_request=req)
    if terms is None:
        raise Http404
    form = HandoffTermsForm(request.POST or None, instance=terms)
    if request.method == "POST" and form.is_valid():
        data = {name: form.cleaned_data[name] for name in form.Meta.fields}
        # The form wrote into `terms`; the service reloads it and applies the data itself.
        try:
            saved = services.terms_update(terms=terms, user=user_of(request), data=data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            if saved.version == terms.version:
                messages.info(request, f"Nothing changed; version {saved.version} stays current.")
            else:
                messages.success(request, f"Handoff terms saved (version {saved.version}).")
            return redirect("contracts:terms-detail", pk=req.pk)
    return render(request, "contracts/terms_form.html", {"req": req, "form": form, "terms": terms})


def _lot(request: HttpRequest, pk: int, number: int) -> Lot:
    req = bid_selectors.request_get_for_buyer(org=active_org(request), pk=pk)
    return lot_get(capacity_request=req, number=number)


def _back(lot: Lot) -> HttpResponse:
    # The lot's page lives in a higher app (it shows the fixture too): the request's page here.
    return redirect("bids:request-detail", pk=lot.request_id)


@require_POST
@org_required(OrgKind.BUYER)
def lot_terms_own(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number)
    try:
        services.lot_terms_own(lot=lot, user=user_of(request))
    except (ServiceError, ValidationError) as exc:
        messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
        return _back(lot)
    messages.success(request, f"Lot {lot.number} has its own handoff terms. Adjust any field.")
    return redirect("contracts:lot-terms-edit", pk=lot.request_id, number=lot.number)


@require_POST
@org_required(OrgKind.BUYER)
def lot_terms_share(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number)
    try:
        services.lot_terms_share(lot=lot, user=user_of(request))
    except ServiceError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Lot {lot.number} shares the request's handoff terms.")
    return _back(lot)


@org_required(OrgKind.BUYER)
def lot_terms_edit(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lot = _lot(request, pk, number)
    terms = selectors.terms_for_lot(lot=lot)
    if terms is None:
        raise Http404
    form = HandoffTermsForm(request.POST or None, instance=terms)
    if request.method == "POST" and form.is_valid():
        data = {name: form.cleaned_data[name] for name in form.Meta.fields}
        try:
            saved = services.terms_update(terms=terms, user=user_of(request), data=data)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(
                request, f"Lot {lot.number}'s handoff terms saved (version {saved.version})."
            )
            return _back(lot)
    return render(
        request,
        "contracts/terms_form.html",
        {"req": lot.request, "lot": lot, "form": form, "terms": terms},
    )
